package io.breakerctl.cli;

import io.breakerctl.runtime.connection.Redaction;
import java.util.logging.ConsoleHandler;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * Library logging. SLF4J is bound to slf4j-nop (silent), so Lettuce and Netty log through
 * java.util.logging: off by default, warnings and above to stderr with {@code -v}, redacted ({@link
 * Redaction}) with the exceptions they carry.
 */
public final class Logging {
  private Logging() {}

  /** The JDK's one-line format, with every URI's password hidden (a library may log a URI). */
  private static final class RedactingFormatter extends SimpleFormatter {
    @Override
    public String format(LogRecord record) {
      return Redaction.uri(super.format(record));
    }
  }

  /** Library logging off, or warnings and above to stderr with {@code verbose}. */
  public static void configure(boolean verbose) {
    LogManager.getLogManager().reset();
    Logger root = Logger.getLogger("");
    root.setLevel(verbose ? Level.INFO : Level.OFF);
    if (verbose) {
      Handler h = new ConsoleHandler();
      h.setLevel(Level.INFO);
      h.setFormatter(new RedactingFormatter());
      root.addHandler(h);
    }
  }
}
