package io.breakerctl.cli.commands;

import io.breakerctl.cli.CliContext;
import io.breakerctl.cli.Confirmation;
import io.breakerctl.cli.ExitCode;
import io.breakerctl.cli.MutationOptions;
import io.breakerctl.cli.WriteAccess;
import io.breakerctl.cli.output.Documents;
import io.breakerctl.cli.output.OutputFormat;
import io.breakerctl.cli.output.OutputOptions;
import io.breakerctl.cli.output.Printable;
import io.breakerctl.cli.output.ReplayViews;
import io.breakerctl.cli.output.ReplayViews.RestorePlanView;
import io.breakerctl.cli.output.ReplayViews.RestoreView;
import io.breakerctl.runtime.control.BreakerPattern;
import io.breakerctl.runtime.control.replay.BreakerRestore;
import io.breakerctl.runtime.control.replay.RestoreAction;
import io.breakerctl.runtime.control.replay.RestoreItem;
import io.breakerctl.runtime.control.replay.RestorePlan;
import io.breakerctl.runtime.model.OperatorText;
import io.breakerctl.runtime.store.WriteOutcome;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code breakerctl replay restore [PATTERN]}: rebuild lost Redis keys from history. */
@Command(
    name = "restore",
    description = {
      "Rebuild breakers' Redis keys from MongoDB after Redis lost its data (FLUSHALL, a failover"
          + " to an empty replica): the state, the open window, live overrides with their"
          + " remaining expiry and the policy version in force, under a new epoch, each audited.",
      "Shows the plan (RESTORE, INTACT, ALREADY_RESTORED, MOVED_ON: keys that moved on are never"
          + " set back, NOT_NEEDED), then asks on a terminal or takes --yes; --dry-run shows the"
          + " plan only. Running it twice changes nothing the second time. Exit 6 when a breaker"
          + " failed (the others proceeded; run it again).",
      "Only the deployment's own history: the Redis's identity (key <prefix>:deployment, or the"
          + " deployment it was reached at before when its data is lost) selects it. A Redis that"
          + " is no deployment on record, while others are, is refused (exit 3) with those listed;"
          + " --from-deployment restores one of them into it deliberately."
    })
public final class ReplayRestoreCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Parameters(
      arity = "0..1",
      paramLabel = "PATTERN",
      description = "A breaker id or a glob on ids (default: every breaker in history).")
  String pattern;

  @Option(
      names = "--reason",
      paramLabel = "TEXT",
      defaultValue = "restore after Redis data loss",
      description = "Why, in each audit record (default: ${DEFAULT-VALUE}).")
  String reason;

  @Option(
      names = "--from-deployment",
      paramLabel = "ID",
      description =
          "Restore the history of deployment ID (d-...; the refusal lists those on record) into"
              + " this Redis though it is another deployment or none yet: a new deployment,"
              + " deliberately. Unknown ID: exit 7.")
  String fromDeployment;

  @Mixin MutationOptions mutation;

  @Mixin OutputOptions output;

  @Override
  public Integer call() throws IOException {
    CliContext root = CliContext.of(spec);
    Confirmation.checkText("--reason", reason, OperatorText.MAX_REASON_BYTES);
    String actor = WriteAccess.actor(root);
    BreakerPattern p = ReplayCommand.pattern(pattern);
    BreakerRestore restore =
        new BreakerRestore(root.services().control(), root.services().redis(), root.env().clock());
    if (fromDeployment != null) {
      Confirmation.checkText("--from-deployment", fromDeployment, 64);
      restore = restore.from(fromDeployment);
    }
    RestorePlan plan = restore.plan(p);
    List<String> todo =
        plan.with(RestoreAction.RESTORE).stream().map(i -> i.id().toString()).toList();
    if (mutation.dryRun() || todo.isEmpty()) {
      print(plan);
      if (todo.isEmpty() && !mutation.dryRun()) {
        spec.commandLine().getErr().println("Nothing to restore.");
      }
      if (todo.isEmpty() && !plan.source().others().isEmpty()) {
        spec.commandLine()
            .getErr()
            .println(
                "hint: history of other deployments of this prefix is not restored here ("
                    + String.join(
                        "; ",
                        plan.source().others().stream()
                            .map(d -> Printable.escape(d.describe()))
                            .toList())
                    + "); --from-deployment ID restores one of them into this Redis");
      }
      spec.commandLine().getErr().flush();
      return ExitCode.OK;
    }
    if (output.format().isTable()) {
      print(plan); // machine formats get the report only: one document
    }
    WriteAccess.require(
        root,
        "replay restore",
        plan.with(RestoreAction.RESTORE).stream().map(i -> i.id()).toList());
    Confirmation.confirm(
        root,
        mutation.yes(),
        spec.commandLine().getErr(),
        "Restore from history (reason: " + reason + ")",
        "breaker(s)",
        todo);
    RestorePlan done = restore.restore(p, actor, reason);
    print(done);
    PrintWriter err = spec.commandLine().getErr();
    done.with(RestoreAction.RESTORED).stream()
        .filter(i -> i.readBack().isPresent())
        .forEach(i -> err.println("note: " + i.id() + ": " + Printable.escape(i.detail())));
    List<RestoreItem> failed = done.with(RestoreAction.FAILED);
    if (failed.isEmpty()) {
      err.flush();
      return ExitCode.OK;
    }
    failed.forEach(i -> err.println("error: " + i.id() + ": " + Printable.escape(i.detail())));
    failed.stream()
        .filter(i -> i.readBack().equals(Optional.of(WriteOutcome.UNKNOWN)))
        .forEach(
            i ->
                err.println(
                    "hint: whether it landed shows in 'breakerctl history "
                        + i.id()
                        + "' or 'breakerctl describe "
                        + i.id()
                        + "' (a RESTORED event with correlation id "
                        + done.correlationId()
                        + ":"
                        + i.id()
                        + "); check before running it again"));
    err.println("error: " + failed.size() + " breaker(s) not restored; run the same command again");
    err.flush();
    // known not written (read back, or never sent after that) is a plain failure; 6 is for a
    // Redis that did not answer, the outcome then unknown
    boolean notWritten =
        failed.stream().allMatch(i -> i.readBack().equals(Optional.of(WriteOutcome.NOT_APPLIED)));
    return notWritten ? ExitCode.CHECK_FAILED : ExitCode.UNAVAILABLE;
  }

  private void print(RestorePlan plan) {
    PrintWriter out = spec.commandLine().getOut();
    OutputFormat format = output.format();
    List<RestoreView> items = plan.items().stream().map(ReplayViews::of).toList();
    if (format.isTable()) {
      out.println(
          "From "
              + plan.source()
                  .deployment()
                  .map(d -> "deployment " + Printable.escape(d))
                  .orElse("history")
              + " ("
              + Printable.escape(plan.source().basis())
              + ")");
      out.println(plan.dryRun() ? "Plan (nothing written yet):" : "Restored:");
      if (items.isEmpty()) {
        out.println("No breakers in history.");
      } else {
        ReplayViews.restore(items).print(out, CliContext.of(spec).style(), output.headers());
      }
    } else if (format == OutputFormat.NAME) {
      items.forEach(i -> out.println(Printable.escape(i.id())));
    } else {
      Documents.single(
          format,
          "RestorePlan",
          new RestorePlanView(
              plan.dryRun(),
              plan.correlationId(),
              plan.source().deployment().orElse(null),
              plan.source().into().orElse(null),
              items),
          out);
    }
    out.flush();
  }
}
