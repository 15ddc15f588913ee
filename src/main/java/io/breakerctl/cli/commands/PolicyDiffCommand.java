package io.breakerctl.cli.commands;

import io.breakerctl.cli.CliContext;
import io.breakerctl.cli.CliException;
import io.breakerctl.cli.ExitCode;
import io.breakerctl.cli.output.Documents;
import io.breakerctl.cli.output.OutputFormat;
import io.breakerctl.cli.output.OutputOptions;
import io.breakerctl.cli.output.PolicyViews;
import io.breakerctl.cli.output.PolicyViews.PolicyDiff;
import io.breakerctl.runtime.control.policy.PolicyControl;
import io.breakerctl.runtime.control.policy.PolicyDocument;
import io.breakerctl.runtime.control.policy.PolicyId;
import io.breakerctl.runtime.control.policy.PolicySet;
import io.breakerctl.runtime.control.policy.PolicySpec;
import io.breakerctl.runtime.control.policy.PolicyVersion;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code breakerctl policy diff ID (--from V --to V | -f FILE)}. */
@Command(
    name = "diff",
    description = {
      "The spec fields that differ between two versions of a policy (--from V --to V), or between"
          + " the version in force and the policy's document in files (-f). Exit 0 when equal, 1"
          + " when something differs (a CI check), 7 when the policy or a version does not exist."
    })
public final class PolicyDiffCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Parameters(paramLabel = "ID", description = "A policy id.")
  String id;

  @Option(
      names = "--from",
      converter = io.breakerctl.cli.PolicyVersionNumbers.class,
      paramLabel = "V",
      description = "The older version.")
  Long from;

  @Option(
      names = "--to",
      converter = io.breakerctl.cli.PolicyVersionNumbers.class,
      paramLabel = "V",
      description = "The newer version.")
  Long to;

  @Option(
      names = {"-f", "--filename"},
      paramLabel = "FILE|DIR",
      description = "Files holding the policy's document (validated first: exit 2 on a problem).")
  List<Path> paths;

  @Mixin OutputOptions output;

  @Override
  public Integer call() {
    PolicyId pid = PolicyCommand.policyId(id);
    boolean versions = from != null || to != null;
    if (versions == (paths != null)) {
      throw CliException.usage("give either --from V --to V, or -f FILE");
    }
    if (versions && (from == null || to == null)) {
      throw CliException.usage("--from and --to go together");
    }
    PolicyDocument doc = null;
    if (!versions) {
      PolicySet set =
          PolicyValidateCommand.readValid(
              paths, CliContext.of(spec).env().clock().instant(), spec.commandLine().getErr());
      doc =
          set.documents().stream()
              .filter(d -> d.id().equals(pid))
              .findFirst()
              .orElseThrow(
                  () -> CliException.notFound("no document for policy " + pid + " in the files"));
    }
    CliContext root = CliContext.of(spec);
    PolicyControl control = root.services().policies(false);
    PolicyDiff diff;
    if (versions) {
      require(control, pid, from);
      require(control, pid, to);
      List<PolicySpec.FieldChange> changes = control.diff(pid, from, to);
      diff =
          new PolicyDiff(
              pid.toString(),
              "v" + from,
              "v" + to,
              !changes.isEmpty(),
              PolicyViews.changes(changes));
    } else {
      Optional<PolicyVersion> inForce = control.store().inForce(pid, root.env().clock().instant());
      List<PolicySpec.FieldChange> changes = control.diff(doc);
      diff =
          new PolicyDiff(
              pid.toString(),
              inForce.map(v -> "v" + v.version()).orElse("(none)"),
              PolicyChangeRows.source(doc),
              !changes.isEmpty(),
              PolicyViews.changes(changes));
    }
    PrintWriter out = spec.commandLine().getOut();
    OutputFormat format = output.format();
    if (format.isTable()) {
      out.println(
          "policy "
              + diff.policyId()
              + ": "
              + diff.from()
              + " -> "
              + diff.to()
              + (diff.differs() ? "" : ": no difference"));
      PolicyPrinter.fields(diff.changes(), out);
      out.flush();
    } else {
      Documents.single(format, "PolicyDiff", diff, out);
    }
    return diff.differs() ? ExitCode.CHECK_FAILED : ExitCode.OK;
  }

  private static void require(PolicyControl control, PolicyId id, long v) {
    if (control.store().version(id, v).isEmpty()) {
      throw CliException.notFound("policy " + id + " has no version " + v);
    }
  }
}
