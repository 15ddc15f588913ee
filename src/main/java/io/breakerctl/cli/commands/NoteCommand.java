package io.breakerctl.cli.commands;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.breakerctl.cli.CliContext;
import io.breakerctl.cli.CliException;
import io.breakerctl.cli.Confirmation;
import io.breakerctl.cli.ExitCode;
import io.breakerctl.cli.WriteAccess;
import io.breakerctl.cli.output.Documents;
import io.breakerctl.cli.output.OutputFormat;
import io.breakerctl.cli.output.OutputOptions;
import io.breakerctl.cli.output.Style;
import io.breakerctl.runtime.control.audit.BreakerNote;
import io.breakerctl.runtime.control.audit.BreakerNotes;
import io.breakerctl.runtime.model.BreakerId;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code breakerctl note ID TEXT}: an operational note on the timeline. */
@Command(
    name = "note",
    description = {
      "Add an operational note to a breaker's timeline (shown by 'history'), recorded with the"
          + " actor and time and audited. No confirmation: a note changes no breaker. The breaker"
          + " need not exist yet."
    })
public final class NoteCommand implements Callable<Integer> {

  /** The note written ({@code kind: Note}). */
  @JsonPropertyOrder({"id", "breakerId", "actor", "at", "text"})
  public record NoteView(String id, String breakerId, String actor, String at, String text) {}

  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "ID", description = "A breaker id.")
  String id;

  @Parameters(
      index = "1",
      paramLabel = "TEXT",
      description = "The note: at most 10000 characters, no control characters.")
  String text;

  @Mixin OutputOptions output;

  @Override
  public Integer call() {
    BreakerId breaker;
    try {
      breaker = BreakerId.parse(id);
    } catch (IllegalArgumentException e) {
      throw CliException.usage(e.getMessage());
    }
    CliContext root = CliContext.of(spec);
    String actor = WriteAccess.actor(root);
    if (text.length() > BreakerNotes.MAX_LENGTH) {
      throw CliException.usage(
          "the note must be at most "
              + BreakerNotes.MAX_LENGTH
              + " characters but was "
              + text.length());
    }
    Confirmation.checkText("the note", text, Integer.MAX_VALUE);
    WriteAccess.require(root, "note on " + breaker, breaker);
    BreakerNote n =
        new BreakerNotes(root.services().control(), root.env().clock()).add(breaker, actor, text);
    NoteView v =
        new NoteView(
            n.id(),
            n.breakerId().toString(),
            n.actor(),
            Style.rfc3339(n.at().toEpochMilli()),
            n.text());
    PrintWriter out = spec.commandLine().getOut();
    OutputFormat format = output.format();
    if (format.isTable()) {
      out.println("note " + v.id() + " added to " + v.breakerId() + " by " + v.actor());
      out.flush();
    } else {
      Documents.single(format, "Note", v, out);
    }
    return ExitCode.OK;
  }
}
