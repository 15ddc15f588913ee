package io.breakerctl.runtime.retry;

/** A call that may be attempted several times; it sees which attempt it is. */
@FunctionalInterface
public interface AttemptCall<T> {

  /** Runs one attempt. */
  T call(Attempt attempt) throws Exception;
}
