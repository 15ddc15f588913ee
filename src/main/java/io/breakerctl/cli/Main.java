package io.breakerctl.cli;

/** Entry point of the {@code breakerctl} executable jar: the only place that exits. */
public final class Main {
  private static final String LETTUCE_JFR = "io.lettuce.core.jfr";

  private Main() {}

  /** Runs breakerctl and exits with its documented exit code. */
  public static void main(String[] args) {
    // Lettuce registers JFR event types when jdk.jfr is present: start-up time no CLI run uses.
    if (System.getProperty(LETTUCE_JFR) == null) {
      System.setProperty(LETTUCE_JFR, "false");
    }
    Logging.configure(false);
    System.exit(BreakerCtl.commandLine().execute(args));
  }
}
