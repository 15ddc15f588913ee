package io.breakerctl.cli;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** How bad input is echoed in messages: never whole when it is long. */
public final class Inputs {
  /** The most characters of a value a message echoes. */
  public static final int ECHO_LIMIT = 200;

  private static final Pattern LONG_QUOTED = Pattern.compile("'([^']{" + (ECHO_LIMIT + 1) + ",})'");

  private Inputs() {}

  /**
   * {@code value} as a message shows it: up to {@link #ECHO_LIMIT} characters, a longer one cut to
   * fewer with its length named, e.g. {@code aaaa... (10485760 characters)}.
   */
  public static String cut(String value) {
    if (value == null) {
      return "";
    }
    if (value.length() <= ECHO_LIMIT) {
      return value;
    }
    // at most ECHO_LIMIT in all, so a message cut again leaves it as it is
    return value.substring(0, ECHO_LIMIT - 30) + "... (" + value.length() + " characters)";
  }

  /** {@code message} with every quoted value longer than {@link #ECHO_LIMIT} {@link #cut}. */
  public static String cutQuoted(String message) {
    if (message == null || message.length() <= ECHO_LIMIT) {
      return message;
    }
    Matcher m = LONG_QUOTED.matcher(message);
    StringBuilder b = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(b, Matcher.quoteReplacement("'" + cut(m.group(1)) + "'"));
    }
    m.appendTail(b);
    String s = b.toString();
    return s.length() <= 4 * ECHO_LIMIT ? s : cut(s);
  }
}
