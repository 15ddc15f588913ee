package io.breakerctl.runtime.model;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Identity of one breaker: {@code caller:dependency} or {@code caller:dependency:scope}.
 *
 * <p>Each segment matches {@code [a-z0-9][a-z0-9._-]{0,62}}. The id is used verbatim inside the
 * Redis hash tag of every key of the breaker, so it must never carry business identifiers.
 */
public final class BreakerId implements Comparable<BreakerId> {

  /** The pattern every segment must match. */
  public static final Pattern SEGMENT = Pattern.compile("[a-z0-9][a-z0-9._-]{0,62}");

  private final String caller;
  private final String dependency;
  private final String scope;
  private final String text;

  private BreakerId(String caller, String dependency, String scope) {
    this.caller = caller;
    this.dependency = dependency;
    this.scope = scope;
    this.text = caller + ":" + dependency + (scope == null ? "" : ":" + scope);
  }

  /**
   * Parses an id.
   *
   * @throws IllegalArgumentException naming the bad segment and the rule it breaks
   */
  public static BreakerId parse(String text) {
    if (text == null || text.isEmpty()) {
      throw new IllegalArgumentException(
          "breaker id must be caller:dependency[:scope] but was empty");
    }
    String[] parts = text.split(":", -1);
    if (parts.length < 2 || parts.length > 3) {
      throw new IllegalArgumentException(
          "breaker id must be caller:dependency[:scope] (2 or 3 segments) but was "
              + quote(text)
              + " ("
              + parts.length
              + " segment"
              + (parts.length == 1 ? "" : "s")
              + ")");
    }
    String[] names = {"caller", "dependency", "scope"};
    for (int i = 0; i < parts.length; i++) {
      checkSegment(text, names[i], parts[i]);
    }
    return new BreakerId(parts[0], parts[1], parts.length == 3 ? parts[2] : null);
  }

  /** Builds an id from its segments; {@code scope} may be null. */
  public static BreakerId of(String caller, String dependency, String scope) {
    String text = caller + ":" + dependency + (scope == null ? "" : ":" + scope);
    return parse(text);
  }

  /** Returns true when {@code text} is a valid id. */
  public static boolean isValid(String text) {
    try {
      parse(text);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static void checkSegment(String text, String name, String segment) {
    if (segment.isEmpty()) {
      throw new IllegalArgumentException(
          "breaker id " + quote(text) + ": " + name + " segment is empty");
    }
    if (!isSegment(segment)) {
      String why =
          segment.length() > 63
              ? "is " + segment.length() + " characters long (at most 63)"
              : "must match [a-z0-9][a-z0-9._-]{0,62}";
      throw new IllegalArgumentException(
          "breaker id " + quote(text) + ": " + name + " segment " + quote(segment) + " " + why);
    }
  }

  /**
   * {@link #SEGMENT} without a regex: every id a fleet read scans is parsed, so this runs for each
   * breaker of a {@code status}.
   */
  private static boolean isSegment(String s) {
    if (s.length() > 63 || !lowerOrDigit(s.charAt(0))) {
      return false;
    }
    for (int i = 1; i < s.length(); i++) {
      char c = s.charAt(i);
      if (!lowerOrDigit(c) && c != '.' && c != '_' && c != '-') {
        return false;
      }
    }
    return true;
  }

  private static boolean lowerOrDigit(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  }

  private static String quote(String s) {
    String shown = s.length() > 80 ? s.substring(0, 77) + "..." : s;
    return "'" + shown + "'";
  }

  /** The calling service. */
  public String caller() {
    return caller;
  }

  /** The dependency the caller protects itself from. */
  public String dependency() {
    return dependency;
  }

  /** The optional scope (an endpoint or operation), empty when absent. */
  public Optional<String> scope() {
    return Optional.ofNullable(scope);
  }

  @Override
  public String toString() {
    return text;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BreakerId other && text.equals(other.text);
  }

  @Override
  public int hashCode() {
    return text.hashCode();
  }

  @Override
  public int compareTo(BreakerId o) {
    return toString().compareTo(o.toString());
  }
}
