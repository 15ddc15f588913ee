package io.breakerctl.cli.output;

import java.io.PrintWriter;

/**
 * The writer every command prints to (stdout and stderr alike): whatever a command writes passes
 * {@link Printable#forTerminal}, so a control character a printer forgot to escape is shown escaped
 * all the same. Newlines and tabs (the output's own layout) and complete SGR colour sequences pass;
 * ESC in any other sequence, C1 controls, carriage returns and bidirectional controls never do.
 * Errors of the target still show in {@link #checkError()}.
 */
public final class TerminalWriter extends PrintWriter {

  private TerminalWriter(PrintWriter target) {
    super(target, true);
  }

  /** {@code target} behind the sanitiser (itself when it already is one). */
  public static PrintWriter of(PrintWriter target) {
    return target instanceof TerminalWriter ? target : new TerminalWriter(target);
  }

  @Override
  public void write(int c) {
    if (Printable.isUnsafe(c) && c != '\n' && c != '\t') {
      StringBuilder b = new StringBuilder(6);
      Printable.escape((char) c, b);
      super.write(b.toString(), 0, b.length());
    } else {
      super.write(c);
    }
  }

  @Override
  public void write(char[] buf, int off, int len) {
    write(new String(buf, off, len), 0, len);
  }

  @Override
  public void write(String s, int off, int len) {
    String safe = Printable.forTerminal(s, off, off + len);
    if (safe == null) {
      super.write(s, off, len);
    } else {
      super.write(safe, 0, safe.length());
    }
  }
}
