package io.breakerctl.runtime.model;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Objects;
import java.util.Optional;

/**
 * A dependency's own word on how long to back off, carried by a failure or a rate-limit answer:
 * HTTP {@code Retry-After} (seconds or an HTTP-date), gRPC {@code grpc-retry-pushback-ms}, or a
 * value the caller or the {@code FailureClassifier} gives. The record script turns it into the
 * fleet's open window: {@code max(current end, now + min(hint, maxOpenSeconds))}, so one node's
 * answer backs every node off, never for longer than the policy allows, and a window the fleet is
 * already in is never shortened (see {@code record.lua} for why).
 *
 * <p>Bad values are refused with an {@link IllegalArgumentException} that names them: a negative
 * wait, one above {@link #MAX} (one day: no dependency means it, and a value that large is a bug or
 * an attack), or text that is not a number or an HTTP-date. A zero wait (or a date already past) is
 * no hint: the parsers answer empty.
 *
 * @param millis the wait asked for, in milliseconds, 1 to {@link #MAX}
 * @param source where it came from
 */
public record BackoffHint(long millis, Source source) {

  /** The longest hint taken: one day (the open window is capped by maxOpenSeconds anyway). */
  public static final Duration MAX = Duration.ofDays(1);

  /** Where a hint came from; stored by name in the event and the breaker's hash. */
  public enum Source {
    /** An HTTP {@code Retry-After} header, delta-seconds or HTTP-date. */
    RETRY_AFTER,
    /** A gRPC {@code grpc-retry-pushback-ms} trailer. */
    GRPC_PUSHBACK,
    /** A value the caller passed with the outcome. */
    CALLER,
    /** A value the breaker's classifier derived from the error or result. */
    CLASSIFIER;

    /** The source a stored name spells, or null for an unknown one. */
    public static Source byName(String name) {
      for (Source s : values()) {
        if (s.name().equals(name)) {
          return s;
        }
      }
      return null;
    }
  }

  /**
   * A hint that set a breaker's open window, and the end it set (the hash's {@code hintMillis},
   * {@code hintSource}, {@code hintUntil}): in force while that end is ahead of the store's time.
   *
   * @param hint the hint as asked (before the maxOpenSeconds cap)
   * @param untilMillis the end of the window it set (store ms)
   */
  public record InForce(BackoffHint hint, long untilMillis) {}

  /** Validates the hint. */
  public BackoffHint {
    Objects.requireNonNull(source, "source");
    if (millis < 1 || millis > MAX.toMillis()) {
      throw new IllegalArgumentException(
          "back-off hint must be between 1 ms and "
              + MAX.toSeconds()
              + " s but was "
              + millis
              + " ms"
              + (millis < 0 ? " (negative)" : ""));
    }
  }

  /**
   * A hint of {@code wait}, empty for a zero wait.
   *
   * @throws IllegalArgumentException for a negative wait or one above {@link #MAX}, naming it
   */
  public static Optional<BackoffHint> of(Duration wait, Source source) {
    Objects.requireNonNull(wait, "wait");
    if (wait.isZero()) {
      return Optional.empty();
    }
    if (wait.isNegative() || wait.compareTo(MAX) > 0) {
      throw new IllegalArgumentException(
          "back-off hint must be between 0 and " + MAX.toSeconds() + " s but was " + wait);
    }
    return Optional.of(new BackoffHint(Math.max(1, wait.toMillis()), source));
  }

  /**
   * An HTTP {@code Retry-After} value: delta-seconds, or an HTTP-date counted from {@code now} (a
   * date already past is no wait). Empty for a zero wait.
   *
   * @throws IllegalArgumentException naming the value when it is negative, above one day, or
   *     neither a whole number of seconds nor an HTTP-date
   */
  public static Optional<BackoffHint> retryAfter(String value, Instant now) {
    String v = trimmed(value, "Retry-After");
    if (v.matches("-?\\d+")) {
      return of(Duration.ofMillis(number(v, "Retry-After", 1000)), Source.RETRY_AFTER);
    }
    try {
      Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
      Duration d = Duration.between(now, at);
      if (d.compareTo(MAX) > 0) {
        throw new IllegalArgumentException(
            "Retry-After must be at most " + MAX.toSeconds() + " s ahead but was \"" + v + "\"");
      }
      return d.isNegative() ? Optional.empty() : of(d, Source.RETRY_AFTER);
    } catch (DateTimeException e) {
      throw new IllegalArgumentException(
          "Retry-After must be whole seconds or an HTTP-date but was \"" + v + "\"", e);
    }
  }

  /**
   * A gRPC {@code grpc-retry-pushback-ms} value (whole milliseconds). Empty for zero.
   *
   * @throws IllegalArgumentException naming the value when it is negative, above one day or not a
   *     whole number
   */
  public static Optional<BackoffHint> grpcPushback(String value) {
    String v = trimmed(value, "grpc-retry-pushback-ms");
    if (!v.matches("-?\\d+")) {
      throw new IllegalArgumentException(
          "grpc-retry-pushback-ms must be whole milliseconds but was \"" + v + "\"");
    }
    return of(Duration.ofMillis(number(v, "grpc-retry-pushback-ms", 1)), Source.GRPC_PUSHBACK);
  }

  /**
   * The hint {@code raw} asks for without failing on a bad value: what a classifier reading an
   * upstream header does, since a dependency's malformed header must never fail the caller's call.
   */
  public static Optional<BackoffHint> lenient(
      java.util.function.Supplier<Optional<BackoffHint>> raw) {
    try {
      return raw.get();
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** The hint as a duration. */
  public Duration duration() {
    return Duration.ofMillis(millis);
  }

  private static String trimmed(String value, String what) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(what + " must not be empty");
    }
    return value.trim();
  }

  /** A whole number of units in ms, refusing one beyond {@link #MAX} before it can overflow. */
  private static long number(String v, String what, long unitMillis) {
    boolean negative = v.startsWith("-");
    String digits = negative ? v.substring(1) : v;
    if (digits.length() > 12 || Long.parseLong(digits) * unitMillis > MAX.toMillis()) {
      throw new IllegalArgumentException(
          what
              + " must be at most "
              + MAX.toSeconds()
              + " s"
              + (negative ? " and not negative" : "")
              + " but was \""
              + v
              + "\"");
    }
    if (negative && Long.parseLong(digits) > 0) {
      throw new IllegalArgumentException(what + " must not be negative but was \"" + v + "\"");
    }
    return Long.parseLong(digits) * unitMillis;
  }
}
