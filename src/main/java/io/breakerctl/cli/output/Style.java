package io.breakerctl.cli.output;

import io.breakerctl.runtime.model.State;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * How to decorate human output: colour by state and relative times on a terminal; plain text and
 * RFC 3339 UTC times otherwise; the width tables are fitted to.
 */
public final class Style {
  private static final String RESET = "\u001b[0m";

  private final boolean colour;
  private final boolean terminal;
  private final int width;
  private final Clock clock;

  private Style(boolean colour, boolean terminal, int width, Clock clock) {
    this.colour = colour;
    this.terminal = terminal;
    this.width = width;
    this.clock = clock;
  }

  /**
   * A style. The width comes from {@code columns} (the COLUMNS variable) when set, else from the
   * terminal; off a terminal without COLUMNS tables are not fitted.
   */
  public static Style of(boolean colour, boolean terminal, String columns, Clock clock) {
    int width = Integer.MAX_VALUE;
    if (columns != null && columns.matches("\\d{1,5}")) {
      width = Math.max(40, Integer.parseInt(columns));
    } else if (terminal) {
      width = terminalWidth();
    }
    return new Style(colour, terminal, width, clock);
  }

  /** Plain: no colour, absolute times, no fitting. */
  public static Style plain(Clock clock) {
    return new Style(false, false, Integer.MAX_VALUE, clock);
  }

  /** Whether colour is on. */
  public boolean colour() {
    return colour;
  }

  /** Whether stdout is a terminal. */
  public boolean terminal() {
    return terminal;
  }

  /** The width to fit tables to ({@link Integer#MAX_VALUE}: unbounded). */
  public int width() {
    return width;
  }

  /** The local clock. */
  public Clock clock() {
    return clock;
  }

  /** {@code text} in the colour of {@code state} (when colour is on). */
  public String paint(String text, State state) {
    if (!colour || state == null) {
      return text;
    }
    String code =
        switch (state) {
          case CLOSED -> "32";
          case OPEN, FORCED_OPEN -> "31;1";
          case HALF_OPEN -> "33";
          default -> "36";
        };
    return "\u001b[" + code + "m" + text + RESET;
  }

  /** A Redis time: relative to {@code nowMillis} on a terminal, RFC 3339 UTC otherwise. */
  public String time(long epochMillis, long nowMillis) {
    if (epochMillis <= 0) {
      return "-";
    }
    if (!terminal) {
      return rfc3339(epochMillis);
    }
    long d = epochMillis - nowMillis;
    return d >= 0 ? "in " + age(d) : age(-d) + " ago";
  }

  /** RFC 3339 in UTC with milliseconds, e.g. {@code 2026-11-30T14:00:00.123Z}. */
  public static String rfc3339(long epochMillis) {
    Rfc3339 last = lastRfc3339;
    if (last != null && last.millis == epochMillis) {
      return last.text; // e.g. the read's Redis time, the same for a whole batch of rows
    }
    String text = RFC3339.format(Instant.ofEpochMilli(epochMillis));
    lastRfc3339 = new Rfc3339(epochMillis, text);
    return text;
  }

  private static final java.time.format.DateTimeFormatter RFC3339 =
      java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
          .withZone(java.time.ZoneOffset.UTC);

  private record Rfc3339(long millis, String text) {}

  private static volatile Rfc3339 lastRfc3339;

  /** A short duration: {@code 850ms}, {@code 12s}, {@code 4m}, {@code 3h}, {@code 2d}. */
  public static String age(long millis) {
    if (millis < 1000) {
      return millis + "ms";
    }
    long s = millis / 1000;
    if (s < 120) {
      return s + "s";
    }
    if (s < 7200) {
      return s / 60 + "m";
    }
    if (s < 172_800) {
      return s / 3600 + "h";
    }
    return s / 86_400 + "d";
  }

  private static int terminalWidth() {
    try {
      Process p =
          new ProcessBuilder("stty", "size")
              .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/tty")))
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      if (p.waitFor(500, TimeUnit.MILLISECONDS)) {
        String[] parts = new String(p.getInputStream().readAllBytes()).trim().split("\\s+");
        if (parts.length == 2) {
          return Math.max(40, Integer.parseInt(parts[1]));
        }
      } else {
        p.destroyForcibly();
      }
    } catch (Exception e) {
      // no stty or no tty: fall back to 80
    }
    return 80;
  }
}
