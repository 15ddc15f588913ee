package io.breakerctl.runtime.control;

import com.mongodb.client.model.Filters;
import io.breakerctl.runtime.model.BreakerId;
import java.util.Optional;
import java.util.regex.Pattern;
import org.bson.conversions.Bson;

/**
 * Which breakers a control-plane read addresses: an exact breaker id, or a glob on ids ({@code *}
 * any run of characters, {@code ?} one character), e.g. {@code claims:*}. The glob is compiled
 * once, so matching every breaker of a scan costs no regex compilation per id.
 */
public final class BreakerPattern {

  private static final Pattern CHARS = Pattern.compile("[a-z0-9._:*?-]{1,200}");

  /** Every breaker. */
  public static final BreakerPattern ALL = new BreakerPattern("*");

  private final String glob;
  private final Pattern regex;

  /**
   * Validates the pattern.
   *
   * @param glob the id or glob
   * @throws IllegalArgumentException naming the bad value
   */
  public BreakerPattern(String glob) {
    if (glob == null || !CHARS.matcher(glob).matches()) {
      throw new IllegalArgumentException(
          "breaker pattern '"
              + glob
              + "' must be a breaker id or a glob of [a-z0-9._:-] with * and ? (e.g. 'claims:*')");
    }
    if (!isGlob(glob)) {
      BreakerId.parse(glob);
    }
    this.glob = glob;
    this.regex = globRegex(glob);
  }

  /** The id or glob. */
  public String glob() {
    return glob;
  }

  /**
   * A glob ({@code *} any run of characters, {@code ?} one character, everything else literal) as
   * an anchored regular expression; the CLI's selectors use it too.
   */
  public static Pattern globRegex(String glob) {
    StringBuilder b = new StringBuilder("^");
    for (char c : glob.toCharArray()) {
      if (c == '*') {
        b.append(".*");
      } else if (c == '?') {
        b.append('.');
      } else {
        b.append(Pattern.quote(String.valueOf(c)));
      }
    }
    return Pattern.compile(b.append('$').toString());
  }

  /** A pattern for {@code text} (an id or a glob). */
  public static BreakerPattern of(String text) {
    return new BreakerPattern(text);
  }

  /** A pattern naming exactly one breaker. */
  public static BreakerPattern of(BreakerId id) {
    return new BreakerPattern(id.toString());
  }

  private static boolean isGlob(String s) {
    return s.contains("*") || s.contains("?");
  }

  /** The breaker named exactly, when the pattern is not a glob. */
  public Optional<BreakerId> exact() {
    return isGlob(glob) ? Optional.empty() : Optional.of(BreakerId.parse(glob));
  }

  /** Whether {@code id} is selected. */
  public boolean matches(String id) {
    return isGlob(glob) ? regex.matcher(id).matches() : glob.equals(id);
  }

  /** Whether {@code id} is selected. */
  public boolean matches(BreakerId id) {
    return matches(id.toString());
  }

  /** A MongoDB filter selecting documents whose {@code field} is a selected id. */
  public Bson filter(String field) {
    if (glob.equals("*")) {
      return Filters.exists(field);
    }
    return isGlob(glob) ? Filters.regex(field, regex.pattern()) : Filters.eq(field, glob);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BreakerPattern other && other.glob.equals(glob);
  }

  @Override
  public int hashCode() {
    return glob.hashCode();
  }

  @Override
  public String toString() {
    return "BreakerPattern[glob=" + glob + "]";
  }
}
