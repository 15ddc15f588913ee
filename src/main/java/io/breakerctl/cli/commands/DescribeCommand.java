package io.breakerctl.cli.commands;

import io.breakerctl.cli.CliContext;
import io.breakerctl.cli.CliException;
import io.breakerctl.cli.Settings;
import io.breakerctl.cli.output.BreakerDetailView;
import io.breakerctl.cli.output.BreakerTables;
import io.breakerctl.cli.output.BreakerViews;
import io.breakerctl.cli.output.Documents;
import io.breakerctl.cli.output.OutputFormat;
import io.breakerctl.cli.output.OutputOptions;
import io.breakerctl.runtime.connection.Redaction;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.FleetCallRates;
import io.breakerctl.runtime.store.FleetStore;
import io.breakerctl.runtime.store.StoreFutures;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code breakerctl describe ID}: everything stored about one breaker, read-only. */
@Command(
    name = "describe",
    sortOptions = false,
    description = {
      "Show one breaker: shared state, probe leases (when each probe started, when its slot"
          + " returns unless renewed, how often its node renewed it), override, the policy in"
          + " force (warmed into Redis), each node's heartbeat, the calls, rejections and"
          + " fallbacks per second (fleet-wide and per node, over the nodes' last liveness beat)"
          + " and the last transitions; then where its history goes (forwarded, not kept, or"
          + " waiting for the forwarder with the count and age of the events and when their hold"
          + " ends), the stream's length, the events that expired unforwarded, and what holds its"
          + " keys past the idle TTL (OPEN, HALF_OPEN, OVERRIDE, UNFORWARDED).",
      "Reads only: works for the viewer ACL. A breaker without keys is not found (exit 7)."
    })
public final class DescribeCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Parameters(paramLabel = "ID", description = "The breaker id, caller:dependency[:scope].")
  String id;

  @Option(
      names = "--events",
      paramLabel = "N",
      defaultValue = "10",
      description = "How many of the last events to show (default: ${DEFAULT-VALUE}).")
  int events;

  @Mixin OutputOptions output;

  @Override
  public Integer call() {
    BreakerId breaker = BreakerId.parse(id);
    if (events < 0 || events > 10_000) {
      throw CliException.usage("--events must be 0..10000 but was " + events);
    }
    CliContext root = CliContext.of(spec);
    FleetStore store = root.services().redis();
    BreakerSnapshot s = StoreFutures.await(store.snapshot(breaker, events));
    if (!s.exists() && s.nodes().isEmpty() && s.recentEvents().isEmpty()) {
      Settings settings = root.services().settings();
      throw CliException.notFound(
          "breaker '"
              + breaker
              + "' not found: no keys "
              + store.location(breaker)
              + " on "
              + Redaction.uri(settings.redis())
              + " (prefix '"
              + settings.prefix()
              + "')"
              + KnownBreakers.suggestion(root, breaker));
    }
    if (!s.exists()) {
      // half present: what is shown is what is kept (its last events, its nodes' reports)
      spec.commandLine()
          .getErr()
          .println(
              "warning: "
                  + BreakerViews.partial(
                          breaker.toString(),
                          store.location(breaker),
                          s.recentEvents().isEmpty() ? "its nodes' reports" : "its event stream",
                          0)
                      .problem());
      spec.commandLine().getErr().flush();
    }
    BreakerDetailView view = BreakerViews.detail(s, store.location(breaker));
    if (view.problem() == null) {
      FleetCallRates rates = store.callRatesOrNone(root.services().settings().timeout());
      view =
          view.withRates(
              BreakerViews.rates(rates, view.id()), BreakerViews.nodeRates(rates, view.id()));
    }
    PrintWriter out = spec.commandLine().getOut();
    OutputFormat format = output.format();
    if (format.isTable()) {
      BreakerTables.describe(view, root.style(), out);
    } else if (format == OutputFormat.NAME) {
      out.println(view.id());
      out.flush();
    } else {
      Documents.single(format, "Breaker", view, out);
    }
    return 0;
  }
}
