package io.breakerctl.cli;

import io.breakerctl.BreakerCtl;
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

  private static List<String> jvmFlags;

  /**
   * The JVM flags of every run: C1 only, and a dynamic class-data sharing archive of the jar
   * ({@code target/cli-tests.jsa}, made once per jar by one {@code doctor} against closed Redis and
   * MongoDB ports, which loads picocli, Lettuce, Netty and the MongoDB driver). The archive roughly
   * halves a run's start (0.76 s to 0.43 s of CPU on these machines), and the suite starts the jar
   * hundreds of times; {@code scripts/breakerctl} uses a static archive the same way. The archive
   * of a failing {@code status} it replaced left 1,565 classes of a force and 1,595 of a policy
   * apply to load from the jar, this one 560 and 591: 1.22 s to 1.12 s and 1.14 s to 0.96 s of CPU
   * a run (five each). An archive the JVM cannot use is ignored silently (the cds log is off), so a
   * run's output never depends on it.
   */
  static synchronized List<String> jvmFlags() {
    if (jvmFlags == null) {
      List<String> flags = new ArrayList<>(List.of("-XX:TieredStopAtLevel=1"));
      Path jsa = archive();
      if (jsa != null) {
        flags.addAll(
            List.of("-XX:SharedArchiveFile=" + jsa, "-Xlog:cds=off", "-Xlog:cds+dynamic=off"));
      }
      jvmFlags = List.copyOf(flags);
    }
    return jvmFlags;
  }

  /** Makes (or reuses) the archive; null when it cannot be made, and runs go without one. */
  private static Path archive() {
    Path jar = jar().toAbsolutePath();
    Path jsa = jar.resolveSibling("cli-tests.jsa");
    try {
      if (Files.exists(jsa)
          && Files.getLastModifiedTime(jsa).compareTo(Files.getLastModifiedTime(jar)) > 0) {
        return jsa;
      }
      Path dir = Files.createTempDirectory("cli-cds");
      Path tmp = dir.resolve("cli-tests.jsa");
      ProcessBuilder pb =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-XX:TieredStopAtLevel=1",
                  "-XX:ArchiveClassesAtExit=" + tmp,
                  "-jar",
                  jar.toString(),
                  "doctor",
                  "--redis",
                  "redis://127.0.0.1:1",
                  "--mongo",
                  "mongodb://127.0.0.1:1",
                  "--timeout",
                  "1s")
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
      pb.environment().keySet().removeIf(k -> k.startsWith("BREAKERCTL_"));
      pb.environment().put("HOME", dir.toString());
      pb.environment().put("XDG_CONFIG_HOME", dir.toString());
      Process p = pb.start();
      if (!p.waitFor(LIMIT.toSeconds(), TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return null;
      }
      if (!Files.exists(tmp)) {
        return null;
      }
      Files.move(tmp, jsa, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      return jsa;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
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
  /**
   * An environment value that removes the variable from the child's environment (a variable set but
   * empty is not the same: BREAKERCTL_REDIS="" is a usage error, a missing CI secret).
   */
  static final String UNSET = "<unset by the test>";

  ProcessBuilder builder(Map<String, String> extraEnv, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmFlags());
    cmd.add("-jar");
    cmd.add(jar().toString());
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    environment(pb.environment(), extraEnv);
    return pb;
  }

  /** Makes {@code e} (this process's environment) the environment of a run. */
  private void environment(Map<String, String> e, Map<String, String> extraEnv) {
    e.keySet().removeIf(k -> k.startsWith("BREAKERCTL_"));
    e.put("NO_COLOR", "1");
    e.put("XDG_CONFIG_HOME", configHome.toString());
    e.put("HOME", configHome.toString());
    // the CLI's state (its audit spool) stays in the run's home, whatever the runner's is
    e.put("XDG_STATE_HOME", configHome.resolve("state").toString());
    e.putAll(env);
    e.putAll(extraEnv);
    e.values().removeIf(UNSET::equals);
  }

  /**
   * Runs the same command line in this JVM ({@link InProcessRun}): the environment a process run
   * gets (its variables, {@code USER} as the OS user), stdin empty and not a terminal, the command
   * line built as {@code Main} builds it. What only {@code Main} does is not there: the exit on a
   * failed stdout write (8) and a signal's 5; a test of those, or of anything the process itself
   * does, uses {@link #run}. Milliseconds where a process takes about a second of CPU.
   */
  Result inProcess(String... args) {
    return inProcess(Map.of(), args);
  }

  /** {@link #inProcess(String...)} with {@code extraEnv} added, as {@link #run(Map, String...)}. */
  Result inProcess(Map<String, String> extraEnv, String... args) {
    Map<String, String> e = new HashMap<>(System.getenv());
    environment(e, extraEnv);
    String user = e.getOrDefault("USER", System.getProperty("user.name", "unknown"));
    long t0 = System.nanoTime();
    InProcessRun r =
        InProcessRun.execute(
            BreakerCtl.commandLine(
                new Environment(
                    Map.copyOf(e),
                    false,
                    java.time.Clock.systemUTC(),
                    new java.io.BufferedReader(new java.io.StringReader("")),
                    user),
                null,
                args.length > 0 ? args[0] : null),
            args);
    return new Result(r.code(), r.out(), r.err(), Duration.ofNanos(System.nanoTime() - t0));
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
