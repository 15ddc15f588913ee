package io.breakerctl.runtime;

import io.breakerctl.runtime.model.BreakerId;
import java.time.Duration;

/**
 * A call (or one attempt of it) passed its deadline and was abandoned; it counts as a failure
 * ({@link CallOutcome#TIMEOUT}). Carries no stack trace.
 */
public final class CallTimeoutException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient BreakerId breaker;
  private final Duration allowed;

  /** A call on {@code breaker} abandoned after {@code allowed}. */
  public CallTimeoutException(BreakerId breaker, Duration allowed) {
    super(
        "call on breaker " + breaker + " abandoned at its deadline (" + allowed.toMillis() + " ms)",
        null,
        false,
        false);
    this.breaker = breaker;
    this.allowed = allowed;
  }

  /** The breaker the call ran under. */
  public BreakerId breaker() {
    return breaker;
  }

  /** How long the call was allowed to run. */
  public Duration allowed() {
    return allowed;
  }
}
