package io.breakerctl.runtime.fallback;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;

/**
 * A fast, precise failure instead of the dependency's answer: names the breaker, its state, why the
 * call did not go through and, when a fallback was configured but could not serve, why not. No
 * stack trace (expected and frequent while a dependency is down); the cause is the rejection or the
 * dependency's failure.
 */
public final class ControlledFailureException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient BreakerId breaker;
  private final State state;
  private final String reason;
  private final FallbackTrigger trigger;
  private final transient java.util.Optional<Unserved> unserved;

  ControlledFailureException(
      BreakerId breaker,
      State state,
      String reason,
      FallbackTrigger trigger,
      String unserved,
      Throwable cause,
      java.util.Optional<Unserved> why) {
    super(message(breaker, state, reason, trigger, unserved), cause, false, false);
    this.breaker = breaker;
    this.state = state;
    this.reason = reason;
    this.trigger = trigger;
    this.unserved = why;
  }

  private static String message(
      BreakerId breaker, State state, String reason, FallbackTrigger trigger, String unserved) {
    String what =
        trigger == FallbackTrigger.REJECTED ? "call not permitted" : "call failed (" + reason + ")";
    return "breaker "
        + breaker
        + " is "
        + state
        + (trigger == FallbackTrigger.REJECTED ? " (" + reason + ")" : "")
        + ": "
        + what
        + (unserved.isEmpty() ? "" : "; " + unserved);
  }

  /** The breaker. */
  public BreakerId breaker() {
    return breaker;
  }

  /** Its state when the call was refused or failed. */
  public State state() {
    return state;
  }

  /** The rejection's reason code (OPEN, FORCED_OPEN, ...) or the failure's outcome code. */
  public String reason() {
    return reason;
  }

  /**
   * Why the fallback the policy names could not serve, when that is what failed (the {@code reason}
   * of {@code breakerctl.breaker.fallback.unavailable}); empty when the policy itself says
   * CONTROLLED_FAILURE or NONE.
   */
  public java.util.Optional<Unserved> unserved() {
    return unserved;
  }

  /** Whether the breaker rejected the call or the call failed. */
  public FallbackTrigger trigger() {
    return trigger;
  }
}
