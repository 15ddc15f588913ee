package io.breakerctl.cli.output;

import io.breakerctl.runtime.model.OperatorText;

/**
 * The one sanitiser of output: text from Redis, MongoDB, a file or the command line made unable to
 * act on a terminal. Every character of the rule ({@link #isUnsafe}: C0 controls with tab, newline
 * and ESC, DEL, C1 controls, the line and paragraph separators, bidirectional controls) is shown
 * escaped instead: {@code \n}, {@code \r}, {@code \t}, {@code \x1b} below U+0080, <code>&#92;u009b
 * </code> and <code>&#92;u202e</code> from there on. Applied by {@link Table} to every cell, by the
 * detail printers to every value, by {@link Documents} to every JSON and YAML string, by {@link
 * TerminalWriter} to all of stdout and stderr, and by {@code top} to every screen line.
 */
public final class Printable {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private Printable() {}

  /**
   * Whether {@code codePoint} must never reach a terminal raw (the rule of {@link
   * OperatorText#isControl}, which refuses the same characters at input).
   */
  public static boolean isUnsafe(int codePoint) {
    return OperatorText.isControl(codePoint);
  }

  /** {@code text} with every unsafe character escaped (null stays null). */
  public static String escape(String text) {
    if (text == null) {
      return null;
    }
    int i = 0;
    while (i < text.length() && !isUnsafe(text.charAt(i))) {
      i++;
    }
    if (i == text.length()) {
      return text;
    }
    StringBuilder b = new StringBuilder(text.length() + 8).append(text, 0, i);
    for (; i < text.length(); i++) {
      char ch = text.charAt(i);
      if (isUnsafe(ch)) {
        escape(ch, b);
      } else {
        b.append(ch);
      }
    }
    return b.toString();
  }

  /**
   * One unsafe character as text: {@code \n}, {@code \r}, {@code \t}, {@code \xNN} below U+0080,
   * <code>&#92;uNNNN</code> from there on (every unsafe character is in the Basic Multilingual
   * Plane).
   */
  static void escape(char ch, StringBuilder b) {
    switch (ch) {
      case '\n' -> b.append("\\n");
      case '\r' -> b.append("\\r");
      case '\t' -> b.append("\\t");
      default -> {
        if (ch < 0x80) {
          b.append("\\x").append(HEX[ch >> 4]).append(HEX[ch & 0xf]);
        } else {
          b.append("\\u");
          for (int shift = 12; shift >= 0; shift -= 4) {
            b.append(HEX[(ch >> shift) & 0xf]);
          }
        }
      }
    }
  }

  /**
   * {@code text[from, to)} as it may reach a terminal: every unsafe character escaped except a
   * newline or a tab (the layout of the output itself) and an ESC that opens a complete SGR
   * sequence ({@code ESC [ digits and ; m}: the colours of {@link Style} and of help); null when
   * nothing needs escaping. Text from elsewhere was escaped whole before it got here, so this only
   * catches what a printer forgot, and nothing but a colour can pass as one.
   */
  static String forTerminal(String text, int from, int to) {
    int i = from;
    while (i < to) {
      char ch = text.charAt(i);
      if (isUnsafe(ch) && ch != '\n' && ch != '\t') {
        int sgr = ch == 0x1b ? sgrEnd(text, i, to) : -1;
        if (sgr < 0) {
          break;
        }
        i = sgr;
      } else {
        i++;
      }
    }
    if (i >= to) {
      return null;
    }
    StringBuilder b = new StringBuilder(to - from + 8).append(text, from, i);
    while (i < to) {
      char ch = text.charAt(i);
      if (!isUnsafe(ch) || ch == '\n' || ch == '\t') {
        b.append(ch);
        i++;
        continue;
      }
      int sgr = ch == 0x1b ? sgrEnd(text, i, to) : -1;
      if (sgr > 0) {
        b.append(text, i, sgr);
        i = sgr;
      } else {
        escape(ch, b);
        i++;
      }
    }
    return b.toString();
  }

  /** The end of the SGR sequence whose ESC is at {@code at}, or -1 when it is none. */
  private static int sgrEnd(String text, int at, int to) {
    int i = at + 1;
    if (i >= to || text.charAt(i) != '[') {
      return -1;
    }
    for (i++; i < to && i - at <= 32; i++) {
      char ch = text.charAt(i);
      if (ch == 'm') {
        return i + 1;
      }
      if ((ch < '0' || ch > '9') && ch != ';') {
        return -1;
      }
    }
    return -1;
  }
}
