package io.breakerctl.runtime.model;

/**
 * The states of a breaker, as stored in Redis and printed by breakerctl.
 *
 * <p>The wire code is the constant's name and is stable: it is what the Lua scripts write and what
 * JSON output carries. Never persist {@code ordinal()}.
 */
public enum State {
  /** Calls pass; failures are counted in the sliding window. */
  CLOSED(true, false),
  /** Calls are rejected until the open window ends. */
  OPEN(false, false),
  /** A limited number of probe calls (leases) test the dependency. */
  HALF_OPEN(false, false),
  /** Override: every call is rejected. */
  FORCED_OPEN(false, true),
  /** Override: every call passes, outcomes are counted, nothing trips. */
  FORCED_CLOSED(true, true),
  /** Override: the breaker is off; calls pass and nothing is counted in the window. */
  DISABLED(true, true),
  /** Override: calls pass and outcomes are counted, but the breaker never trips or rejects. */
  METRICS_ONLY(true, true);

  private final boolean admitsAll;
  private final boolean override;

  State(boolean admitsAll, boolean override) {
    this.admitsAll = admitsAll;
    this.override = override;
  }

  /** The stable code stored in Redis and MongoDB and printed in machine output. */
  public String code() {
    return name();
  }

  /** True when every call is admitted without a probe lease. */
  public boolean admitsAll() {
    return admitsAll;
  }

  /** True for the four operator overrides. */
  public boolean isOverride() {
    return override;
  }

  /** True for states in which calls are rejected (OPEN, FORCED_OPEN). */
  public boolean rejects() {
    return this == OPEN || this == FORCED_OPEN;
  }

  /** Whether {@code code} is a state's wire code (false for null). */
  public static boolean isCode(String code) {
    if (code == null) {
      return false;
    }
    for (State s : values()) {
      if (s.name().equals(code)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Parses a wire code.
   *
   * @throws IllegalArgumentException listing the valid codes
   */
  public static State fromCode(String code) {
    if (code != null) {
      try {
        return valueOf(code);
      } catch (IllegalArgumentException e) {
        // fall through to the message naming the valid codes
      }
    }
    throw new IllegalArgumentException(
        "unknown state '"
            + code
            + "' (expected one of CLOSED, OPEN, HALF_OPEN, FORCED_OPEN, FORCED_CLOSED, DISABLED,"
            + " METRICS_ONLY)");
  }
}
