package io.breakerctl.cli.output;

import io.breakerctl.runtime.model.OperatorText;

/**
 * Text from Redis, MongoDB or the command line made safe for a terminal: every control character
 * ({@link OperatorText#isControl}) is shown escaped ({@code \n}, {@code \t}, {@code \x1b}, {@code
 * \u202e}) instead of acting on the screen.
 */
public final class Printable {
  private Printable() {}

  /** {@code text} with its control characters escaped (null stays null). */
  public static String escape(String text) {
    if (text == null) {
      return null;
    }
    int i = 0;
    while (i < text.length()) {
      int cp = text.codePointAt(i);
      if (OperatorText.isControl(cp)) {
        break;
      }
      i += Character.charCount(cp);
    }
    if (i == text.length()) {
      return text;
    }
    StringBuilder b = new StringBuilder(text.length() + 8).append(text, 0, i);
    while (i < text.length()) {
      int cp = text.codePointAt(i);
      i += Character.charCount(cp);
      if (!OperatorText.isControl(cp)) {
        b.appendCodePoint(cp);
      } else if (cp == '\n') {
        b.append("\\n");
      } else if (cp == '\r') {
        b.append("\\r");
      } else if (cp == '\t') {
        b.append("\\t");
      } else if (cp < 0x100) {
        b.append(String.format("\\x%02x", cp));
      } else {
        b.append(String.format("\\u%04x", cp));
      }
    }
    return b.toString();
  }
}
