package io.breakerctl.cli.commands;

import io.breakerctl.cli.CliContext;
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
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code breakerctl policy list}: every policy's version in force. */
@Command(
    name = "list",
    description = {
      "List every policy with its version in force, owner, author, time and reason (a policy whose"
          + " every version expired shows its newest, not in force). Deleted policies (apply"
          + " --prune) are left out unless --deleted."
    })
public final class PolicyListCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--deleted",
      description = "Also list deleted policies (their deletion version, marked deleted).")
  boolean deleted;

  @Mixin OutputOptions output;

  @Override
  public Integer call() {
    CliContext root = CliContext.of(spec);
    PolicyStore store = root.services().policies(false).store();
    Instant now = root.env().clock().instant();
    Map<PolicyId, PolicyVersion> inForce = store.allInForce(now);
    Map<PolicyId, PolicyVersion> latest = store.allLatest();
    if (!deleted) {
      latest.values().removeIf(PolicyVersion::deleted);
    }
    PrintWriter out = spec.commandLine().getOut();
    OutputFormat format = output.format();
    if (format.isTable()) {
      Table t = new Table("ID", "VERSION", "OWNER", "AUTHOR", "CREATED", "EXPIRES", "REASON");
      t.flexible(6);
      for (PolicyId id : latest.keySet()) {
        PolicyVersion v = Optional.ofNullable(inForce.get(id)).orElse(latest.get(id));
        t.row(
            null,
            id.toString(),
            v.version()
                + (inForce.containsKey(id) ? "" : v.deleted() ? " (deleted)" : " (expired)"),
            v.owner().isEmpty() ? "-" : v.owner(),
            v.author(),
            root.style().time(v.createdAt().toEpochMilli(), now.toEpochMilli()),
            v.expiresAt()
                .map(e -> root.style().time(e.toEpochMilli(), now.toEpochMilli()))
                .orElse("-"),
            PolicyViews.cause(v));
      }
      if (latest.isEmpty()) {
        spec.commandLine().getErr().println("No policies found.");
        spec.commandLine().getErr().flush();
      } else {
        t.print(out, root.style(), output.headers());
      }
    } else {
      try (Documents.ListWriter w = Documents.list(format, "PolicyList", out)) {
        for (PolicyId id : latest.keySet()) {
          PolicyVersion v = Optional.ofNullable(inForce.get(id)).orElse(latest.get(id));
          w.item(PolicyViews.of(v, Optional.ofNullable(inForce.get(id))), id.toString());
        }
      }
    }
    out.flush();
    return 0;
  }
}
