package io.breakerctl.cli.commands;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.breakerctl.cli.CliContext;
import io.breakerctl.cli.CliException;
import io.breakerctl.cli.ExitCode;
import io.breakerctl.cli.output.Documents;
import io.breakerctl.cli.output.OutputFormat;
import io.breakerctl.cli.output.OutputOptions;
import io.breakerctl.cli.output.Printable;
import io.breakerctl.runtime.control.policy.PolicyDocument;
import io.breakerctl.runtime.control.policy.PolicyParser;
import io.breakerctl.runtime.control.policy.PolicyProblem;
import io.breakerctl.runtime.control.policy.PolicySet;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code breakerctl policy validate FILE|DIR...}: the offline lint step; with {@code --fleet} (or
 * {@code --strict}) also the check against the live nodes' accepted fallbacks.
 */
@Command(
    name = "validate",
    description = {
      "Validate policy files offline (never connects, unless --fleet): every problem with its file, document,"
          + " field path and bad value, on stderr; exit 2 on any.",
      "A directory contributes its *.yaml, *.yml and *.json files, recursively.",
      "--fleet also reads the live nodes' reports from Redis: a warning on stderr for each node"
          + " whose call sites do not accept the fallbackPolicy a valid policy names (breaker,"
          + " node, what it accepts); --strict makes that exit 2."
    })
public final class PolicyValidateCommand implements Callable<Integer> {

  /** One valid document. */
  @JsonPropertyOrder({"source", "document", "id"})
  public record DocumentView(String source, int document, String id) {}

  /** The result ({@code kind: PolicyValidation}). */
  @JsonPropertyOrder({"valid", "documents", "problems"})
  public record ValidationView(
      boolean valid, List<DocumentView> documents, List<PolicyProblem> problems) {}

  @Spec CommandSpec spec;

  @Parameters(arity = "1..*", paramLabel = "FILE|DIR", description = "Policy files or directories.")
  List<Path> paths;

  @Option(
      names = "--fleet",
      description =
          "Also check the policies against the live nodes (Redis, read-only): warn when a node's"
              + " call sites do not accept the fallbackPolicy a policy names.")
  boolean fleet;

  @Option(
      names = "--strict",
      description =
          "Exit 2 when a live node's call sites refuse the fallbackPolicy a policy names (exit 6"
              + " when part of the fleet cannot be read); implies --fleet.")
  boolean strict;

  @Mixin OutputOptions output;

  @Override
  public Integer call() {
    PolicySet set = PolicyParser.read(paths, CliContext.of(spec).env().clock().instant());
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    OutputFormat format = output.format();
    if (format.isTable()) {
      for (PolicyDocument d : set.documents()) {
        out.println(
            Printable.escape("ok: " + d.source() + ": document " + d.document() + ": " + d.id()));
      }
      out.flush();
    } else {
      Documents.single(
          format,
          "PolicyValidation",
          new ValidationView(
              set.isValid(),
              set.documents().stream()
                  .map(d -> new DocumentView(d.source(), d.document(), d.id().toString()))
                  .toList(),
              set.problems()),
          out);
    }
    for (PolicyProblem p : set.problems()) {
      err.println("error: " + Printable.escape(p.toString()));
    }
    if (!set.isValid()) {
      err.println(
          set.problems().size()
              + " problem"
              + (set.problems().size() == 1 ? "" : "s")
              + " in "
              + paths.size()
              + " path(s)");
    }
    err.flush();
    if (set.isValid() && (fleet || strict)) {
      PolicyAcceptance.check(
          CliContext.of(spec), set.documents(), Set.of(), strict, err, "the files are refused");
    }
    return set.isValid() ? ExitCode.OK : ExitCode.USAGE;
  }

  /** Reads and validates; exit 2 listing every problem when any (nothing connected or written). */
  static PolicySet readValid(List<Path> paths, java.time.Instant now, PrintWriter err) {
    PolicySet set = PolicyParser.read(paths, now);
    if (!set.isValid()) {
      for (PolicyProblem p : set.problems()) {
        err.println("error: " + Printable.escape(p.toString()));
      }
      err.flush();
      throw CliException.usage(
          set.problems().size()
              + " problem(s) in the policy files: nothing was applied (run 'breakerctl policy"
              + " validate' to lint them)");
    }
    return set;
  }
}
