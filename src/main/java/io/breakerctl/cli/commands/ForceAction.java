package io.breakerctl.cli.commands;

import io.breakerctl.cli.BreakerSelector;
import io.breakerctl.cli.CliContext;
import io.breakerctl.cli.CliException;
import io.breakerctl.cli.Confirmation;
import io.breakerctl.cli.Durations;
import io.breakerctl.cli.ExitCode;
import io.breakerctl.cli.Interruption;
import io.breakerctl.cli.MutationOptions;
import io.breakerctl.cli.ServiceFactory;
import io.breakerctl.cli.Settings;
import io.breakerctl.cli.WriteAccess;
import io.breakerctl.cli.commands.ForceCommand.OverrideView;
import io.breakerctl.cli.commands.ForceCommand.ReplicationView;
import io.breakerctl.cli.commands.ForceCommand.Result;
import io.breakerctl.cli.output.Documents;
import io.breakerctl.cli.output.OutputFormat;
import io.breakerctl.cli.output.OutputOptions;
import io.breakerctl.cli.output.Printable;
import io.breakerctl.cli.output.Style;
import io.breakerctl.cli.output.Table;
import io.breakerctl.runtime.control.override.OverridePlan;
import io.breakerctl.runtime.control.override.OverridePlan.Decision;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OperatorText;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.FleetScan;
import io.breakerctl.runtime.store.FleetStore;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.ReplicaAcks;
import io.breakerctl.runtime.store.StoreException;
import io.breakerctl.runtime.store.StoreUnavailableException;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** The shared body of the force subcommands: select, read, dry-run, confirm, apply, print. */
abstract class ForceAction implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(
      arity = "0..1",
      paramLabel = "ID|GLOB",
      description = "A breaker id (one no node used yet needs --new) or a glob on existing ids.")
  String target;

  @Option(names = "--caller", paramLabel = "GLOB", description = "Every breaker of callers.")
  String caller;

  @Option(
      names = "--dependency",
      paramLabel = "GLOB",
      description = "Every breaker of dependencies.")
  String dependency;

  @Option(
      names = "--reason",
      required = true,
      paramLabel = "TEXT",
      description =
          "Why; shown to every operator: at most "
              + OperatorText.MAX_REASON_BYTES
              + " bytes (UTF-8), no control characters (newline, tab, escape).")
  String reason;

  @Option(
      names = "--new",
      description =
          "Allow an exact id that nothing knows yet (no keys in Redis, no policy, note or history"
              + " in MongoDB): forcing a breaker before any node used it. Without it such an id is"
              + " refused as a likely typo (exit 7, naming the nearest known ids).")
  boolean allowNew;

  @Option(
      names = "--min-replicas",
      paramLabel = "N",
      description =
          "Exit 10 when fewer than N replicas of a breaker's master acknowledged its change"
              + " within the wait (WAIT, three quarters of --timeout; the override stays set and"
              + " the output says where it is); default: BREAKERCTL_MIN_REPLICAS, the context's"
              + " minReplicas, else 0. Every change prints where it is (on the master and 2/2"
              + " replicas) either way.")
  String minReplicas;

  @Mixin MutationOptions mutation;

  @Mixin OutputOptions output;

  /** The glob's reader (null for an exact id): what it could not read, when any. */
  private FleetScan fleet;

  abstract OverrideKind kind();

  Duration duration() {
    return Duration.ZERO;
  }

  @Override
  public Integer call() throws IOException {
    if (target == null && caller == null && dependency == null) {
      throw CliException.usage("name a breaker id or a glob, or give --caller or --dependency");
    }
    CliContext root = CliContext.of(spec);
    Confirmation.checkText("--reason", reason, OperatorText.MAX_REASON_BYTES);
    int min =
        minReplicas == null
            ? root.services().settings().minReplicas()
            : Settings.parseMinReplicas("--min-replicas", minReplicas);
    String actor = WriteAccess.actor(root);
    BreakerSelector selector = new BreakerSelector(target, caller, dependency);
    ServiceFactory services = root.services();
    OverrideRequest request = new OverrideRequest(kind(), actor, reason, duration(), "");
    FleetStore store = services.redis();
    List<BreakerId> ids = select(selector, services, store);
    OverridePlan plan;
    try {
      plan = OverridePlan.read(store, ids, request);
    } catch (StoreException e) {
      PrintWriter err = spec.commandLine().getErr();
      notRead(err);
      if (ids.size() > 1) {
        err.println(
            "error: nothing was changed: the state of the "
                + ids.size()
                + " breakers found could not be read");
        err.flush();
      }
      throw e; // then the read's own error
    }
    if (selector.exactId() != null && !allowNew) {
      BreakerId exact = selector.exactId();
      KnownBreakers.require(
          root,
          spec.commandLine().getErr(),
          exact,
          plan.entries().get(0).snapshot(),
          "to force a breaker no node has used yet, add --new");
    }
    if (mutation.dryRun()) {
      // a dry run exits as the real run would: a viewer gets 4 naming the command
      WriteAccess.require(root, describeChange(), ids);
      return partial(print(dryRun(plan, store), root.style()));
    }
    WriteAccess.require(root, describeChange(), ids);
    Confirmation.confirm(
        root,
        mutation.yes(),
        spec.commandLine().getErr(),
        describeChange(),
        "breaker(s)",
        ids.stream().map(BreakerId::toString).toList());
    ForceBatch batch =
        new ForceBatch(services.overrides(services.control()), spec.commandLine().getErr());
    List<OverrideView> done = replication(batch.apply(plan), store);
    int code = print(done, root.style());
    if (kind() != OverrideKind.CLEAR && batch.count(Result.APPLIED) > 0) {
      // after the table; beside one document, on stderr
      PrintWriter undo =
          output.format().isTable() ? spec.commandLine().getOut() : spec.commandLine().getErr();
      undo.println("undo: " + ForceCommand.undo(target, caller, dependency, reason));
      undo.flush();
    }
    StoreException failure = batch.failure();
    if (failure == null && !Interruption.requested()) {
      int c = partial(code);
      int r = replicasShort(done, min);
      return c != ExitCode.OK ? c : r;
    }
    PrintWriter err = spec.commandLine().getErr();
    if (done.size() == 1 && failure != null) {
      throw failure; // one breaker: its error says it all
    }
    err.println(
        (failure == null ? "cancelled (" + Interruption.signal() + ")" : "error")
            + ": the change is partial: "
            + batch.count(Result.APPLIED)
            + " applied, "
            + batch.count(Result.UNCHANGED)
            + " unchanged, "
            + batch.count(Result.FAILED)
            + " failed, "
            + batch.count(Result.NOT_ATTEMPTED)
            + " not attempted of "
            + done.size()
            + " breaker(s); run the same command again to complete it");
    done.stream()
        .filter(v -> v.error() != null)
        .forEach(v -> err.println("error: " + v.id() + ": " + Printable.escape(v.error())));
    notRead(err);
    err.flush();
    if (failure == null) {
      return ExitCode.CANCELLED;
    }
    throw failure;
  }

  /**
   * The rows with where each change is: the replicas of its master that acknowledged it, asked once
   * per master after the batch ({@link FleetStore#replicaAcks}). Only rows this command wrote are
   * asked: an unchanged breaker was not written (its replicas are not this command's to count), and
   * a row whose answer was read back lost the connection that wrote it.
   */
  private static List<OverrideView> replication(List<OverrideView> rows, FleetStore store) {
    List<BreakerId> written = new ArrayList<>();
    for (OverrideView v : rows) {
      if (written(v)) {
        written.add(BreakerId.parse(v.id()));
      }
    }
    if (written.isEmpty()) {
      return rows;
    }
    Map<BreakerId, CompletableFuture<ReplicaAcks>> acks = store.replicaAcks(written);
    List<OverrideView> out = new ArrayList<>(rows.size());
    for (OverrideView v : rows) {
      CompletableFuture<ReplicaAcks> a = written(v) ? acks.get(BreakerId.parse(v.id())) : null;
      out.add(a == null ? v : v.with(ReplicationView.of(a.join())));
    }
    return out;
  }

  private static boolean written(OverrideView v) {
    return Result.APPLIED.code().equals(v.result()) && v.readBack() == null;
  }

  /**
   * {@link ExitCode#FEW_REPLICAS} when a change reached fewer than {@code min} replicas (the worst
   * decides), saying so on stderr: the override is set on the master; else {@link ExitCode#OK}.
   */
  private int replicasShort(List<OverrideView> rows, int min) {
    if (min == 0) {
      return ExitCode.OK;
    }
    List<OverrideView> few =
        rows.stream()
            .filter(v -> v.replication() != null && v.replication().fewerThan(min))
            .toList();
    if (few.isEmpty()) {
      return ExitCode.OK;
    }
    OverrideView worst =
        Collections.min(
            few, Comparator.comparing(OverrideView::replication, ReplicationView.FEWEST));
    PrintWriter err = spec.commandLine().getErr();
    err.println(
        "error: fewer than "
            + min
            + " replica(s) acknowledged the change of "
            + few.size()
            + " breaker(s) (--min-replicas "
            + min
            + "); the change IS set, "
            + worst.replication().where()
            + (few.size() > 1 ? " at worst (" + worst.id() + ")" : " (" + worst.id() + ")")
            + ", and a failover to a replica that missed it would lose it: check the replicas"
            + " (breakerctl doctor) before relying on it");
    err.flush();
    return ExitCode.FEW_REPLICAS;
  }

  private List<BreakerId> select(
      BreakerSelector selector, ServiceFactory services, FleetStore store) {
    BreakerId exact = selector.exactId();
    if (exact != null) {
      return List.of(exact);
    }
    TreeSet<BreakerId> found = new TreeSet<>();
    fleet = store.fleet(services.settings().timeout(), 1000);
    fleet.ids(selector, found::add);
    if (!fleet.missing().isEmpty()) {
      if (found.isEmpty()) {
        throw new StoreUnavailableException(
            StatusCommand.partial(fleet.missing()).substring("error: ".length())
                + "; no breaker found matches "
                + selector.describe(),
            null);
      }
      PrintWriter err = spec.commandLine().getErr();
      err.println(
          "warning: part of the keyspace could not be read: only the "
              + found.size()
              + " breaker(s) found are changed (the command exits 6 naming what was not read)");
      err.flush();
    }
    if (found.isEmpty()) {
      throw CliException.notFound("no breaker matches " + selector.describe());
    }
    return List.copyOf(found);
  }

  /**
   * {@code code}, or after a glob that could not read part of the keyspace, 6 with the error naming
   * what was not read (the breakers it did read are changed and listed).
   */
  private int partial(int code) {
    if (fleet == null || fleet.missing().isEmpty() || code != ExitCode.OK) {
      return code;
    }
    notRead(spec.commandLine().getErr());
    return ExitCode.UNAVAILABLE;
  }

  /** After a glob that could not read part of the keyspace, the error naming what it missed. */
  private void notRead(PrintWriter err) {
    if (fleet != null && !fleet.missing().isEmpty()) {
      err.println(StatusCommand.partial(fleet.missing()));
      err.flush();
    }
  }

  /** The plan's rows: what the request would do, from one read, nothing written. */
  private List<OverrideView> dryRun(OverridePlan plan, FleetStore store) {
    List<OverrideView> rows = new ArrayList<>();
    for (OverridePlan.Entry e : plan.entries()) {
      Decision d = e.decision();
      if (d == Decision.WOULD_FAIL) {
        rows.add(
            new OverrideView(
                e.id().toString(),
                "-",
                "-",
                d.name(),
                null,
                "",
                false,
                true,
                null,
                "key " + store.location(e.id()) + ": " + e.snapshot().problem().get(),
                null,
                null));
        continue;
      }
      State before = e.snapshot().effectiveState();
      String after =
          switch (d) {
            case WOULD_CLEAR -> "(machine state)";
            case NOT_OVERRIDDEN -> before.code();
            default -> kind().state().code();
          };
      rows.add(
          new OverrideView(
              e.id().toString(),
              before.code(),
              after,
              d.name(),
              e.untilMillis() > 0 ? Style.rfc3339(e.untilMillis()) : null,
              "",
              false,
              true,
              null,
              null,
              null,
              null));
    }
    return rows;
  }

  /**
   * After the table, where the changes are: {@code replicated: on the master and 2/2 replicas}; of
   * several written, the one with the fewest replicas ({@code at worst}).
   */
  private static void replicationLine(List<OverrideView> views, PrintWriter out) {
    List<ReplicationView> r =
        views.stream().map(OverrideView::replication).filter(x -> x != null).toList();
    if (r.isEmpty()) {
      return;
    }
    ReplicationView worst = Collections.min(r, ReplicationView.FEWEST);
    boolean same = r.stream().allMatch(worst::equals);
    out.println(
        "replicated: "
            + worst.where()
            + (r.size() == 1 ? "" : same ? " (each of " + r.size() + ")" : " (at worst)"));
  }

  private String describeChange() {
    String what = kind() == OverrideKind.CLEAR ? "Clear the override" : "Force " + kind();
    return what
        + (duration().isZero() || kind() == OverrideKind.CLEAR
            ? ""
            : " for " + Durations.format(duration()))
        + " (reason: "
        + reason
        + ")";
  }

  private int print(List<OverrideView> views, Style style) {
    PrintWriter out = spec.commandLine().getOut();
    OutputFormat format = output.format();
    if (format.isTable()) {
      Table t = new Table("ID", "BEFORE", "AFTER", "OUTCOME", "UNTIL", "CORRELATION", "REPLICAS");
      t.stateColumn(2).flexible(5);
      long now = style.clock().millis();
      for (OverrideView v : views) {
        State after =
            v.state().startsWith("(") || v.state().equals("-") ? null : State.fromCode(v.state());
        t.row(
            after,
            v.id(),
            v.previous(),
            v.state(),
            v.outcome() + (v.dryRun() ? " (dry run)" : ""),
            v.until() == null ? "-" : style.time(Instant.parse(v.until()).toEpochMilli(), now),
            v.correlationId().isEmpty() ? "-" : v.correlationId(),
            v.replication() == null ? "-" : v.replication().cell());
      }
      t.print(out, style, output.headers());
      replicationLine(views, out);
    } else {
      try (Documents.ListWriter w = Documents.list(format, "OverrideList", out)) {
        views.forEach(v -> w.item(v, v.id()));
      }
    }
    PrintWriter err = spec.commandLine().getErr();
    if (views.stream().anyMatch(v -> v.outcome().equals("WOULD_FAIL"))) {
      views.stream()
          .filter(v -> v.error() != null)
          .forEach(v -> err.println("error: would fail: " + Printable.escape(v.error())));
      err.flush();
      return ExitCode.CONFLICT;
    }
    if (views.stream().allMatch(v -> v.outcome().equals("NOT_OVERRIDDEN"))) {
      err.println("error: not overridden: there is no override to clear");
      err.flush();
      return ExitCode.CONFLICT;
    }
    return ExitCode.OK;
  }
}
