package io.breakerctl.cli.commands;

import io.breakerctl.cli.BreakerCtl;
import io.breakerctl.cli.BreakerSelector;
import io.breakerctl.cli.CliException;
import io.breakerctl.cli.Durations;
import io.breakerctl.cli.ExitCode;
import io.breakerctl.cli.FleetReader;
import io.breakerctl.cli.output.BreakerTables;
import io.breakerctl.cli.output.BreakerView;
import io.breakerctl.cli.output.BreakerViews;
import io.breakerctl.cli.output.Documents;
import io.breakerctl.cli.output.OutputFormat;
import io.breakerctl.cli.output.OutputOptions;
import io.breakerctl.cli.output.Style;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.BreakerSnapshot;
import io.breakerctl.runtime.redis.RedisBreakerStore;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code breakerctl status [PATTERN]}: the fleet view of every breaker, read-only. */
@Command(
    name = "status",
    sortOptions = false,
    description = {
      "Show the shared state of breakers: state in force, failures, open window, probe leases,"
          + " override, policy version, and what the nodes report (disagreeing, degraded, on an"
          + " old policy version).",
      "Reads only (SCAN, HGETALL, ZRANGE, TIME): works for the viewer ACL. json, yaml, jsonl and"
          + " name stream rows in scan order unless --sort is given; tables sort by id."
    })
public final class StatusCommand implements Callable<Integer> {

  /** Sort keys. */
  public enum SortKey {
    /** Breaker id. */
    ID,
    /** State, the rejecting ones first. */
    STATE,
    /** Failures in the window, most first. */
    FAILURES,
    /** Nodes reporting, most first. */
    NODES
  }

  @Spec CommandSpec spec;

  @Parameters(
      index = "0",
      arity = "0..1",
      paramLabel = "PATTERN",
      description = "A breaker id or a glob on ids, e.g. 'claims:*' (default: every breaker).")
  String pattern;

  @Option(
      names = "--state",
      split = ",",
      paramLabel = "STATE",
      description = "Only breakers in these states in force: ${COMPLETION-CANDIDATES}.")
  Set<State> states;

  @Option(names = "--caller", paramLabel = "GLOB", description = "Only these callers.")
  String caller;

  @Option(names = "--dependency", paramLabel = "GLOB", description = "Only these dependencies.")
  String dependency;

  @Option(
      names = "--sort",
      paramLabel = "KEY",
      description = "Sort by ${COMPLETION-CANDIDATES} (default: id for tables).")
  SortKey sort;

  @Option(
      names = {"-w", "--watch"},
      description = "Re-render every --interval until interrupted.")
  boolean watch;

  @Option(
      names = "--interval",
      paramLabel = "DURATION",
      converter = Durations.class,
      defaultValue = "2s",
      description = "Refresh interval of --watch (default: ${DEFAULT-VALUE}).")
  Duration interval;

  @Option(
      names = "--watch-count",
      paramLabel = "N",
      description = "With --watch: stop after N renders, N >= 1 (default: until interrupted).")
  Integer watchCount;

  @Option(names = "--check", description = "Exit 1 when any listed breaker is OPEN or FORCED_OPEN.")
  boolean check;

  @Option(
      names = "--batch",
      hidden = true,
      defaultValue = "1000",
      description = "Reads in flight per round trip.")
  int batch;

  @Mixin OutputOptions output;

  @Override
  public Integer call() throws InterruptedException {
    BreakerSelector selector = new BreakerSelector(pattern, caller, dependency);
    if (batch < 1 || batch > 100_000) {
      throw CliException.usage("--batch must be 1..100000 but was " + batch);
    }
    if (watchCount != null && watchCount < 1) {
      throw CliException.usage(
          "--watch-count must be at least 1 but was "
              + watchCount
              + " (leave it out to watch until interrupted)");
    }
    if (!watch) {
      return render(selector);
    }
    if (interval.toMillis() < 100) {
      throw CliException.usage("--interval must be at least 100ms");
    }
    int code = ExitCode.OK;
    for (int i = 0; watchCount == null || i < watchCount; i++) {
      if (i > 0) {
        Thread.sleep(interval.toMillis());
        PrintWriter out = spec.commandLine().getOut();
        out.print(BreakerCtl.of(spec).style().terminal() ? "\u001b[H\u001b[2J" : "\n");
      }
      code = render(selector);
    }
    return code;
  }

  private int render(BreakerSelector selector) {
    BreakerCtl root = BreakerCtl.of(spec);
    PrintWriter out = spec.commandLine().getOut();
    RedisBreakerStore store = root.services().redis();
    OutputFormat format = output.format();
    boolean buffer = format.isTable() || sort != null;
    List<BreakerView> rows = new ArrayList<>();
    boolean[] rejecting = {false};
    int[] count = {0};
    Documents.ListWriter stream = buffer ? null : Documents.list(format, "BreakerList", out);
    Consumer<BreakerSnapshot> sink =
        s -> {
          State state = s.effectiveState();
          if (states != null && !states.contains(state)) {
            return;
          }
          rejecting[0] |= state.rejects();
          count[0]++;
          BreakerView v = BreakerViews.status(s);
          if (buffer) {
            rows.add(v);
          } else {
            stream.item(v, v.id());
          }
        };
    BreakerId exact = selector.exactId();
    if (exact != null) {
      BreakerSnapshot s = RedisBreakerStore.await(store.snapshot(exact, 0));
      if (s.exists() || !s.nodes().isEmpty()) {
        sink.accept(s);
      }
    } else {
      new FleetReader(store, root.services().settings().timeout(), batch).snapshots(selector, sink);
    }
    if (buffer) {
      rows.sort(comparator(sort == null ? SortKey.ID : sort));
      if (format.isTable()) {
        Style style = root.style();
        if (rows.isEmpty()) {
          spec.commandLine().getErr().println("No breakers found.");
          spec.commandLine().getErr().flush();
        } else {
          BreakerTables.status(rows, format == OutputFormat.WIDE, style)
              .print(out, style, output.headers());
        }
      } else {
        try (Documents.ListWriter w = Documents.list(format, "BreakerList", out)) {
          rows.forEach(v -> w.item(v, v.id()));
        }
      }
    } else {
      stream.close();
    }
    out.flush();
    return check && rejecting[0] ? ExitCode.CHECK_FAILED : ExitCode.OK;
  }

  private static Comparator<BreakerView> comparator(SortKey key) {
    Comparator<BreakerView> byId = Comparator.comparing(BreakerView::id);
    return switch (key) {
      case ID -> byId;
      case STATE ->
          Comparator.comparing((BreakerView v) -> !State.fromCode(v.state()).rejects())
              .thenComparing(BreakerView::state)
              .thenComparing(byId);
      case FAILURES ->
          Comparator.comparingLong((BreakerView v) -> -v.failures().window()).thenComparing(byId);
      case NODES ->
          Comparator.comparingInt((BreakerView v) -> -v.nodes().reporting()).thenComparing(byId);
    };
  }
}
