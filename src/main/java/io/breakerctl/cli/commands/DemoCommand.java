package io.breakerctl.cli.commands;

import io.breakerctl.cli.CliContext;
import io.breakerctl.cli.CliException;
import io.breakerctl.cli.Durations;
import io.breakerctl.cli.ExitCode;
import io.breakerctl.cli.FleetStores;
import io.breakerctl.cli.output.Documents;
import io.breakerctl.cli.output.OutputFormat;
import io.breakerctl.cli.output.OutputOptions;
import io.breakerctl.cli.output.Table;
import io.breakerctl.runtime.store.FleetStore;
import io.breakerctl.sandbox.DemoFleet;
import io.breakerctl.sandbox.FleetRow;
import io.breakerctl.sandbox.SandboxStart;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code breakerctl demo}: the sandbox, a simulated fleet per mode, the fleet table measured. */
@Command(
    name = "demo",
    description = {
      "Start the sandbox when it is not running (and make its context current), then run a"
          + " simulated fleet through the real runtime, once per mode (LOCAL, SHARED, HYBRID):"
          + " --nodes service instances, each its own registry and connections, call three"
          + " dependencies (loopback TCP servers); payments goes down for a scripted outage and"
          + " recovers. A live line shows the run on stderr; then the fleet table measured in this"
          + " run, counted at the dependency: failuresAtTrip (failures the shared window held at the"
          + " trip), doomedRequests (calls that reached payments after it failed, until every node"
          + " rejected), probesPerWindow (calls that reached it in the first half-open window),"
          + " meanAddedLatencyMicros (what the breaker added to a call).",
      "Stop the sandbox afterwards with 'breakerctl sandbox down'."
    })
public final class DemoCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--nodes",
      paramLabel = "N",
      description = "Service instances per mode, 1 to 50 (default: ${DEFAULT-VALUE}).")
  int nodes = DemoFleet.Options.DEFAULT.nodes();

  @Option(
      names = "--threshold",
      paramLabel = "N",
      description = "Failure threshold of every breaker, 1 to 100 (default: ${DEFAULT-VALUE}).")
  int threshold = DemoFleet.Options.DEFAULT.threshold();

  @Option(
      names = "--duration",
      paramLabel = "DURATION",
      converter = Durations.class,
      description = "The whole run, split between the three modes, 15s to 10m (default: 30s).")
  Duration duration = DemoFleet.Options.DEFAULT.duration();

  @Mixin OutputOptions output;

  /**
   * The machine form of the fleet table ({@code kind: FleetTable}).
   *
   * @param nodes service instances per mode
   * @param dependencies dependencies every node calls
   * @param threshold the failure threshold
   * @param durationSeconds the whole run
   * @param items one row per mode
   */
  public record FleetTableView(
      int nodes, int dependencies, int threshold, long durationSeconds, List<RowView> items) {}

  /**
   * One mode's row.
   *
   * @param mode LOCAL, SHARED or HYBRID
   * @param failuresAtTrip failures in the shared window at the trip (null for LOCAL: per node)
   * @param doomedRequests calls that reached the failing dependency until every node rejected
   * @param probesPerWindow calls that reached it in the first half-open window
   * @param meanAddedLatencyMicros mean time the breaker added to an admitted call
   * @param calls calls the fleet made in this mode's run
   * @param allRejectedAfterMillis from the outage until every node rejected
   * @param degradedNodes nodes that lost Redis at some moment of the run (each then decided on its
   *     own from its last shared state)
   */
  public record RowView(
      String mode,
      Long failuresAtTrip,
      long doomedRequests,
      long probesPerWindow,
      double meanAddedLatencyMicros,
      long calls,
      long allRejectedAfterMillis,
      long degradedNodes) {
    static RowView of(FleetRow r) {
      return new RowView(
          r.mode().name(),
          r.failuresAtTrip(),
          r.doomedRequests(),
          r.probesPerWindow(),
          r.meanAddedLatencyMicros(),
          r.calls(),
          r.allRejectedAfterMillis(),
          r.degradedNodes());
    }
  }

  @Override
  public Integer call() {
    DemoFleet.Options options;
    try {
      options = new DemoFleet.Options(nodes, threshold, duration);
    } catch (IllegalArgumentException e) {
      throw CliException.usage(e.getMessage());
    }
    CliContext root = CliContext.of(spec);
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    SandboxStart start = SandboxCommand.up(root.env(), err);
    List<FleetRow> rows;
    try (FleetStore store =
        root.stores()
            .connect(FleetStores.Target.of(start.state().redisUri(), Duration.ofSeconds(5)))) {
      err.println(
          "demo: "
              + nodes
              + " nodes x "
              + DemoFleet.DEPENDENCIES.size()
              + " dependencies, threshold "
              + threshold
              + ", "
              + Durations.format(duration)
              + " in all: LOCAL, then SHARED, then HYBRID");
      rows =
          new DemoFleet(start.state().redisUri(), store, err, root.env().interactive(), options)
              .run();
    }
    err.println();
    err.flush();
    print(rows.stream().map(RowView::of).toList(), out);
    err.println();
    err.println(
        "next: breakerctl status   |   breakerctl top   |   breakerctl console   |   breakerctl"
            + " sandbox down");
    err.flush();
    return ExitCode.OK;
  }

  private void print(List<RowView> rows, PrintWriter out) {
    OutputFormat format = output.format();
    if (!format.isTable()) {
      Documents.single(
          format,
          "FleetTable",
          new FleetTableView(
              nodes, DemoFleet.DEPENDENCIES.size(), threshold, duration.toSeconds(), rows),
          out);
      return;
    }
    Table t =
        new Table(
            "MODE", "FAILURES_AT_TRIP", "DOOMED_REQUESTS", "PROBES_PER_WINDOW", "ADDED_LATENCY");
    for (RowView r : rows) {
      t.row(
          null,
          r.mode(),
          r.failuresAtTrip() == null ? "n/a (" + threshold + " per node)" : "" + r.failuresAtTrip(),
          Long.toString(r.doomedRequests()),
          Long.toString(r.probesPerWindow()),
          String.format(Locale.ROOT, "%.1f us", r.meanAddedLatencyMicros()));
    }
    t.print(out, CliContext.of(spec).style(), output.headers());
    out.flush();
  }
}
