package io.breakerctl.cli;

import io.breakerctl.runtime.control.BreakerPattern;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.store.FleetSelection;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Which breakers a command addresses: an exact id, a glob on ids ({@code *}, {@code ?}), and globs
 * on the caller and the dependency segment. Everything null selects every breaker.
 *
 * @param pattern an id or a glob on ids, or null
 * @param caller a glob on the caller segment, or null
 * @param dependency a glob on the dependency segment, or null
 */
public record BreakerSelector(String pattern, String caller, String dependency)
    implements FleetSelection {
  /** The longest pattern: three segments of 63 and two colons (with room for globs). */
  static final int MAX_LENGTH = 200;

  private static final Pattern GLOB = Pattern.compile("[a-z0-9._:*?-]+");

  /**
   * Validates the globs.
   *
   * @throws IllegalArgumentException naming the bad value
   */
  public BreakerSelector {
    check("pattern", pattern, false);
    check("--caller", caller, true);
    check("--dependency", dependency, true);
    if (pattern != null && !isGlob(pattern)) {
      BreakerId.parse(pattern);
    }
  }

  private static void check(String what, String glob, boolean oneSegment) {
    if (glob == null) {
      return;
    }
    if (glob.isEmpty()) {
      throw new IllegalArgumentException(what + " must not be empty");
    }
    if (glob.length() > MAX_LENGTH) {
      throw new IllegalArgumentException(
          what
              + " '"
              + Inputs.cut(glob)
              + "' is "
              + glob.length()
              + " characters long (at most "
              + MAX_LENGTH
              + ")");
    }
    if (!GLOB.matcher(glob).matches()) {
      throw new IllegalArgumentException(
          what
              + " '"
              + glob
              + "' must be a breaker id or a glob of [a-z0-9._:-] with * and ? (e.g."
              + " 'claims:*')");
    }
    if (oneSegment && glob.contains(":")) {
      throw new IllegalArgumentException(
          what
              + " '"
              + glob
              + "' is a glob on one id segment and cannot contain ':' (for a whole id, give it"
              + " as the pattern, e.g. 'claims:members*')");
    }
    for (String segment : glob.split(":", -1)) {
      if (segment.replace("*", "").length() > 63) {
        throw new IllegalArgumentException(
            what
                + ": segment '"
                + Inputs.cut(segment)
                + "' is "
                + segment.length()
                + " characters long; an id segment has at most 63, so nothing can match");
      }
    }
  }

  private static boolean isGlob(String s) {
    return s.contains("*") || s.contains("?");
  }

  /** The single breaker named exactly, when that is all that is selected. */
  public BreakerId exactId() {
    if (pattern != null && !isGlob(pattern) && caller == null && dependency == null) {
      return BreakerId.parse(pattern);
    }
    return null;
  }

  /** The SCAN MATCH glob of the state hashes under {@code prefix}. */
  public String scanGlob(String prefix) {
    String inner =
        pattern != null ? pattern : caller != null && !caller.contains(":") ? caller + ":*" : "*";
    return prefix + ":{" + inner + "}";
  }

  /** Whether {@code id} is selected. */
  public boolean matches(BreakerId id) {
    return matcher().test(id);
  }

  /** {@link #matches} with the globs compiled once, for testing many ids. */
  public Predicate<BreakerId> matcher() {
    Pattern p = pattern == null || !isGlob(pattern) ? null : regex(pattern);
    Pattern c = caller == null ? null : regex(caller);
    Pattern d = dependency == null ? null : regex(dependency);
    String exact = pattern != null && !isGlob(pattern) ? pattern : null;
    if (p == null && c == null && d == null && exact == null) {
      return id -> true;
    }
    return id ->
        (exact == null || exact.equals(id.toString()))
            && (p == null || p.matcher(id.toString()).matches())
            && (c == null || c.matcher(id.caller()).matches())
            && (d == null || d.matcher(id.dependency()).matches());
  }

  private static Pattern regex(String glob) {
    return BreakerPattern.globRegex(glob);
  }

  /** A short description for messages, e.g. {@code 'claims:*' (caller=claims)}. */
  public String describe() {
    StringBuilder b = new StringBuilder(pattern == null ? "*" : pattern);
    if (caller != null) {
      b.append(" --caller ").append(caller);
    }
    if (dependency != null) {
      b.append(" --dependency ").append(dependency);
    }
    return b.toString();
  }
}
