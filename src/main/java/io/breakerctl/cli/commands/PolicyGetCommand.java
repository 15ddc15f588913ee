package io.breakerctl.cli.commands;

import io.breakerctl.cli.CliContext;
import io.breakerctl.cli.CliException;
import io.breakerctl.cli.output.Documents;
import io.breakerctl.cli.output.OutputFormat;
import io.breakerctl.cli.output.OutputOptions;
import io.breakerctl.cli.output.PolicyViews;
import io.breakerctl.cli.output.Printable;
import io.breakerctl.runtime.control.policy.PolicyId;
import io.breakerctl.runtime.control.policy.PolicyStore;
import io.breakerctl.runtime.control.policy.PolicyVersion;
import java.io.PrintWriter;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code breakerctl policy get ID}: one policy version, as a document that can be re-applied. */
@Command(
    name = "get",
    description = {
      "Show the version of a policy in force (or --revision N): metadata, spec and a read-only"
          + " status (version, author, reason, approver, origin, times). -o yaml prints a document that"
          + " 'policy apply' accepts again (status is ignored). Unknown policy or version, or a"
          + " deleted policy (apply --prune): exit 7; --revision N still shows its versions."
    })
public final class PolicyGetCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Parameters(
      paramLabel = "ID",
      description = "A policy id: caller:dependency[:scope], caller:* or *:*.")
  String id;

  @Option(
      names = "--revision",
      converter = io.breakerctl.cli.PolicyVersionNumbers.class,
      paramLabel = "N",
      description = "Version N instead of the one in force.")
  Long version;

  @Mixin OutputOptions output;

  @Override
  public Integer call() {
    PolicyId pid = PolicyCommand.policyId(id);
    CliContext root = CliContext.of(spec);
    PolicyStore store = root.services().policies(false).store();
    Optional<PolicyVersion> inForce = store.inForce(pid, root.env().clock().instant());
    PolicyVersion v;
    if (version != null) {
      v =
          store
              .version(pid, version)
              .orElseThrow(
                  () -> CliException.notFound("policy " + pid + " has no version " + version));
    } else {
      v = inForce.orElseThrow(() -> CliException.notFound(noneInForce(pid, store)));
    }
    PolicyViews.PolicyView view = PolicyViews.of(v, inForce);
    PrintWriter out = spec.commandLine().getOut();
    OutputFormat format = output.format();
    if (format == OutputFormat.NAME) {
      out.println(pid);
    } else if (!format.isTable()) {
      Documents.single(format, "Policy", view, out);
    } else {
      PolicyViews.Status s = view.status();
      line(
          out,
          "Policy",
          pid
              + " v"
              + s.version()
              + (s.inForce() ? " (in force)" : "")
              + (s.deleted() ? " (deleted: the spec it removed)" : ""));
      line(out, "Owner", view.metadata().owner().isEmpty() ? "-" : view.metadata().owner());
      if (!view.metadata().labels().isEmpty()) {
        line(out, "Labels", view.metadata().labels().toString());
      }
      line(out, "Created", s.createdAt() + " by " + s.author());
      line(out, "Reason", PolicyViews.cause(v));
      line(out, "Approved by", s.approvedBy().isEmpty() ? "-" : s.approvedBy());
      line(out, "Origin", s.origin());
      if (s.expiresAt() != null) {
        line(out, "Expires", s.expiresAt());
      }
      out.println("Spec:");
      for (Map.Entry<String, Object> e : view.spec().entrySet()) {
        out.println("  " + e.getKey() + ": " + (e.getValue() == null ? "(none)" : e.getValue()));
      }
    }
    out.flush();
    return 0;
  }

  /** Why a policy has no version in force: unknown, deleted, or every version expired. */
  static String noneInForce(PolicyId pid, PolicyStore store) {
    Optional<PolicyVersion> latest = store.latest(pid);
    if (latest.isEmpty()) {
      return "no policy " + pid;
    }
    PolicyVersion v = latest.get();
    if (v.deleted()) {
      return "policy "
          + pid
          + " was deleted at v"
          + v.version()
          + " by "
          + v.author()
          + " ("
          + v.reason()
          + "); 'breakerctl policy history "
          + pid
          + "' lists its versions, 'breakerctl policy rollback "
          + pid
          + " --to V' brings one back";
    }
    return "policy " + pid + " has no version in force (every version expired)";
  }

  private static void line(PrintWriter out, String key, String value) {
    out.println(String.format("%-12s %s", key + ":", Printable.escape(value)));
  }
}
