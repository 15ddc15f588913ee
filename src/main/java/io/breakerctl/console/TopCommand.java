package io.breakerctl.console;

import io.breakerctl.cli.BreakerSelector;
import io.breakerctl.cli.CliContext;
import io.breakerctl.cli.CliException;
import io.breakerctl.cli.Durations;
import io.breakerctl.cli.ExitCode;
import io.breakerctl.cli.ServiceFactory;
import io.breakerctl.cli.output.BreakerView;
import io.breakerctl.cli.output.BreakerViews;
import io.breakerctl.runtime.store.FleetCallRates;
import io.breakerctl.runtime.store.FleetStore;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code breakerctl top}: the full-screen live view of the fleet. */
@Command(
    name = "top",
    description = {
      "A full-screen live view of the fleet, refreshed by the runtime's pub/sub channel and every"
          + " --interval: breakers sorted by severity (forced open, open, half-open, invalid, other"
          + " overrides, nodes degraded or disagreeing, the rest), failures against thresholds,"
          + " calls, rejections and fallbacks per second (CALLS/S, REJ/S, FB/S: summed over the"
          + " live nodes, over the window the header states; dropped first on a narrow screen,"
          + " rejections last), time left open, leases, nodes, overrides, and the recent"
          + " transitions.",
      "Keys: q quit, up/down (j/k) select, / filter, s sort (severity, id, failures), o force the"
          + " selected breaker open (asks how long: 30m, 2h, empty until cleared), c clear its"
          + " override (both ask a reason and a one-key y to confirm and are audited like"
          + " 'breakerctl force'), r refresh. Ctrl-C leaves.",
      "It acts on the cluster of the global options it was started with (inside the console:"
          + " the session's); the header names it: the context, the Redis address (password"
          + " hidden) and the prefix.",
      "On a dumb terminal (or with stdout not a terminal) it says so and runs 'status --watch'."
    })
public final class TopCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Parameters(
      index = "0",
      arity = "0..1",
      paramLabel = "PATTERN",
      description = "A breaker id or a glob on ids (default: every breaker).")
  String pattern;

  @Option(
      names = "--interval",
      paramLabel = "DURATION",
      converter = Durations.class,
      defaultValue = "2s",
      description = "Full refresh interval besides pub/sub (default: ${DEFAULT-VALUE}).")
  Duration interval;

  @Override
  public Integer call() throws IOException {
    if (interval.toMillis() < 100) {
      throw CliException.usage("--interval must be at least 100ms");
    }
    BreakerSelector selector;
    try {
      selector = new BreakerSelector(pattern, null, null);
    } catch (IllegalArgumentException e) {
      throw CliException.usage(e.getMessage());
    }
    CliContext root = CliContext.of(spec);
    Terminal inConsole = Console.current();
    if (inConsole != null) {
      return run(root, inConsole, selector);
    }
    try (Terminal terminal =
        TerminalBuilder.builder().name("breakerctl").system(true).dumb(true).build()) {
      return run(root, terminal, selector);
    }
  }

  private int run(CliContext root, Terminal terminal, BreakerSelector selector) throws IOException {
    ServiceFactory services = root.services();
    if (dumb(terminal) || !root.env().interactive()) {
      PrintWriter err = spec.commandLine().getErr();
      err.println("top needs a full-screen terminal (this one is dumb): running 'status --watch'");
      err.flush();
      CommandLine status = nested(root, services);
      status.setOut(spec.commandLine().getOut());
      status.setErr(err);
      List<String> args = new ArrayList<>(List.of("status", "--watch", "--interval"));
      args.add(Durations.format(interval));
      if (pattern != null) {
        args.add(pattern);
      }
      return status.execute(args.toArray(new String[0]));
    }
    FleetStore store = services.redis();
    Duration timeout = services.settings().timeout();
    String title = TargetLabel.of(services.settings());
    boolean colour = root.env().get("NO_COLOR") == null && root.style().colour();
    new Top(
            terminal,
            title,
            () -> read(store, timeout, selector),
            store,
            interval,
            (args, reason) -> force(root, services, args, reason),
            colour)
        .run();
    return ExitCode.OK;
  }

  private static boolean dumb(Terminal t) {
    return Terminal.TYPE_DUMB.equals(t.getType()) || Terminal.TYPE_DUMB_COLOR.equals(t.getType());
  }

  private static List<BreakerView> read(
      FleetStore store, Duration timeout, BreakerSelector selector) {
    List<BreakerView> rows = new ArrayList<>();
    FleetCallRates rates = store.callRatesOrNone(timeout);
    store
        .fleet(timeout, 1000)
        .snapshots(
            selector,
            s -> {
              BreakerView v = BreakerViews.status(s, store.location(s.id()));
              rows.add(v.problem() == null ? v.withRates(BreakerViews.rates(rates, v.id())) : v);
            },
            (id, problem) -> rows.add(BreakerViews.invalid(id.toString(), "", problem, 0)));
    return rows;
  }

  /** The command model on the same connections (kept open: this command closes them). */
  private static CommandLine nested(CliContext root, ServiceFactory services) {
    return root.commandLines().create(root.env(), (flags, env) -> services);
  }

  /** Runs {@code force ... --reason R --yes} as the command line does; returns its outcome. */
  private static String force(
      CliContext root, ServiceFactory services, List<String> args, String reason) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = nested(root, services);
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    List<String> all = new ArrayList<>(args);
    all.addAll(List.of("--reason", reason, "--yes", "-o", "name"));
    int code = cl.execute(all.toArray(new String[0]));
    String said = err.toString().strip();
    if (code == ExitCode.OK) {
      return String.join(" ", args)
          + ": done"
          + (said.isEmpty() ? "" : " (" + firstLine(said) + ")");
    }
    return String.join(" ", args) + ": exit " + code + ": " + firstLine(said);
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
