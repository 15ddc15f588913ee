package io.breakerctl.cli;

import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/**
 * Parses the instants of {@code --since}, {@code --until}, {@code --at}, {@code --from}, {@code
 * --to} and {@code --before}: RFC 3339 ({@code 2026-12-01T10:15:30Z}, an offset, fractions of a
 * second), {@code now}, or a duration ago ({@code 90s}, {@code 15m}, {@code 1h}, {@code 2d}).
 */
public final class Times {
  private Times() {}

  /**
   * The instant {@code value} names.
   *
   * @param option the option, named in the error
   * @throws CliException usage quoting the bad value
   */
  public static Instant parse(String option, String value, Clock clock) {
    if (value == null) {
      return null;
    }
    String v = value.trim();
    if (v.equalsIgnoreCase("now")) {
      return clock.instant();
    }
    if (v.contains("T") || v.contains("t")) {
      try {
        return OffsetDateTime.parse(v.toUpperCase(Locale.ROOT)).toInstant();
      } catch (DateTimeParseException e) {
        throw bad(option, value);
      }
    }
    try {
      return clock.instant().minus(Durations.parse(v));
    } catch (IllegalArgumentException e) {
      throw bad(option, value);
    }
  }

  private static CliException bad(String option, String value) {
    return CliException.usage(
        option
            + " must be an RFC 3339 time (e.g. 2026-12-01T10:15:30Z), 'now' or a duration ago (e.g."
            + " 15m, 1h, 2d) but was '"
            + Inputs.cut(value)
            + "'");
  }
}
