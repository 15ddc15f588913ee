package io.breakerctl.console;

import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jline.reader.Candidate;
import org.jline.reader.Completer;
import org.jline.reader.LineReader;
import org.jline.reader.ParsedLine;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.shell.jline3.PicocliJLineCompleter;

/**
 * Tab completion in the console: commands, subcommands, options and option values from the picocli
 * command model (picocli's JLine completer, so commands added later complete too), plus live
 * breaker ids for positional parameters that take one ({@code ID}, {@code ID|GLOB}, {@code
 * PATTERN}: ids contain {@code :}, which the console's parser never splits) and context names after
 * {@code use} and {@code --context}.
 */
final class ConsoleCompleter implements Completer {
  private final CommandSpec root;
  private final Completer model;
  private final Function<String, List<String>> breakerIds;
  private final Supplier<List<String>> contexts;

  ConsoleCompleter(
      CommandSpec root,
      Function<String, List<String>> breakerIds,
      Supplier<List<String>> contexts) {
    this.root = root;
    this.model = picocli(root);
    this.breakerIds = breakerIds;
    this.contexts = contexts;
  }

  @SuppressWarnings("deprecation")
  private static Completer picocli(CommandSpec root) {
    return new PicocliJLineCompleter(root);
  }

  @Override
  public void complete(LineReader reader, ParsedLine line, List<Candidate> candidates) {
    List<String> words = line.words();
    int index = line.wordIndex();
    String word = line.word().substring(0, Math.min(line.wordCursor(), line.word().length()));
    if (index == 0) {
      candidates.add(new Candidate("use"));
      candidates.add(new Candidate("exit"));
    }
    if (index == 1 && "use".equals(words.get(0))) {
      contexts.get().forEach(c -> candidates.add(new Candidate(c)));
      return;
    }
    if (index > 0 && "--context".equals(words.get(index - 1))) {
      contexts.get().forEach(c -> candidates.add(new Candidate(c)));
      return;
    }
    model.complete(reader, line, candidates);
    if (word.startsWith("-") || !takesBreakerId(words, index)) {
      return;
    }
    for (String id : breakerIds.apply(word)) {
      candidates.add(new Candidate(id, id, null, null, null, null, true));
    }
  }

  /** Whether the word at {@code index} is a positional parameter naming breakers. */
  boolean takesBreakerId(List<String> words, int index) {
    CommandSpec spec = root;
    for (int i = 0; i < index; i++) {
      CommandLine sub = spec.subcommands().get(words.get(i));
      if (sub != null) {
        spec = sub.getCommandSpec();
        continue;
      }
      OptionSpec option = spec.findOption(words.get(i));
      if (option != null && option.arity().max() > 0 && i == index - 1) {
        return false; // the word is this option's value
      }
    }
    if (spec == root) {
      return false;
    }
    for (PositionalParamSpec p : spec.positionalParameters()) {
      String label = p.paramLabel().toUpperCase(Locale.ROOT);
      if (label.contains("ID") || label.contains("PATTERN")) {
        return true;
      }
    }
    return false;
  }
}
