package io.breakerctl.cli;

import java.io.IOException;
import java.io.PrintWriter;
import picocli.CommandLine;

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
    Interruption.install(Thread.currentThread());
    Stdout stdout = Stdout.open();
    PrintWriter out = stdout.writer();
    CommandLine cl =
        BreakerCtl.commandLine(Environment.system(), null, args.length > 0 ? args[0] : null);
    cl.setOut(out);
    int code = cl.execute(args);
    if (out.checkError() && !Stdout.closedPipe(stdout.failure())) {
      // a closed pipe (| head) ends the command quietly with its own code; a full disk does not
      IOException failure = stdout.failure();
      System.err.println(
          "error: cannot write to stdout" + (failure == null ? "" : ": " + failure.getMessage()));
      code = ExitCode.OUTPUT_FAILED;
    } else if (Interruption.requested() && code == ExitCode.OK) {
      code = ExitCode.CANCELLED;
    }
    System.exit(code);
  }
}
