package io.breakerctl.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * SLOW (about 1.5 minutes, 2-2.5 on a loaded machine: the build in the clone, its CDS archive and
 * the demo; bounded at 6): the README's first command on a fresh clone. Clones this repository's
 * committed HEAD into a temporary directory and runs {@code ./scripts/breakerctl demo} there with
 * an empty {@code HOME} and XDG directories in the temporary directory; it builds the jar in the
 * clone (reusing the local Maven repository) and must end with the fleet table. The only test of
 * its kind: keep it that way.
 */
class SandboxCleanCloneDemoIT {

  static final Path REPO = Path.of("").toAbsolutePath();

  /**
   * The Maven of the clone's build ({@code scripts/breakerctl} runs {@code mvn -q -B package
   * -Dmaven.test.skip=true}): the local repository instead of downloading into the empty HOME; no
   * Javadoc and sources jars, which the demo never uses and the suite's own {@code package} of the
   * same sources builds (and fails on) anyway; and a Maven JVM with C1 only and the serial
   * collector, which builds the same jar for about a third of the CPU (12 s instead of 33 s, javac
   * on 320 files: C2 compiling Maven and javac is most of a short build's CPU). The build itself
   * stays whole: compiled from the committed sources, shaded, and the script's staleness check, CDS
   * archive and demo run as a user's first command does.
   */
  static final String MAVEN_OPTS =
      String.join(
          " ",
          "-Dmaven.repo.local=" + Path.of(System.getProperty("user.home"), ".m2", "repository"),
          "-Dmaven.javadoc.skip=true",
          "-Dmaven.source.skip=true",
          "-XX:TieredStopAtLevel=1",
          "-XX:+UseSerialGC");

  @Test
  @Timeout(value = 6, unit = TimeUnit.MINUTES)
  void readmeFirstCommandOnAFreshCloneEndsWithTheFleetTable() throws Exception {
    Path tmp = Files.createTempDirectory("breakerctl-clone");
    Path clone = tmp.resolve("breakerctl");
    Path home = Files.createDirectories(tmp.resolve("home"));
    Map<String, String> env =
        Map.of(
            "HOME", home.toString(),
            "XDG_CONFIG_HOME", tmp.resolve("config").toString(),
            "XDG_STATE_HOME", tmp.resolve("state").toString(),
            "XDG_CACHE_HOME", tmp.resolve("cache").toString(),
            "NO_COLOR", "1",
            "MAVEN_OPTS", MAVEN_OPTS);
    run(tmp, env, 60, "git", "clone", "--quiet", REPO.toString(), clone.toString());
    try {
      Result demo = run(clone, env, 300, "./scripts/breakerctl", "demo");

      assertThat(demo.code).as(demo.output).isZero();
      List<String> lines = demo.stdout.lines().filter(l -> !l.isBlank()).toList();
      assertThat(lines).as(demo.output).isNotEmpty();
      assertThat(lines.get(0)).as(demo.output).startsWith("MODE").contains("FAILURES_AT_TRIP");
      assertThat(lines).as(demo.output).hasSize(4);
      assertThat(lines.get(1)).startsWith("LOCAL");
      assertThat(lines.get(2)).startsWith("SHARED");
      assertThat(lines.get(3)).startsWith("HYBRID");
      assertThat(demo.stderr)
          .contains("20 nodes x 3 dependencies, threshold 5")
          .contains("CLOSED -> OPEN")
          .contains("HALF_OPEN -> CLOSED");
    } finally {
      run(clone, env, 60, "./scripts/breakerctl", "sandbox", "down");
    }
  }

  record Result(int code, String stdout, String stderr, String output) {}

  private static Result run(Path dir, Map<String, String> env, int seconds, String... command)
      throws Exception {
    Path out = Files.createTempFile("clone-demo", ".out");
    Path err = Files.createTempFile("clone-demo", ".err");
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    pb.environment().putAll(env);
    pb.environment().keySet().removeIf(k -> k.startsWith("BREAKERCTL_"));
    Process p = pb.start();
    if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      throw new AssertionError(String.join(" ", command) + " took over " + seconds + " s");
    }
    String o = Files.readString(out, StandardCharsets.UTF_8);
    String e = Files.readString(err, StandardCharsets.UTF_8);
    return new Result(p.exitValue(), o, e, "stdout:\n" + o + "\nstderr:\n" + e);
  }
}
