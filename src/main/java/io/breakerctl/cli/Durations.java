package io.breakerctl.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;

/**
 * Parses durations written like {@code 500ms}, {@code 5s}, {@code 30m}, {@code 2h}, {@code 1d}, at
 * most {@link #MAX} (every duration option: {@code --for}, {@code --timeout}, {@code --since},
 * ...).
 */
public final class Durations implements ITypeConverter<Duration> {
  /**
   * The longest duration any option takes: ten years. Longer ones are typos or units mixed up, and
   * the backends cannot carry them: Redis keeps times as milliseconds in Lua numbers printed with
   * 14 significant digits (an override until about the year 5100 would be stored in exponent
   * notation and read back malformed), and a {@code --timeout} in nanoseconds overflows a long.
   */
  public static final Duration MAX = Duration.ofDays(3650);

  private static final Pattern FORMAT = Pattern.compile("(\\d{1,9})(ms|s|m|h|d)?");

  @Override
  public Duration convert(String value) {
    try {
      return parse(value);
    } catch (IllegalArgumentException e) {
      // picocli names the option: "Invalid value for option '--for': invalid duration ..."
      throw new CommandLine.TypeConversionException(e.getMessage());
    }
  }

  /**
   * Parses a duration; a bare number is seconds.
   *
   * @throws IllegalArgumentException quoting the bad value
   */
  public static Duration parse(String value) {
    Matcher m = FORMAT.matcher(value == null ? "" : value.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "invalid duration '" + Inputs.cut(value) + "' (expected e.g. 500ms, 5s, 30m, 2h, 1d)");
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "s" : m.group(2);
    Duration d =
        switch (unit) {
          case "ms" -> Duration.ofMillis(n);
          case "m" -> Duration.ofMinutes(n);
          case "h" -> Duration.ofHours(n);
          case "d" -> Duration.ofDays(n);
          default -> Duration.ofSeconds(n);
        };
    if (d.compareTo(MAX) > 0) {
      throw new IllegalArgumentException(
          "duration '" + Inputs.cut(value) + "' is too long (at most " + format(MAX) + ")");
    }
    return d;
  }

  /** The shortest spelling {@link #parse} reads back, e.g. {@code 30m}. */
  public static String format(Duration d) {
    long ms = d.toMillis();
    if (ms % 86_400_000 == 0 && ms > 0) {
      return ms / 86_400_000 + "d";
    }
    if (ms % 3_600_000 == 0 && ms > 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms % 60_000 == 0 && ms > 0) {
      return ms / 60_000 + "m";
    }
    if (ms % 1000 == 0) {
      return ms / 1000 + "s";
    }
    return ms + "ms";
  }
}
