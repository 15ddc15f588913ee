package io.breakerctl;

import io.breakerctl.cli.Environment;
import io.breakerctl.cli.ExitCode;
import io.breakerctl.cli.Interruption;
import io.breakerctl.cli.Logging;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.Map;
import picocli.CommandLine;

/**
 * Entry point of the {@code breakerctl} executable jar: the only place that exits. It runs the
 * command line {@link BreakerCtl} composes on the process's stdout, stderr and environment.
 */
public final class Main {
  /**
   * JFR switches no CLI run uses, set unless given: Lettuce registers its event types when jdk.jfr
   * is present, and Netty 4.2's adaptive allocator registers its chunk events at the first buffer
   * (about 100 ms of JFR metadata set-up inside the first connect).
   */
  private static final Map<String, String> NO_JFR =
      Map.of("io.lettuce.core.jfr", "false", "io.netty.jfr.enabled", "false");

  private Main() {}

  /** Runs breakerctl and exits with its documented exit code. */
  public static void main(String[] args) {
    NO_JFR.forEach(
        (k, v) -> {
          if (System.getProperty(k) == null) {
            System.setProperty(k, v);
          }
        });
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
