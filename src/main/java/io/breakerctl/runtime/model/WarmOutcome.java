package io.breakerctl.runtime.model;

/** What {@code warm.lua} did with a policy version. The code is the name, stable. */
public enum WarmOutcome {
  /** Written into the breaker and published. */
  WARMED,
  /** A removed policy was taken out of the breaker (its nodes run their defaults again). */
  UNWARMED,
  /**
   * The same version of the same policy was already warmed (un-warm: the breaker holds nothing of
   * that policy).
   */
  UNCHANGED,
  /** A newer version of the same policy is warmed: never replaced by an older one. */
  STALE;

  /** The stable code. */
  public String code() {
    return name();
  }

  /** Parses a wire code ({@link IllegalArgumentException} naming the valid ones). */
  public static WarmOutcome fromCode(String code) {
    return WireCodes.parse(WarmOutcome.class, "warm outcome", code);
  }
}
