package io.breakerctl.console;

import io.breakerctl.BreakerCtl;
import io.breakerctl.cli.Environment;
import java.io.BufferedReader;
import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;

/**
 * One run of the command model with stdin not a terminal ({@code breakerctl ARGV < stdin}): its
 * exit code, stdout and stderr.
 */
record PipedRun(int code, String out, String err) {

  static PipedRun of(Map<String, String> variables, String stdin, List<String> argv) {
    Environment env =
        new Environment(
            variables, false, Clock.systemUTC(), new BufferedReader(new StringReader(stdin)), "it");
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = BreakerCtl.commandLine(env);
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int code = cl.execute(argv.toArray(new String[0]));
    return new PipedRun(code, out.toString(), err.toString());
  }
}
