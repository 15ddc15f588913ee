package io.breakerctl.runtime.model;

/**
 * Whether reported outcomes counted, as {@code record.lua} (and {@code LocalStateMachine}) answers.
 * The wire code is the constant's name and is stable.
 */
public enum RecordOutcome {
  /** Counted toward state (the window, or a probe under its lease). */
  COUNTED,
  /** Admitted in an older generation: changes nothing (totals only). */
  STALE_GENERATION,
  /** A probe result for a lease that is not live for this owner and generation. */
  STALE_LEASE,
  /** A probe result after its lease expired. */
  LEASE_EXPIRED,
  /** Reported in a state that counts nothing in the window (open, half-open without lease). */
  NOT_COUNTED,
  /**
   * A lease given back unused (a lease with no outcome): removed so another caller may probe at
   * once. A node sends it when its acquire's answer was lost or its probe's outcome counts neither
   * way.
   */
  RELEASED;

  /** The stable code. */
  public String code() {
    return name();
  }

  /** Parses a wire code ({@link IllegalArgumentException} naming the valid ones). */
  public static RecordOutcome fromCode(String code) {
    return WireCodes.parse(RecordOutcome.class, "record outcome", code);
  }
}
