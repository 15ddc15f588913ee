package io.breakerctl.runtime;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/** Parses an HTTP {@code Retry-After} value: delta-seconds or an HTTP-date (RFC 9110). */
public final class RetryAfter {
  private RetryAfter() {}

  /**
   * The wait {@code value} asks for, counted from {@code now}; empty when the value is absent or
   * malformed (a malformed header never blocks a retry). A date in the past is a zero wait.
   */
  public static Optional<Duration> parse(String value, Instant now) {
    if (value == null) {
      return Optional.empty();
    }
    String v = value.trim();
    if (v.isEmpty()) {
      return Optional.empty();
    }
    if (v.chars().allMatch(Character::isDigit)) {
      if (v.length() > 9) {
        return Optional.empty();
      }
      return Optional.of(Duration.ofSeconds(Long.parseLong(v)));
    }
    try {
      Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
      Duration d = Duration.between(now, at);
      return Optional.of(d.isNegative() ? Duration.ZERO : d);
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }
}
