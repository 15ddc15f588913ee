package io.breakerctl.cli.commands;

import io.breakerctl.cli.CliContext;
import io.breakerctl.cli.Confirmation;
import io.breakerctl.cli.ExitCode;
import io.breakerctl.cli.Times;
import io.breakerctl.cli.WriteAccess;
import io.breakerctl.cli.output.Documents;
import io.breakerctl.cli.output.OutputFormat;
import io.breakerctl.cli.output.OutputOptions;
import io.breakerctl.cli.output.Style;
import io.breakerctl.runtime.control.history.HistoryRetention;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code breakerctl history prune --before TIME}: retention by hand. */
@Command(
    name = "prune",
    description = {
      "Remove history, audit records, notes and gap records older than TIME from MongoDB, batch"
          + " by batch; each breaker's newest transition is kept (replay and restore need it)."
          + " Asks for confirmation on a terminal; otherwise --yes is required."
    })
public final class HistoryPruneCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--before",
      required = true,
      paramLabel = "TIME",
      description = "The cut-off: RFC 3339, or a duration ago (e.g. 90d).")
  String before;

  @Option(
      names = {"-y", "--yes"},
      description =
          "Do not ask for confirmation (required when stdin or stdout is not a terminal).")
  boolean yes;

  @Mixin OutputOptions output;

  @Override
  public Integer call() throws IOException {
    CliContext root = CliContext.of(spec);
    Instant cut = Times.parse("--before", before, root.env().clock());
    WriteAccess.requireAdmin(root, "history prune");
    Confirmation.confirm(
        root,
        yes,
        spec.commandLine().getErr(),
        "Remove everything older than " + Style.rfc3339(cut.toEpochMilli()),
        "collection(s)",
        List.of("history", "audit", "notes", "gaps", "snapshots", "deferred"));
    HistoryRetention.Pruned p = new HistoryRetention(root.services().control()).prune(cut);
    PrintWriter out = spec.commandLine().getOut();
    OutputFormat format = output.format();
    if (format.isTable()) {
      out.println(
          "removed "
              + p.history()
              + " transition(s), "
              + p.audit()
              + " audit record(s), "
              + p.notes()
              + " note(s), "
              + p.gaps()
              + " gap record(s), "
              + p.snapshots()
              + " fallback snapshot(s), "
              + p.deferred()
              + " deferred request(s); kept the newest transition of "
              + p.kept()
              + " breaker(s)");
      out.flush();
    } else {
      Documents.single(format, "PruneResult", p, out);
    }
    return ExitCode.OK;
  }
}
