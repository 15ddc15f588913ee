package io.breakerctl.docs;

import io.breakerctl.BreakerCtl;
import io.breakerctl.cli.Environment;
import io.breakerctl.cli.commands.CompletionScripts;
import io.breakerctl.cli.commands.HelpTopics;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.asciidoctor.Asciidoctor;
import org.asciidoctor.Attributes;
import org.asciidoctor.Options;
import org.asciidoctor.SafeMode;
import picocli.CommandLine;
import picocli.codegen.docgen.manpage.ManPageGenerator;

/**
 * Generates the committed {@code completions/} and {@code man/man1/} from the command model: bash
 * and zsh completion from {@link CompletionScripts} (what {@code breakerctl completion} prints),
 * and troff man pages from picocli's {@link ManPageGenerator} AsciiDoc converted by Asciidoctor's
 * {@code manpage} backend.
 *
 * <p>Usage: {@code DocsGenerator OUT_DIR [--write REPO_DIR]}; {@code --write} copies the result
 * over the repository's committed files. Run by the build through {@code DocsDriftIT}, and to
 * regenerate by {@code mvn -B -Pdocs -DskipTests process-test-classes}.
 */
public final class DocsGenerator {

  /** The command the drift test names. */
  public static final String REGENERATE = "mvn -B -q -Pdocs -DskipTests process-test-classes";

  private DocsGenerator() {}

  public static void main(String[] args) throws IOException {
    Path out = Path.of(args.length > 0 ? args[0] : "target/generated-docs");
    generate(out);
    if (args.length == 3 && args[1].equals("--write")) {
      Path repo = Path.of(args[2]);
      replaceTree(out.resolve("completions"), repo.resolve("completions"));
      replaceTree(out.resolve("man"), repo.resolve("man"));
      System.out.println("wrote " + repo.resolve("completions") + " and " + repo.resolve("man"));
    }
  }

  /** The command model as the docs see it: no terminal, no environment, a fixed clock. */
  static CommandLine commandLine() {
    Environment env =
        new Environment(
            Map.of(),
            false,
            Clock.fixed(Instant.EPOCH, ZoneOffset.UTC),
            new BufferedReader(new StringReader("")),
            "docs");
    CommandLine cl = BreakerCtl.commandLine(env);
    cl.setUsageHelpAutoWidth(false);
    cl.setUsageHelpWidth(100);
    return cl;
  }

  /**
   * Writes {@code out/completions/*} and {@code out/man/man1/*.1} (AsciiDoc in {@code out/adoc}).
   */
  public static void generate(Path out) throws IOException {
    deleteTree(out);
    Path completions = Files.createDirectories(out.resolve("completions"));
    String bash = CompletionScripts.bash(commandLine());
    Files.writeString(completions.resolve("breakerctl.bash"), bash);
    Files.writeString(completions.resolve("_breakerctl"), CompletionScripts.zsh(bash));

    Path adoc = Files.createDirectories(out.resolve("adoc"));
    ManPageGenerator.generateManPage(
        adoc.toFile(), null, new boolean[0], true, commandLine().getCommandSpec());
    List<Path> pages;
    try (Stream<Path> s = Files.list(adoc)) {
      pages = s.filter(p -> p.toString().endsWith(".adoc")).sorted().toList();
    }
    for (Path page : pages) {
      Files.writeString(page, adoc(Files.readString(page)));
    }
    Path man = Files.createDirectories(out.resolve("man").resolve("man1"));
    try (Asciidoctor asciidoctor = Asciidoctor.Factory.create()) {
      for (Path page : pages) {
        asciidoctor.convertFile(
            page.toFile(),
            Options.builder()
                .backend("manpage")
                .safe(SafeMode.UNSAFE)
                .toDir(man.toFile())
                .mkDirs(true)
                .attributes(Attributes.builder().attribute("reproducible", "").build())
                .build());
      }
    }
  }

  /**
   * Fixed version strings (no churn per release) and one Environment section on every page, in
   * place of the short one of the --help footer.
   */
  static String adoc(String page) {
    StringBuilder env = new StringBuilder("== Environment\n\n");
    HelpTopics.environment()
        .forEach((k, v) -> env.append('*').append(k).append("*::\n  ").append(v).append("\n\n"));
    env.append("See also *breakerctl help environment* and *breakerctl help exit-codes*.\n\n");
    // picocli renders the --help footer (the environment in short) as a second, literal
    // Environment section with lines past 80 columns: the full section below replaces it.
    String s =
        page.replaceAll(
                "(?s)// tag::picocli-generated-man-section-footer\\[].*?"
                    + "// end::picocli-generated-man-section-footer\\[]\n*",
                "")
            .replace("==  Exit codes:", "== Exit codes")
            .replaceAll("(?m)^:revnumber:.*$", ":revnumber:")
            .replaceAll("(?m)^:mansource:.*$", ":mansource: breakerctl")
            .replaceAll("(?m)^:manmanual:.*$", ":manmanual: breakerctl manual");
    String end = "// end::picocli-generated-full-manpage[]";
    int at = s.lastIndexOf(end);
    return at < 0 ? s + "\n" + env : s.substring(0, at) + env + s.substring(at);
  }

  /**
   * The differences between generated docs and a repository's committed ones, one line per file
   * (missing, extra or different); empty when they are byte for byte the same.
   */
  public static List<String> drift(Path generated, Path repo) throws IOException {
    List<String> problems = new ArrayList<>();
    for (String tree : List.of("completions", "man")) {
      List<String> want = files(generated.resolve(tree));
      List<String> have = files(repo.resolve(tree));
      for (String f : want) {
        Path committed = repo.resolve(tree).resolve(f);
        if (!have.contains(f)) {
          problems.add("missing: " + tree + "/" + f);
        } else if (!Arrays.equals(
            Files.readAllBytes(generated.resolve(tree).resolve(f)),
            Files.readAllBytes(committed))) {
          problems.add("differs: " + tree + "/" + f);
        }
      }
      for (String f : have) {
        if (!want.contains(f)) {
          problems.add("not generated any more: " + tree + "/" + f);
        }
      }
    }
    return problems;
  }

  private static List<String> files(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile)
          .map(p -> dir.relativize(p).toString())
          .sorted()
          .toList();
    }
  }

  private static void replaceTree(Path from, Path to) throws IOException {
    deleteTree(to);
    List<Path> files = new ArrayList<>();
    try (Stream<Path> s = Files.walk(from)) {
      s.filter(Files::isRegularFile).forEach(files::add);
    }
    for (Path f : files) {
      Path target = to.resolve(from.relativize(f).toString());
      Files.createDirectories(target.getParent());
      Files.copy(f, target, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
        Files.delete(p);
      }
    }
  }
}
