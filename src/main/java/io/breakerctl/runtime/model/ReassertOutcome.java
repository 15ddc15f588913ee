package io.breakerctl.runtime.model;

/** What {@code reassert.lua} did with a node's re-assertion. The code is the name, stable. */
public enum ReassertOutcome {
  /** Written: the trip or override is back (or the degraded trip published). */
  REASSERTED,
  /** Redis is not behind the caller: nothing to put back. */
  CURRENT,
  /** The window or the override is over by Redis time. */
  ENDED,
  /** Redis already enforces it, or holds something set since. */
  ALREADY;

  /** The stable code. */
  public String code() {
    return name();
  }

  /** Parses a wire code ({@link IllegalArgumentException} naming the valid ones). */
  public static ReassertOutcome fromCode(String code) {
    return WireCodes.parse(ReassertOutcome.class, "reassert outcome", code);
  }
}
