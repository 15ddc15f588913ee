package io.breakerctl.cli.commands;

import io.breakerctl.cli.BreakerCtl;
import io.breakerctl.cli.BreakerSelector;
import io.breakerctl.cli.CliException;
import io.breakerctl.cli.Durations;
import io.breakerctl.cli.ExitCode;
import io.breakerctl.cli.FleetReader;
import io.breakerctl.cli.MutationOptions;
import io.breakerctl.cli.ServiceFactory;
import io.breakerctl.cli.output.Documents;
import io.breakerctl.cli.output.OutputFormat;
import io.breakerctl.cli.output.OutputOptions;
import io.breakerctl.cli.output.Style;
import io.breakerctl.cli.output.Table;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.OverrideAction;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.BreakerSnapshot;
import io.breakerctl.runtime.redis.OverrideKind;
import io.breakerctl.runtime.redis.OverrideRequest;
import io.breakerctl.runtime.redis.RedisBreakerStore;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
      description = "A breaker id (need not exist yet) or a glob on existing ids.")
  String target;

  @Option(names = "--caller", paramLabel = "GLOB", description = "Every breaker of callers.")
  String caller;

  @Option(
      names = "--dependency",
      paramLabel = "GLOB",
      description = "Every breaker of dependencies.")
  String dependency;

  @Option(names = "--reason", required = true, paramLabel = "TEXT", description = "Why.")
  String reason;

  @Mixin MutationOptions mutation;

  @Mixin OutputOptions output;

  abstract OverrideKind kind();

  Duration duration() {
    return Duration.ZERO;
  }

  @Override
  public Integer call() throws IOException {
    if (target == null && caller == null && dependency == null) {
      throw CliException.usage("name a breaker id or a glob, or give --caller or --dependency");
    }
    BreakerSelector selector = new BreakerSelector(target, caller, dependency);
    BreakerCtl root = BreakerCtl.of(spec);
    ServiceFactory services = root.services();
    OverrideRequest request =
        new OverrideRequest(kind(), root.env().user(), reason, duration(), "");
    RedisBreakerStore store = services.redis();
    List<BreakerId> ids = select(selector, services, store);
    List<BreakerSnapshot> current = new ArrayList<>();
    List<CompletableFuture<BreakerSnapshot>> reads = new ArrayList<>();
    ids.forEach(id -> reads.add(store.snapshot(id, 0)));
    reads.forEach(f -> current.add(RedisBreakerStore.await(f)));
    if (mutation.dryRun()) {
      return print(dryRun(current), root.style());
    }
    confirm(root, ids);
    List<ForceCommand.OverrideView> done = new ArrayList<>();
    ControlDatabase control = services.control();
    ControlDatabase shortControl = null;
    try {
      for (BreakerId id : ids) {
        OverrideAction a =
            services.overrides(shortControl != null ? shortControl : control).apply(id, request);
        if (a.result().changed() && !a.auditStored()) {
          warnAudit(a, shortControl == null);
          if (shortControl == null) {
            shortControl = services.control(Duration.ofMillis(200));
          }
        }
        done.add(
            new ForceCommand.OverrideView(
                id.toString(),
                a.result().previous().code(),
                a.result().state().code(),
                a.result().outcome(),
                until(),
                a.correlationId(),
                a.auditStored(),
                false));
      }
    } finally {
      if (shortControl != null) {
        shortControl.close();
      }
    }
    return print(done, root.style());
  }

  private List<BreakerId> select(
      BreakerSelector selector, ServiceFactory services, RedisBreakerStore store) {
    BreakerId exact = selector.exactId();
    if (exact != null) {
      return List.of(exact);
    }
    TreeSet<BreakerId> found = new TreeSet<>();
    new FleetReader(store, services.settings().timeout(), 1000).ids(selector, found::add);
    if (found.isEmpty()) {
      throw CliException.notFound("no breaker matches " + selector.describe());
    }
    return List.copyOf(found);
  }

  private List<ForceCommand.OverrideView> dryRun(List<BreakerSnapshot> current) {
    List<ForceCommand.OverrideView> plan = new ArrayList<>();
    for (BreakerSnapshot s : current) {
      State before = s.effectiveState();
      boolean rejected = kind() == OverrideKind.CLEAR && !before.isOverride();
      String after =
          kind() == OverrideKind.CLEAR
              ? rejected ? before.code() : "(machine state)"
              : kind().state().code();
      String outcome =
          rejected
              ? "NOT_OVERRIDDEN"
              : kind() == OverrideKind.CLEAR
                  ? "WOULD_CLEAR"
                  : before == kind().state() ? "WOULD_UPDATE" : "WOULD_SET";
      plan.add(
          new ForceCommand.OverrideView(
              s.id().toString(), before.code(), after, outcome, until(), "", false, true));
    }
    return plan;
  }

  private String until() {
    return duration().isZero() ? null : "in " + Durations.format(duration());
  }

  private void confirm(BreakerCtl root, List<BreakerId> ids) throws IOException {
    if (mutation.yes()) {
      return;
    }
    if (!root.env().interactive()) {
      throw CliException.usage(
          "refusing to change "
              + ids.size()
              + " breaker(s) without confirmation: stdin or stdout is not a terminal; pass"
              + " --yes (or --dry-run to see the change)");
    }
    PrintWriter err = spec.commandLine().getErr();
    err.println(describeChange() + " on " + ids.size() + " breaker(s):");
    ids.stream().limit(50).forEach(id -> err.println("  " + id));
    if (ids.size() > 50) {
      err.println("  ... and " + (ids.size() - 50) + " more");
    }
    err.print("Continue? [y/N] ");
    err.flush();
    String answer = root.env().stdin().readLine();
    if (answer == null || !(answer.trim().equalsIgnoreCase("y") || answer.trim().equals("yes"))) {
      throw CliException.cancelled("cancelled: nothing was changed");
    }
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

  private void warnAudit(OverrideAction a, boolean first) {
    PrintWriter err = spec.commandLine().getErr();
    if (first) {
      err.println(
          "warning: the override is applied, but its audit record could not be stored in"
              + " MongoDB ("
              + a.auditError()
              + "). The audit rides in the breaker's event stream until the fleet's history"
              + " forwarder stores it.");
    }
    err.println(
        "warning: audit pending in the event stream (correlation " + a.correlationId() + ")");
    err.flush();
  }

  private int print(List<ForceCommand.OverrideView> views, Style style) {
    PrintWriter out = spec.commandLine().getOut();
    OutputFormat format = output.format();
    if (format.isTable()) {
      Table t = new Table("ID", "BEFORE", "AFTER", "OUTCOME", "UNTIL", "CORRELATION");
      t.stateColumn(2).flexible(0, 5);
      for (ForceCommand.OverrideView v : views) {
        State after = v.state().startsWith("(") ? null : State.fromCode(v.state());
        t.row(
            after,
            v.id(),
            v.previous(),
            v.state(),
            v.outcome() + (v.dryRun() ? " (dry run)" : ""),
            v.until() == null ? "-" : v.until(),
            v.correlationId().isEmpty() ? "-" : v.correlationId());
      }
      t.print(out, style, output.headers());
    } else {
      try (Documents.ListWriter w = Documents.list(format, "OverrideList", out)) {
        views.forEach(v -> w.item(v, v.id()));
      }
    }
    boolean rejected = views.stream().anyMatch(v -> v.outcome().equals("NOT_OVERRIDDEN"));
    if (rejected) {
      spec.commandLine()
          .getErr()
          .println("error: not overridden: there is no override to clear on some breakers");
      spec.commandLine().getErr().flush();
      return ExitCode.CONFLICT;
    }
    return ExitCode.OK;
  }
}
