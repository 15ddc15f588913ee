package io.breakerctl.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The Markdown the repository documents itself with: {@code README.md} and every page under {@code
 * src/docs/}, read as fenced code blocks (with the {@code <!-- docs-test: ... -->} directives just
 * above each) and as {@code breakerctl} command lines. The doc tests ({@link DocLinksTest}, {@link
 * DocSnippetsTest}, {@link DocCommandsParseTest}, {@code DocExamplesIT}) read the pages through it.
 */
final class DocPages {

  private DocPages() {}

  /** A fenced block: the page, the line of its opening fence, its info string and its text. */
  record Block(Path page, int line, String info, String text, List<String> directives) {
    /** Where it is, for a failure message. */
    String where() {
      return page + ":" + line;
    }
  }

  /** A {@code breakerctl} command line of a block: its arguments (the command word left out). */
  record Command(Block block, int lineNumber, String line, List<String> args) {
    /** Where it is and what it says, for a failure message. */
    String where() {
      return block.page() + ":" + lineNumber + ": " + line;
    }
  }

  /** README.md, then src/docs/*.md in name order. */
  static List<Path> pages() {
    List<Path> out = new ArrayList<>();
    out.add(Path.of("README.md"));
    try (Stream<Path> s = Files.list(Path.of("src", "docs"))) {
      s.filter(p -> p.getFileName().toString().endsWith(".md")).sorted().forEach(out::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  static String read(Path page) {
    try {
      return Files.readString(page);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The fenced blocks of a page, in order. */
  static List<Block> blocks(Path page) {
    List<Block> out = new ArrayList<>();
    String[] lines = read(page).split("\n", -1);
    List<String> directives = new ArrayList<>();
    for (int i = 0; i < lines.length; i++) {
      String l = lines[i];
      if (l.startsWith("<!-- docs-test:") && l.endsWith("-->")) {
        directives.add(l.substring("<!-- docs-test:".length(), l.length() - 3).trim());
        continue;
      }
      if (!l.startsWith("```")) {
        if (!l.isBlank()) {
          directives.clear();
        }
        continue;
      }
      String info = l.substring(3).trim();
      StringBuilder text = new StringBuilder();
      int start = i + 1;
      i++;
      while (i < lines.length && !lines[i].startsWith("```")) {
        text.append(lines[i]).append('\n');
        i++;
      }
      out.add(new Block(page, start, info, text.toString(), List.copyOf(directives)));
      directives.clear();
    }
    return out;
  }

  /** Every fenced block of every page. */
  static List<Block> allBlocks() {
    List<Block> out = new ArrayList<>();
    for (Path p : pages()) {
      out.addAll(blocks(p));
    }
    return out;
  }

  /**
   * The {@code breakerctl} command lines of a block: in a shell block, each line whose first word
   * is {@code breakerctl} (or {@code scripts/breakerctl}); in a YAML block, the same inside a value
   * ({@code - run: breakerctl ...}, {@code - breakerctl ...}). A trailing {@code # comment} and
   * what follows {@code ||}, {@code |} or {@code &&} are not part of it.
   */
  static List<Command> commands(Block b) {
    List<Command> out = new ArrayList<>();
    String[] lines = b.text().split("\n");
    for (int i = 0; i < lines.length; i++) {
      String l = lines[i].strip();
      if (b.info().equals("yaml")) {
        l = l.replaceFirst("^-\\s+", "").replaceFirst("^run:\\s*", "");
      }
      List<String> words = words(l);
      if (words.isEmpty()) {
        continue;
      }
      String first = words.get(0);
      if (first.equals("breakerctl")
          || first.endsWith("/scripts/breakerctl")
          || first.equals("scripts/breakerctl")) {
        out.add(new Command(b, b.line() + 1 + i, l, List.copyOf(words.subList(1, words.size()))));
      }
    }
    return out;
  }

  /** Every command line of every shell, YAML or plain block. */
  static List<Command> allCommands() {
    List<Command> out = new ArrayList<>();
    for (Block b : allBlocks()) {
      if (List.of("", "sh", "yaml").contains(b.info())) {
        out.addAll(commands(b));
      }
    }
    return out;
  }

  /**
   * A shell line's words, as a POSIX shell splits them for the cases these pages use: single and
   * double quotes, a backslash outside quotes; ends at an unquoted {@code #} that starts a word, or
   * at {@code |}, {@code ||}, {@code &&} or {@code ;}.
   */
  static List<String> words(String line) {
    List<String> out = new ArrayList<>();
    StringBuilder w = null;
    char quote = 0;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        } else if (quote == '"' && c == '\\' && i + 1 < line.length()) {
          w.append(line.charAt(++i));
        } else {
          w.append(c);
        }
        continue;
      }
      if (c == '\'' || c == '"') {
        quote = c;
        w = w == null ? new StringBuilder() : w;
      } else if (c == '\\' && i + 1 < line.length()) {
        w = w == null ? new StringBuilder() : w;
        w.append(line.charAt(++i));
      } else if (Character.isWhitespace(c)) {
        if (w != null) {
          out.add(w.toString());
          w = null;
        }
      } else if (w == null && (c == '#' || c == '|' || c == '&' || c == ';')) {
        break;
      } else {
        w = w == null ? new StringBuilder() : w;
        w.append(c);
      }
    }
    if (w != null) {
      out.add(w.toString());
    }
    return out;
  }
}
