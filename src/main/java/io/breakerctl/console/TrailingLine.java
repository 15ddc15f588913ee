package io.breakerctl.console;

import java.io.IOException;
import java.io.Writer;

/**
 * A writer that passes everything to the terminal and remembers the text written after the last
 * line break: a command's question ({@code Continue? [y/N] }) that the console's prompt reader then
 * shows as JLine's prompt.
 */
final class TrailingLine extends Writer {
  private final Writer target;
  private final StringBuilder partial = new StringBuilder();

  TrailingLine(Writer target) {
    this.target = target;
  }

  @Override
  public synchronized void write(char[] buf, int off, int len) throws IOException {
    for (int i = off; i < off + len; i++) {
      char c = buf[i];
      if (c == '\n' || c == '\r') {
        partial.setLength(0);
      } else if (partial.length() < 1024) {
        partial.append(c);
      }
    }
    target.write(buf, off, len);
  }

  /** The text after the last line break, forgotten once taken. */
  synchronized String take() {
    String s = partial.toString();
    partial.setLength(0);
    return s;
  }

  @Override
  public void flush() throws IOException {
    target.flush();
  }

  @Override
  public void close() throws IOException {
    flush();
  }
}
