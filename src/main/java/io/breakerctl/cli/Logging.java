package io.breakerctl.cli;

import java.util.logging.ConsoleHandler;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.Logger;

/**
 * Library logging. SLF4J is bound to slf4j-nop (silent), so Lettuce and Netty log through
 * java.util.logging: off by default, warnings and above to stderr with {@code -v}.
 */
final class Logging {
  private Logging() {}

  static void configure(boolean verbose) {
    LogManager.getLogManager().reset();
    Logger root = Logger.getLogger("");
    root.setLevel(verbose ? Level.INFO : Level.OFF);
    if (verbose) {
      Handler h = new ConsoleHandler();
      h.setLevel(Level.INFO);
      root.addHandler(h);
    }
  }
}
