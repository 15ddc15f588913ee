package io.breakerctl.cli;

import io.breakerctl.BreakerCtl;
import java.io.BufferedReader;
import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;
import java.time.Clock;
import java.util.Map;
import picocli.CommandLine;

/** What a command run in-process printed: its exit code, stdout and stderr apart. */
record InProcessRun(int code, String out, String err) {

  /**
   * A fresh state directory for a run whose environment names none: its audit spool is its own,
   * never delivered into another test's MongoDB that reuses a port (a test that spools and then
   * delivers names its XDG_STATE_HOME).
   */
  private static java.nio.file.Path stateDir() {
    try {
      java.nio.file.Path d = java.nio.file.Files.createTempDirectory("breakerctl-state");
      d.toFile().deleteOnExit();
      return d;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

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
   * Runs {@code args} against {@code redis} and {@code mongo} (connection strings), with its
   * configuration under {@code home} and a 5 s timeout.
   */
  static InProcessRun breakerctl(
      java.nio.file.Path home, String redis, String mongo, String... args) {
    Map<String, String> env = new java.util.HashMap<>();
    env.put("XDG_CONFIG_HOME", home.toString());
    env.put("BREAKERCTL_REDIS", redis);
    env.put("BREAKERCTL_MONGO", mongo);
    env.put("BREAKERCTL_TIMEOUT", "5s");
    return breakerctl(env, args);
  }

  /**
   * Runs {@code args} on a fresh breakerctl with environment {@code env} (no terminal, empty stdin,
   * OS user {@code tester}).
   */
  static InProcessRun breakerctl(Map<String, String> env, String... args) {
    if (!env.containsKey("XDG_STATE_HOME") && !env.containsKey("HOME")) {
      // the CLI's state (the audit spool) never lands in the real home of whoever runs the tests
      env = new java.util.HashMap<>(env);
      env.put("XDG_STATE_HOME", stateDir().toString());
    }
    Environment e =
        new Environment(
            env, false, Clock.systemUTC(), new BufferedReader(new StringReader("")), "tester");
    return execute(BreakerCtl.commandLine(e), args);
  }
}
