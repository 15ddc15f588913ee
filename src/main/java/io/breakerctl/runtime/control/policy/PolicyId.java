package io.breakerctl.runtime.control.policy;

import io.breakerctl.runtime.model.BreakerId;
import java.util.Optional;

/**
 * The id of a policy: a breaker id ({@code caller:dependency[:scope]}), the default of one caller
 * ({@code caller:*}) or the default for all breakers ({@code *:*}).
 */
public final class PolicyId implements Comparable<PolicyId> {

  /** The id of the fleet-wide default policy. */
  public static final PolicyId ALL = new PolicyId("*:*", null, null);

  private final String text;
  private final BreakerId breaker;
  private final String caller;

  private PolicyId(String text, BreakerId breaker, String caller) {
    this.text = text;
    this.breaker = breaker;
    this.caller = caller;
  }

  /**
   * Parses a policy id.
   *
   * @throws IllegalArgumentException quoting the bad id and the rule it breaks
   */
  public static PolicyId parse(String text) {
    if ("*:*".equals(text)) {
      return ALL;
    }
    if (text != null && text.endsWith(":*") && text.indexOf(':') == text.length() - 2) {
      String caller = text.substring(0, text.length() - 2);
      if (BreakerId.SEGMENT.matcher(caller).matches()) {
        return new PolicyId(text, null, caller);
      }
      throw new IllegalArgumentException(
          "policy id "
              + quote(text)
              + ": caller segment "
              + quote(caller)
              + " must match [a-z0-9][a-z0-9._-]{0,62}");
    }
    try {
      BreakerId id = BreakerId.parse(text);
      return new PolicyId(id.toString(), id, null);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "policy id must be caller:dependency[:scope], caller:* or *:* (" + e.getMessage() + ")",
          e);
    }
  }

  /** The policy id of one breaker's own policy. */
  public static PolicyId of(BreakerId id) {
    return new PolicyId(id.toString(), id, null);
  }

  /** The default policy of one caller ({@code caller:*}). */
  public static PolicyId callerDefault(String caller) {
    return parse(caller + ":*");
  }

  /** Whether this is {@code *:*} or {@code caller:*}. */
  public boolean isDefault() {
    return breaker == null;
  }

  /** The breaker this policy belongs to, empty for a default. */
  public Optional<BreakerId> breaker() {
    return Optional.ofNullable(breaker);
  }

  /** The caller of a {@code caller:*} default, empty otherwise. */
  public Optional<String> defaultCaller() {
    return Optional.ofNullable(caller);
  }

  private static String quote(String s) {
    if (s == null) {
      return "null";
    }
    return "'" + (s.length() > 80 ? s.substring(0, 77) + "..." : s) + "'";
  }

  @Override
  public String toString() {
    return text;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PolicyId other && text.equals(other.text);
  }

  @Override
  public int hashCode() {
    return text.hashCode();
  }

  @Override
  public int compareTo(PolicyId o) {
    return text.compareTo(o.text);
  }
}
