package io.breakerctl.cli.commands;

import io.breakerctl.cli.BreakerSelector;
import io.breakerctl.cli.CliContext;
import io.breakerctl.cli.CliException;
import io.breakerctl.cli.Durations;
import io.breakerctl.cli.ExitCode;
import io.breakerctl.cli.OutputFailedException;
import io.breakerctl.cli.output.BreakerTables;
import io.breakerctl.cli.output.BreakerView;
import io.breakerctl.cli.output.BreakerViews;
import io.breakerctl.cli.output.Documents;
import io.breakerctl.cli.output.HistoryText;
import io.breakerctl.cli.output.OutputFormat;
import io.breakerctl.cli.output.OutputOptions;
import io.breakerctl.cli.output.Style;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.policy.PolicyId;
import io.breakerctl.runtime.control.policy.PolicyResolver;
import io.breakerctl.runtime.control.policy.PolicyStore;
import io.breakerctl.runtime.control.policy.PolicyVersion;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.BreakerHistory;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.FleetCallRates;
import io.breakerctl.runtime.store.FleetScan;
import io.breakerctl.runtime.store.FleetStore;
import io.breakerctl.runtime.store.HistoryTotals;
import io.breakerctl.runtime.store.StoreException;
import io.breakerctl.runtime.store.StoreFault;
import io.breakerctl.runtime.store.StoreFutures;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
      "Reads only (SCAN, HGETALL, ZRANGE, MGET, EXISTS, TIME): works for the viewer ACL. json, yaml, jsonl and"
          + " name stream rows in scan order unless --sort is given; tables sort by id.",
      "A breaker whose stored hash cannot be read (a field no script writes, a key of the wrong"
          + " type) is listed as INVALID, naming key and field (json: \"problem\"); --check counts"
          + " it as a finding. A breaker whose keys are half present (its state hash missing, its"
          + " event stream or its nodes' reports kept: evicted under maxmemory, deleted by hand)"
          + " is listed as PARTIAL the same way (one more SCAN, of the event streams).",
      "CALLS/S, REJ/S and FB/S: calls admitted, rejected and answered by a fallback per"
          + " second, summed over the live nodes, each over the window since its previous"
          + " liveness beat (about one heartbeatInterval; json: \"rates\" with \"windowMillis\","
          + " 0 when no live node sent counts). '-' in a table: no counts.",
      "With MongoDB given (--mongo, BREAKERCTL_MONGO or the context; not the built-in default),"
          + " one read of the policies it holds in force: POLICY shows what MongoDB holds when"
          + " the keys hold another version (\"orders:pricing v5 (MongoDB v6)\", \"- (MongoDB"
          + " orders:pricing v6)\" after Redis lost it; json: \"inForce\" with \"drift\"),"
          + " and a warning on stderr counts them; `policy warm` puts back what MongoDB holds."
          + " MongoDB unreachable: a warning, the rest as without it.",
      "Where each breaker's history goes (json: \"history\"; -o wide: HISTORY and HELD, and a"
          + " total line): forwarded (to the control plane), not-kept (no control plane: the"
          + " stream keeps its newest 100 events), waiting (events the forwarder has not stored,"
          + " with their count and age; they hold the keys at most for the history hold, 7 days"
          + " by default) or expiring (still waiting after the hold); the stream's length; what"
          + " holds the keys past the idle TTL (OPEN, HALF_OPEN, OVERRIDE, UNFORWARDED); events"
          + " given up unforwarded (a warning on stderr counts them).",
      "On a Cluster the slot owners the topology names are read (a master marked fail or pfail,"
          + " or not answering, is left out; the topology is read again once when one is), and"
          + " --timeout bounds the whole Redis read (MongoDB, when given, is read before it"
          + " within its own --timeout). When part of the keyspace cannot be read (a master"
          + " down, the cluster down during an election), the breakers read are listed, stderr"
          + " names the slots and node not read (json, yaml: \"missing\") and the exit code is 6.",
      "Times are relative only in a table on a terminal, RFC 3339 UTC otherwise."
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
      description =
          "Re-render every --interval until interrupted (SIGINT, SIGTERM: exit 5) or stdout is"
              + " closed. yaml renders are separated by ---; json renders take one line each.")
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
  public Integer call() {
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
    PrintWriter out = spec.commandLine().getOut();
    OutputFormat format = output.format();
    int code = ExitCode.OK;
    for (int i = 0; watchCount == null || i < watchCount; i++) {
      if (i > 0) {
        try {
          Thread.sleep(interval.toMillis());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return ExitCode.CANCELLED;
        }
        out.print(separator(format));
      }
      code = render(selector);
      OutputFailedException.check(out);
    }
    return code;
  }

  /**
   * What goes between two renders of --watch: a cleared screen for a table on a terminal, a YAML
   * document marker, nothing where every line is a document already (json renders on one line,
   * jsonl), else a blank line.
   */
  private String separator(OutputFormat format) {
    return switch (format) {
      case TABLE, WIDE -> CliContext.of(spec).style().terminal() ? "\u001b[H\u001b[2J" : "\n";
      case YAML -> "---\n";
      case JSON, JSONL -> "";
      case NAME -> "\n";
    };
  }

  private int render(BreakerSelector selector) {
    CliContext root = CliContext.of(spec);
    PrintWriter out = spec.commandLine().getOut();
    FleetStore store = root.services().redis();
    OutputFormat format = output.format();
    boolean buffer = format.isTable() || sort != null;
    List<BreakerView> rows = new ArrayList<>();
    boolean[] finding = {false};
    int[] count = {0};
    InForceLookup inForce = inForce(root); // MongoDB, with its own --timeout
    // one reader, one deadline: --timeout bounds the whole Redis read, whatever does not answer
    FleetScan fleet = store.fleet(root.services().settings().timeout(), batch);
    FleetCallRates rates = store.callRatesOrNone(fleet.remaining());
    int[] drifting = {0};
    Documents.ListWriter stream = buffer ? null : Documents.list(format, "BreakerList", out, watch);
    Consumer<BreakerView> sink =
        view -> {
          BreakerView v =
              view.problem() == null ? view.withRates(BreakerViews.rates(rates, view.id())) : view;
          if (inForce != null && v.problem() == null) {
            v = v.withInForce(inForce.of(v.id(), v.policy()));
            drifting[0] += v.inForce().drift() ? 1 : 0;
          }
          boolean invalid = v.problem() != null;
          if (states != null && (invalid || !states.contains(State.fromCode(v.state())))) {
            return;
          }
          finding[0] |= invalid || State.fromCode(v.state()).rejects();
          if (buffer) {
            rows.add(v);
          } else {
            stream.item(v, v.id());
            if (++count[0] % 500 == 0) {
              OutputFailedException.check(out);
            }
          }
        };
    HistoryTotals history = new HistoryTotals();
    long[] redisTime = {0};
    Consumer<BreakerSnapshot> tally =
        s -> {
          if (s.exists() && s.problem().isEmpty()) {
            history.add(s.history());
            redisTime[0] = Math.max(redisTime[0], s.redisTimeMillis());
          }
        };
    BreakerId exact = selector.exactId();
    if (exact != null) {
      readOne(store, exact, tally, sink);
    } else {
      fleet.snapshots(
          selector,
          s -> {
            tally.accept(s);
            sink.accept(BreakerViews.status(s, store.location(s.id())));
          },
          (id, problem) -> sink.accept(BreakerViews.invalid(id.toString(), "", problem, 0)));
      fleet.halfPresent(
          selector,
          id ->
              sink.accept(
                  BreakerViews.partial(id.toString(), store.location(id), "its event stream", 0)));
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
          if (format == OutputFormat.WIDE) {
            out.println(HistoryText.totals(history, redisTime[0]));
          }
        }
      } else {
        try (Documents.ListWriter w = Documents.list(format, "BreakerList", out, watch)) {
          rows.forEach(v -> w.item(v, v.id()));
          missing(fleet, w);
        }
      }
    } else {
      missing(fleet, stream);
      stream.close();
    }
    out.flush();
    if (!fleet.missing().isEmpty()) {
      spec.commandLine().getErr().println(partial(fleet.missing()));
      spec.commandLine().getErr().flush();
      return ExitCode.UNAVAILABLE;
    }
    long partial = rows.stream().filter(v -> BreakerView.PARTIAL.equals(v.state())).count();
    long invalid = rows.stream().filter(v -> v.problem() != null).count() - partial;
    if (partial > 0 && format.isTable()) {
      spec.commandLine()
          .getErr()
          .println(
              "warning: "
                  + partial
                  + " breaker(s) with keys half present are shown as PARTIAL (their state hash is"
                  + " gone: `breakerctl doctor` names an eviction policy that can do it)");
      spec.commandLine().getErr().flush();
    }
    if (invalid > 0 && format.isTable()) {
      spec.commandLine()
          .getErr()
          .println(
              "warning: "
                  + invalid
                  + " breaker(s) with a malformed stored state are shown as INVALID (repair or"
                  + " delete their keys with redis-cli; the row names key and field)");
      spec.commandLine().getErr().flush();
    }
    if (history.eventsExpired() > 0 || history.count(BreakerHistory.Destination.EXPIRING) > 0) {
      spec.commandLine()
          .getErr()
          .println(
              "warning: "
                  + history.eventsExpired()
                  + " event(s) of "
                  + history.breakersExpired()
                  + " breaker(s) expired unforwarded, "
                  + history.count(BreakerHistory.Destination.EXPIRING)
                  + " breaker(s) hold events past the history hold: the history forwarder did not"
                  + " store them in time (describe shows each; doctor checks the forwarder)");
      spec.commandLine().getErr().flush();
    }
    if (drifting[0] > 0 && format.isTable()) {
      spec.commandLine()
          .getErr()
          .println(
              "warning: "
                  + drifting[0]
                  + " breaker(s) hold another policy version than MongoDB has in force (POLICY"
                  + " shows both; `breakerctl policy warm` puts back what MongoDB holds)");
      spec.commandLine().getErr().flush();
    }
    return check && finding[0] ? ExitCode.CHECK_FAILED : ExitCode.OK;
  }

  /** The list document's {@code missing}: the parts of the keyspace not read, when any. */
  private static void missing(FleetScan fleet, Documents.ListWriter w) {
    if (!fleet.missing().isEmpty()) {
      w.trailer("missing", fleet.missing());
    }
  }

  /**
   * The error of a read that left part of the keyspace out: "error: ... not read: slots 0-5460 on
   * host:port (why)".
   */
  static String partial(List<FleetScan.Missing> missing) {
    return "error: Redis unavailable for part of the keyspace, the result is partial: not read: "
        + FleetScan.describe(missing);
  }

  /** What MongoDB holds in force for a breaker, against the policy its keys hold. */
  private interface InForceLookup {
    BreakerView.InForce of(String breaker, BreakerView.PolicyRef warmed);
  }

  /**
   * One read of every policy MongoDB holds in force, when MongoDB was given (flag, environment or
   * context): each breaker's row then shows whether its keys are out of step with it. Without a
   * MongoDB given, none is consulted (an incident tool does not wait on a default address); when
   * the read fails, status goes on without it and says so on stderr.
   */
  private InForceLookup inForce(CliContext root) {
    if (!root.services().settings().mongoConfigured()) {
      return null;
    }
    Map<PolicyId, PolicyVersion> held;
    try {
      held = new PolicyStore(root.services().control()).allInForce(java.time.Instant.now());
    } catch (RuntimeException e) {
      Throwable driver = e.getCause() != null ? e.getCause() : e;
      spec.commandLine()
          .getErr()
          .println(
              "warning: MongoDB could not be read, the policies it holds in force are not"
                  + " compared: "
                  + ControlDatabase.describe(driver));
      spec.commandLine().getErr().flush();
      return null;
    }
    return (breaker, warmed) ->
        PolicyResolver.resolve(BreakerId.parse(breaker), p -> Optional.ofNullable(held.get(p)))
            .map(
                r ->
                    BreakerView.InForce.of(
                        r.value().policyId().toString(), r.value().version(), warmed))
            .orElseGet(() -> BreakerView.InForce.of(null, 0, warmed));
  }

  /** One breaker by its exact id; keys of the wrong type show it as INVALID. */
  private static void readOne(
      FleetStore store, BreakerId id, Consumer<BreakerSnapshot> tally, Consumer<BreakerView> sink) {
    BreakerSnapshot s;
    try {
      s = StoreFutures.await(store.snapshot(id, 0));
    } catch (StoreException e) {
      if (e.fault() != StoreFault.WRONGTYPE) {
        throw e;
      }
      sink.accept(
          BreakerViews.invalid(
              id.toString(),
              "",
              "a key of " + store.location(id) + " has the wrong type: " + e.getMessage(),
              0));
      return;
    }
    if (s.exists() || !s.nodes().isEmpty()) {
      tally.accept(s);
      sink.accept(BreakerViews.status(s, store.location(id)));
    }
  }

  private static Comparator<BreakerView> comparator(SortKey key) {
    Comparator<BreakerView> byId = Comparator.comparing(BreakerView::id);
    return switch (key) {
      case ID -> byId;
      case STATE ->
          Comparator.comparing(
                  (BreakerView v) -> v.problem() == null && !State.fromCode(v.state()).rejects())
              .thenComparing(BreakerView::state)
              .thenComparing(byId);
      case FAILURES ->
          Comparator.comparingLong((BreakerView v) -> -v.failures().window()).thenComparing(byId);
      case NODES ->
          Comparator.comparingInt((BreakerView v) -> -v.nodes().reporting()).thenComparing(byId);
    };
  }
}
