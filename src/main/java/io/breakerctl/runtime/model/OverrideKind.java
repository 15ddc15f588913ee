package io.breakerctl.runtime.model;

/** What an override request does. */
public enum OverrideKind {
  /** Reject every call. */
  FORCED_OPEN,
  /** Admit every call; count outcomes; never trip. */
  FORCED_CLOSED,
  /** Turn the breaker off. */
  DISABLED,
  /** Count outcomes, never trip or reject. */
  METRICS_ONLY,
  /** Remove the override; the machine resumes. */
  CLEAR;

  /** The state this override puts the breaker in (CLEAR has none). */
  public State state() {
    return this == CLEAR ? null : State.valueOf(name());
  }
}
