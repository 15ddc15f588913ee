package io.breakerctl.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs the packaged shaded jar ({@code target/breakerctl-*-all.jar}) as a process, the way a user
 * does: {@code NO_COLOR=1}, an isolated config dir, stdin not a terminal; stdout and stderr apart.
 */
final class CliProcess {
  private static final Duration LIMIT = Duration.ofSeconds(60);

  /** What a run produced. */
  record Result(int code, String out, String err, Duration took) {
    @Override
    public String toString() {
      return "exit "
          + code
          + " in "
          + took.toMillis()
          + " ms\n--- stdout\n"
          + out
          + "--- stderr\n"
          + err;
    }
  }

  private final Path configHome;
  private final Map<String, String> env = new HashMap<>();

  CliProcess(Path configHome) {
    this.configHome = configHome;
  }

  /** Adds an environment variable to every run. */
  CliProcess env(String name, String value) {
    env.put(name, value);
    return this;
  }

  static Path jar() {
    try (DirectoryStream<Path> s =
        Files.newDirectoryStream(Path.of("target"), "breakerctl-*-all.jar")) {
      for (Path p : s) {
        return p;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    throw new IllegalStateException("no target/breakerctl-*-all.jar: run mvn package first");
  }

  Result run(String... args) {
    return run(Map.of(), args);
  }

  Result run(Map<String, String> extraEnv, String... args) {
    ProcessBuilder pb = builder(extraEnv, args);
    pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    long t0 = System.nanoTime();
    try {
      Process p = pb.start();
      CompletableFuture<String> out = drain(p.getInputStream());
      CompletableFuture<String> err = drain(p.getErrorStream());
      if (!p.waitFor(LIMIT.toSeconds(), TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("breakerctl " + String.join(" ", args) + " hung for " + LIMIT);
      }
      return new Result(
          p.exitValue(),
          out.get(5, TimeUnit.SECONDS),
          err.get(5, TimeUnit.SECONDS),
          Duration.ofNanos(System.nanoTime() - t0));
    } catch (Exception ex) {
      throw new IllegalStateException(ex);
    }
  }

  /**
   * The command line and environment of a run, for a test that starts the process itself (to signal
   * it, or to send its stdout elsewhere than a pipe the test reads).
   */
  ProcessBuilder builder(Map<String, String> extraEnv, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-jar");
    cmd.add(jar().toString());
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    Map<String, String> e = pb.environment();
    e.keySet().removeIf(k -> k.startsWith("BREAKERCTL_"));
    e.put("NO_COLOR", "1");
    e.put("XDG_CONFIG_HOME", configHome.toString());
    e.put("HOME", configHome.toString());
    e.putAll(env);
    e.putAll(extraEnv);
    return pb;
  }

  static CompletableFuture<String> drain(java.io.InputStream in) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
          } catch (IOException e) {
            return "";
          }
        });
  }
}
