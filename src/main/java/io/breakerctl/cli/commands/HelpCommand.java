package io.breakerctl.cli.commands;

import io.breakerctl.cli.Inputs;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help;
import picocli.CommandLine.IHelpCommandInitializable2;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code breakerctl help [COMMAND...|exit-codes|environment]}. */
@Command(
    name = "help",
    helpCommand = true,
    description = {
      "Show help for a command, e.g. 'help force open', or a topic: exit-codes, environment.",
      "  exit-codes    the exit codes every command uses",
      "  environment   the environment variables breakerctl reads"
    })
public final class HelpCommand implements IHelpCommandInitializable2, Callable<Integer> {

  /** The topics besides commands. */
  public static final List<String> TOPICS = List.of("exit-codes", "environment");

  @Spec CommandSpec spec;

  @Parameters(paramLabel = "COMMAND|TOPIC", arity = "0..*", description = "A command or topic.")
  List<String> words = List.of();

  private CommandLine self;
  private PrintWriter out;
  private Help.ColorScheme colors;

  @Override
  public void init(
      CommandLine helpCommandLine, Help.ColorScheme colorScheme, PrintWriter out, PrintWriter err) {
    this.self = helpCommandLine;
    this.colors = colorScheme;
    this.out = out;
  }

  @Override
  public Integer call() {
    PrintWriter w = out != null ? out : spec.commandLine().getOut();
    CommandLine parent = (self != null ? self : spec.commandLine()).getParent();
    // picocli skips the unknown-option check for a help command and leaves the words unmatched
    CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
    List<String> unmatched = parsed == null ? List.of() : parsed.unmatched();
    if (!unmatched.isEmpty()) {
      throw new ParameterException(
          spec.commandLine(), "Unknown option: '" + Inputs.cut(unmatched.get(0)) + "'");
    }
    if (!words.isEmpty() && TOPICS.contains(words.get(0))) {
      if (words.size() > 1) {
        throw new ParameterException(
            spec.commandLine(),
            "help topic '"
                + words.get(0)
                + "' takes no further words, but got '"
                + Inputs.cut(words.get(1))
                + "'");
      }
      w.print(
          words.get(0).equals("exit-codes")
              ? HelpTopics.exitCodes()
              : HelpTopics.environmentText());
    } else {
      CommandLine target = parent;
      for (String word : words) {
        CommandLine next = target.getSubcommands().get(word);
        if (next == null || next.getCommandSpec().usageMessage().hidden()) {
          throw new ParameterException(spec.commandLine(), unknown(target, parent, word));
        }
        target = next;
      }
      target.usage(w, colors != null ? colors : Help.defaultColorScheme(Help.Ansi.AUTO));
    }
    w.flush();
    return 0;
  }

  private static String unknown(CommandLine target, CommandLine root, String word) {
    List<String> names =
        target.getSubcommands().entrySet().stream()
            .filter(e -> !e.getValue().getCommandSpec().usageMessage().hidden())
            .map(Map.Entry::getKey)
            .toList();
    if (target == root) {
      return "unknown command or topic '"
          + Inputs.cut(word)
          + "' (commands: "
          + String.join(", ", names)
          + "; topics: "
          + String.join(", ", TOPICS)
          + ")";
    }
    String parent = target.getCommandSpec().qualifiedName();
    return names.isEmpty()
        ? "'" + parent + "' has no subcommands, but got '" + Inputs.cut(word) + "'"
        : "'"
            + Inputs.cut(word)
            + "' is not a subcommand of '"
            + parent
            + "' (subcommands: "
            + String.join(", ", names)
            + ")";
  }
}
