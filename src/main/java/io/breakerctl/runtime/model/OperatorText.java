package io.breakerctl.runtime.model;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The rule for text an operator writes and every other operator and node reads back (override
 * reasons, actors, notes): bounded in size, and free of control characters (C0 and C1, DEL, line
 * and paragraph separators, bidirectional marks, embeddings, overrides and isolates), which would
 * otherwise move the cursor, recolour, fake rows or reorder text on other operators' terminals. The
 * CLI's output escapes the same characters wherever they come from (its output package's sanitiser,
 * which calls {@link #isControl}: the arrow points from the CLI to the runtime).
 */
public final class OperatorText {
  /** The most bytes (UTF-8) an override reason or a note may take. */
  public static final int MAX_REASON_BYTES = 1024;

  /** The most bytes (UTF-8) an actor name may take. */
  public static final int MAX_ACTOR_BYTES = 128;

  private OperatorText() {}

  /**
   * Whether {@code codePoint} is one that text shown to operators must not contain: C0 controls
   * (tab, newline and ESC included), DEL, C1 controls (U+0080-U+009F, U+009B being a one-character
   * CSI), the line and paragraph separators U+2028 and U+2029, and the bidirectional controls
   * U+061C, U+200E, U+200F, U+202A-U+202E and U+2066-U+2069.
   */
  public static boolean isControl(int codePoint) {
    int type = Character.getType(codePoint);
    return type == Character.CONTROL
        || type == Character.LINE_SEPARATOR
        || type == Character.PARAGRAPH_SEPARATOR
        || codePoint == 0x061C
        || codePoint == 0x200E
        || codePoint == 0x200F
        || (codePoint >= 0x202A && codePoint <= 0x202E)
        || (codePoint >= 0x2066 && codePoint <= 0x2069);
  }

  /**
   * What is wrong with {@code text} under this rule, if anything: empty or blank, more than {@code
   * maxBytes} bytes of UTF-8, or the first control character and its position (1-based, in
   * characters).
   */
  public static Optional<String> problem(String text, int maxBytes) {
    if (text == null || text.isBlank()) {
      return Optional.of("must not be empty");
    }
    int bytes = text.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > maxBytes) {
      return Optional.of("must be at most " + maxBytes + " bytes but was " + bytes);
    }
    int position = 1;
    for (int i = 0; i < text.length(); ) {
      int cp = text.codePointAt(i);
      if (isControl(cp)) {
        return Optional.of(
            String.format(
                "must not contain control characters (U+%04X at character %d)", cp, position));
      }
      i += Character.charCount(cp);
      position++;
    }
    return Optional.empty();
  }

  /**
   * Returns {@code text} when it follows the rule.
   *
   * @throws IllegalArgumentException "{@code what} must not contain control characters (...)"
   */
  public static String require(String what, String text, int maxBytes) {
    Optional<String> p = problem(text, maxBytes);
    if (p.isPresent()) {
      throw new IllegalArgumentException(what + " " + p.get());
    }
    return text;
  }
}
