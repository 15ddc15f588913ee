package io.breakerctl.cli.commands;

import io.breakerctl.cli.CliContext;
import io.breakerctl.cli.CliException;
import io.breakerctl.cli.output.Documents;
import io.breakerctl.cli.output.OutputFormat;
import io.breakerctl.cli.output.OutputOptions;
import io.breakerctl.cli.output.PolicyViews;
import io.breakerctl.cli.output.Table;
import io.breakerctl.runtime.control.policy.PolicyId;
import io.breakerctl.runtime.control.policy.PolicyStore;
import io.breakerctl.runtime.control.policy.PolicyVersion;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code breakerctl policy history ID}: every version with its change cause. */
@Command(
    name = "history",
    description = {
      "Every version of a policy, oldest first: version, time, author, approver, origin"
          + " (ci:COMMIT for a CI rollout, hand, rollback:vN, revert:vN, unknown before origins"
          + " were recorded) and change cause (the reason; rollbacks, reverts of expired"
          + " temporary versions and deletions by apply --prune are named)."
          + " Unknown policy: exit 7."
    })
public final class PolicyHistoryCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Parameters(paramLabel = "ID", description = "A policy id.")
  String id;

  @Mixin OutputOptions output;

  @Override
  public Integer call() {
    PolicyId pid = PolicyCommand.policyId(id);
    CliContext root = CliContext.of(spec);
    PolicyStore store = root.services().policies(false).store();
    List<PolicyVersion> versions = store.versions(pid);
    if (versions.isEmpty()) {
      throw CliException.notFound("no policy " + pid);
    }
    Instant now = root.env().clock().instant();
    Optional<PolicyVersion> inForce = store.inForce(pid, now);
    PrintWriter out = spec.commandLine().getOut();
    OutputFormat format = output.format();
    if (format.isTable()) {
      Table t =
          new Table(
              "VERSION", "CREATED", "AUTHOR", "APPROVED-BY", "EXPIRES", "ORIGIN", "CHANGE-CAUSE");
      t.flexible(6);
      for (PolicyVersion v : versions) {
        boolean current = inForce.map(f -> f.version() == v.version()).orElse(false);
        t.row(
            null,
            v.version() + (current ? "*" : ""),
            root.style().time(v.createdAt().toEpochMilli(), now.toEpochMilli()),
            v.author(),
            v.approvedBy().isEmpty() ? "-" : v.approvedBy(),
            v.expiresAt()
                .map(e -> root.style().time(e.toEpochMilli(), now.toEpochMilli()))
                .orElse("-"),
            v.origin().toString(),
            PolicyViews.cause(v));
      }
      t.print(out, root.style(), output.headers());
    } else {
      try (Documents.ListWriter w = Documents.list(format, "PolicyVersionList", out)) {
        versions.forEach(v -> w.item(PolicyViews.of(v, inForce), pid + "@" + v.version()));
      }
    }
    out.flush();
    return 0;
  }
}
