package io.breakerctl.runtime.retry;

import java.util.concurrent.CompletionStage;

/** An asynchronous call that may be attempted several times; it sees which attempt it is. */
@FunctionalInterface
public interface AsyncAttemptCall<T> {

  /** Starts one attempt. */
  CompletionStage<T> start(Attempt attempt);
}
