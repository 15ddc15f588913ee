package io.breakerctl.runtime.model;

/** What an override call did, as {@code override.lua} answers. The code is the name, stable. */
public enum OverrideOutcome {
  /** A new override is in force. */
  SET,
  /** The override already held was updated (expiry, actor, reason). */
  UPDATED,
  /**
   * The same override, set by the same actor with the same reason, was already in force and the
   * request asked to keep it ({@code keep}): nothing changed, its expiry stands.
   */
  UNCHANGED,
  /** The override was cleared; the machine resumes. */
  CLEARED,
  /** A clear found no override: nothing changed. */
  NOT_OVERRIDDEN;

  /** The stable code. */
  public String code() {
    return name();
  }

  /** Parses a wire code ({@link IllegalArgumentException} naming the valid ones). */
  public static OverrideOutcome fromCode(String code) {
    return WireCodes.parse(OverrideOutcome.class, "override outcome", code);
  }
}
