package io.breakerctl.cli;

import java.io.BufferedReader;
import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;
import java.time.Clock;
import java.util.Map;
import picocli.CommandLine;

/** What a command run in-process printed: its exit code, stdout and stderr apart. */
record InProcessRun(int code, String out, String err) {

  /** Runs {@code args} on {@code cl} with captured stdout and stderr. */
  static InProcessRun execute(CommandLine cl, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    return new InProcessRun(code, out.toString(), err.toString());
  }

  /**
   * Runs {@code args} on a fresh breakerctl with environment {@code env} (no terminal, empty stdin,
   * OS user {@code tester}).
   */
  static InProcessRun breakerctl(Map<String, String> env, String... args) {
    Environment e =
        new Environment(
            env, false, Clock.systemUTC(), new BufferedReader(new StringReader("")), "tester");
    return execute(BreakerCtl.commandLine(e), args);
  }
}
