package io.breakerctl.cli.output;

import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;

/**
 * The JSON escapes of machine output: Jackson's own (C0 controls, {@code "} and {@code \}), plus
 * DEL and every other character {@link Printable#isUnsafe} names (C1 controls, the line and
 * paragraph separators, bidirectional controls) as <code>&#92;uXXXX</code>. A JSON reader gets the
 * original string back; a terminal that shows the document shows the escape.
 */
final class JsonEscapes extends CharacterEscapes {
  private static final long serialVersionUID = 1L;

  private final int[] ascii = standardAsciiEscapesForJSON();

  JsonEscapes() {
    ascii[0x7f] = ESCAPE_STANDARD;
  }

  @Override
  public int[] getEscapeCodesForAscii() {
    return ascii;
  }

  @Override
  public SerializableString getEscapeSequence(int ch) {
    if (!Printable.isUnsafe(ch)) {
      return null;
    }
    return new SerializedString(String.format("\\u%04X", ch));
  }
}
