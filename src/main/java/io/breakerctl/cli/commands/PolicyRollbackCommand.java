package io.breakerctl.cli.commands;

import io.breakerctl.cli.CliContext;
import io.breakerctl.cli.CliException;
import io.breakerctl.cli.Confirmation;
import io.breakerctl.cli.ExitCode;
import io.breakerctl.cli.MutationOptions;
import io.breakerctl.cli.WriteAccess;
import io.breakerctl.cli.output.OutputOptions;
import io.breakerctl.cli.output.PolicyViews;
import io.breakerctl.runtime.control.policy.ApplyOptions;
import io.breakerctl.runtime.control.policy.ApplyResult;
import io.breakerctl.runtime.control.policy.PolicyControl;
import io.breakerctl.runtime.control.policy.PolicyId;
import io.breakerctl.runtime.control.policy.PolicyPreview;
import io.breakerctl.runtime.control.policy.PolicyVersion;
import io.breakerctl.runtime.model.OperatorText;
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

/** {@code breakerctl policy rollback ID --to V}: a new version with an old spec. */
@Command(
    name = "rollback",
    description = {
      "Roll a policy back: a new version whose spec is version V's, recorded with actor, reason"
          + " and correlation id, and warmed into Redis (running nodes adopt it without restart)."
          + " Already in force: unchanged, no version. --dry-run shows the diff. A policy deleted"
          + " by apply --prune comes back this way (V: a version before its deletion).",
      "Exit 3 when the policy moved between the diff and the write; 7 when it or V does not exist.",
      "The version's origin is rollback:vV. A policy repository that scripts/ci-rollout applies"
          + " still holds the spec rolled back: after a rollback the next rollout refuses to apply"
          + " over it (exit 3) unless told to (CI_ROLLOUT_OVERRIDE_HUMAN=1), and stderr says so:"
          + " change the file in the repository to keep the rollback."
    })
public final class PolicyRollbackCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Parameters(paramLabel = "ID", description = "A policy id.")
  String id;

  @Option(
      names = "--to",
      converter = io.breakerctl.cli.PolicyVersionNumbers.class,
      required = true,
      paramLabel = "V",
      description = "The version to restore.")
  long to;

  @Option(
      names = "--reason",
      required = true,
      paramLabel = "TEXT",
      description = "Why; at most 1024 bytes, one line.")
  String reason;

  @Option(names = "--approved-by", paramLabel = "NAME", description = "Who approved the rollback.")
  String approvedBy;

  @Mixin MutationOptions mutation;

  @Mixin OutputOptions output;

  @Override
  public Integer call() throws IOException {
    PolicyId pid = PolicyCommand.policyId(id);
    CliContext root = CliContext.of(spec);
    Confirmation.checkText("--reason", reason, OperatorText.MAX_REASON_BYTES);
    if (approvedBy != null) {
      Confirmation.checkText("--approved-by", approvedBy, OperatorText.MAX_ACTOR_BYTES);
    }
    String actor = WriteAccess.actor(root);
    PolicyControl control = root.services().policies(!mutation.dryRun());
    if (control.store().version(pid, to).isEmpty()) {
      throw CliException.notFound(
          control.store().latest(pid).isPresent()
              ? "policy " + pid + " has no version " + to
              : "no policy " + pid);
    }
    if (control.store().version(pid, to).get().deleted()) {
      throw CliException.usage(
          "version "
              + to
              + " of policy "
              + pid
              + " is its deletion; roll back to a version before it");
    }
    PolicyPreview p = control.previewRollback(pid, to);
    String source = "rollback to v" + to;
    if (mutation.dryRun()) {
      PolicyPrinter.changes(
          output.format(),
          List.of(PolicyChangeRows.preview(source, p)),
          spec.commandLine().getOut());
      return ExitCode.OK;
    }
    if (p.changed()) {
      WriteAccess.require(root, "policy rollback of " + pid, control.governed(pid));
      Confirmation.confirm(
          root,
          mutation.yes(),
          spec.commandLine().getErr(),
          "Roll back to v" + to + " (reason: " + reason + ")",
          "policy",
          List.of(pid.toString()));
    }
    ApplyOptions o = ApplyOptions.by(actor, reason).expecting(p.latestVersion());
    if (approvedBy != null) {
      o = o.approvedBy(approvedBy);
    }
    ApplyResult r = control.rollback(pid, to, o);
    List<PolicyViews.PolicyChange> rows = List.of(PolicyChangeRows.result(source, r));
    PolicyPrinter.changes(output.format(), rows, spec.commandLine().getOut());
    if (r.outcome() == ApplyResult.Outcome.CREATED) {
      repositoryHint(r, spec.commandLine().getErr());
    }
    return PolicyChangeRows.warmCode(rows, spec.commandLine().getErr());
  }

  /** The rolled-back spec is still in the policy repository: say what CI will do, what to do. */
  static void repositoryHint(ApplyResult r, PrintWriter err) {
    Optional<PolicyVersion> replaced = r.previous();
    String holds =
        replaced
            .filter(v -> v.origin().isCi())
            .map(
                v ->
                    "the policy repository (commit "
                        + v.origin().detail()
                        + ") still holds the spec of v"
                        + v.version()
                        + " that this rollback replaced")
            .orElse("a policy repository that CI applies may still hold the spec rolled back");
    err.println(
        "note: "
            + holds
            + ". The next scripts/ci-rollout refuses to apply over v"
            + r.version().version()
            + " (exit 3) and applies it again only with CI_ROLLOUT_OVERRIDE_HUMAN=1. To keep"
            + " this rollback, change the file of "
            + r.policyId()
            + " in the repository to this spec ('breakerctl policy get "
            + r.policyId()
            + " -o yaml' prints it).");
    err.flush();
  }
}
