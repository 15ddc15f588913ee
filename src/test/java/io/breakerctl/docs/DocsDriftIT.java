package io.breakerctl.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The committed {@code completions/} and {@code man/} are what the current command model generates
 * (the build generates them into {@code target/generated-docs} here and compares byte for byte).
 */
class DocsDriftIT {

  static final Path REPO = Path.of("").toAbsolutePath();
  static final Path GENERATED = REPO.resolve("target/generated-docs");

  @BeforeAll
  static void generate() throws Exception {
    DocsGenerator.generate(GENERATED);
  }

  @Test
  @DisplayName("completions/ and man/ match the command model")
  void committedDocsMatchTheCommandModel() throws Exception {
    List<String> drift = DocsGenerator.drift(GENERATED, REPO);

    assertThat(drift)
        .as(
            "completions/ or man/ differ from what the command model generates; regenerate with"
                + " `%s` and commit the result",
            DocsGenerator.REGENERATE)
        .isEmpty();
  }

  @Test
  @DisplayName("a help text changed without regenerating is reported, file by file")
  void driftIsDetected(@TempDir Path repo) throws Exception {
    copyTree(GENERATED.resolve("completions"), repo.resolve("completions"));
    copyTree(GENERATED.resolve("man"), repo.resolve("man"));
    Path status = repo.resolve("man/man1/breakerctl-status.1");
    Files.writeString(status, Files.readString(status).replace("Exit", "Quit"));
    Files.delete(repo.resolve("completions/_breakerctl"));

    assertThat(DocsGenerator.drift(GENERATED, repo))
        .containsExactly(
            "missing: completions/_breakerctl", "differs: man/man1/breakerctl-status.1");
    assertThat(DocsGenerator.REGENERATE).contains("-Pdocs");
  }

  @Test
  @DisplayName("every command has a man page with exit codes and environment")
  void everyCommandHasAPage() throws Exception {
    for (String page :
        List.of(
            "breakerctl.1",
            "breakerctl-status.1",
            "breakerctl-force-open.1",
            "breakerctl-sandbox-up.1",
            "breakerctl-demo.1",
            "breakerctl-config-use-context.1",
            "breakerctl-policy-apply.1",
            "breakerctl-policy-rollback.1",
            "breakerctl-history.1",
            "breakerctl-history-sync.1",
            "breakerctl-replay.1",
            "breakerctl-replay-restore.1",
            "breakerctl-note.1",
            "breakerctl-wait.1")) {
      String troff = Files.readString(REPO.resolve("man/man1").resolve(page));
      assertThat(troff).as(page).contains(".SH \"ENVIRONMENT\"").contains("BREAKERCTL_REDIS");
      assertThat(troff).as(page).containsIgnoringCase("exit codes");
    }
  }

  @Test
  @DisplayName("man -l man/man1/breakerctl-status.1 renders")
  void manPageRenders() throws Exception {
    String page = REPO.resolve("man/man1/breakerctl-status.1").toString();
    List<String> command;
    if (onPath("man")) {
      command = List.of("man", "-l", page);
    } else {
      assumeTrue(
          onPath("groff"),
          "assumption: neither man nor groff is installed, so rendering is not checked here");
      command = List.of("groff", "-man", "-Tutf8", page);
    }
    String out = render(command, 100);

    assertThat(out)
        .contains("BREAKERCTL-STATUS(1)")
        .contains("SYNOPSIS")
        .contains("ENVIRONMENT")
        .contains("--check");
  }

  @Test
  @DisplayName("every man page: one ENVIRONMENT section, and no line past 80 columns rendered")
  void manPagesFitEightyColumns() throws Exception {
    assumeTrue(onPath("man"), "assumption: man is not installed, so rendering is not checked");
    List<Path> pages;
    try (var files = Files.list(REPO.resolve("man/man1"))) {
      pages = files.sorted().toList();
    }
    assertThat(pages).hasSizeGreaterThan(20);
    for (Path page : pages) {
      String troff = Files.readString(page);
      assertThat(troff.split("\\.SH \"ENVIRONMENT", -1)).as(page.toString()).hasSize(2);
      String out = render(List.of("man", "-l", page.toString()), 80);
      for (String line : out.split("\n")) {
        assertThat(line.length()).as("%s: %s", page.getFileName(), line).isLessThanOrEqualTo(80);
      }
    }
  }

  /** What {@code command} renders at {@code width} columns; it must exit 0. */
  private static String render(List<String> command, int width) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().put("MANPAGER", "cat");
    pb.environment().put("PAGER", "cat");
    pb.environment().put("MANWIDTH", Integer.toString(width));
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out;
  }

  private static boolean onPath(String tool) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
        return true;
      }
    }
    return false;
  }

  private static void copyTree(Path from, Path to) throws Exception {
    try (var files = Files.walk(from)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        Path target = to.resolve(from.relativize(f).toString());
        Files.createDirectories(target.getParent());
        Files.copy(f, target);
      }
    }
  }
}
