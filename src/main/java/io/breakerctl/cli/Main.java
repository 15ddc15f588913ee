package io.breakerctl.cli;

/** Entry point of the {@code breakerctl} executable jar: the only place that exits. */
public final class Main {
  private Main() {}

  /** Runs breakerctl and exits with its documented exit code. */
  public static void main(String[] args) {
    Logging.configure(false);
    System.exit(BreakerCtl.commandLine().execute(args));
  }
}
