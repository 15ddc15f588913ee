package io.breakerctl.runtime;

import io.breakerctl.runtime.model.AdmissionReason;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;

/**
 * A call was rejected by a breaker. Carries no stack trace by default: rejections are expected and
 * frequent while a dependency is down.
 */
public final class CallNotPermittedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient BreakerId breaker;
  private final State state;
  private final AdmissionReason reason;

  CallNotPermittedException(
      BreakerId breaker, State state, AdmissionReason reason, boolean stackTrace) {
    super(
        "breaker " + breaker + " is " + state + " (" + reason + "): call not permitted",
        null,
        false,
        stackTrace);
    this.breaker = breaker;
    this.state = state;
    this.reason = reason;
  }

  /**
   * The exception for a call the breaker {@code breaker} did not permit ({@code permission} not
   * allowed), as the breaker's own calls throw it (a stack trace only when the permission asks for
   * one: {@link Permission#rejectionStackTrace}).
   */
  public static CallNotPermittedException of(BreakerId breaker, Permission permission) {
    return new CallNotPermittedException(
        breaker, permission.state(), permission.reason(), permission.rejectionStackTrace());
  }

  /** The breaker that rejected the call. */
  public BreakerId breaker() {
    return breaker;
  }

  /** Its state at the decision. */
  public State state() {
    return state;
  }

  /** Why it was rejected (OPEN, FORCED_OPEN, PROBES_BUSY, NO_LEASE, PROBE_PENDING). */
  public AdmissionReason reason() {
    return reason;
  }
}
