package io.breakerctl.sandbox;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * The local sandbox: a detached daemon JVM ({@link SandboxDaemon}) running a real redis-server and
 * a MongoDB-wire server on loopback ports, with its state and data in one directory (by default
 * {@code $XDG_STATE_HOME/breakerctl/sandbox}).
 *
 * <p>{@link #up()} spawns the daemon (same {@code java}, same class path, output to {@code
 * sandbox.log} in the directory) and waits, bounded, until both ports answer; {@link #down()} sends
 * SIGTERM and waits, bounded, before killing; {@link #status()} reads the state file and checks the
 * processes and ports.
 */
public final class Sandbox {

  /** Bound for {@link #up()} by default: a JVM start plus two servers on a loaded 2-core box. */
  public static final Duration DEFAULT_START_TIMEOUT = Duration.ofSeconds(60);

  /** Bound for a graceful {@link #down()} before the daemon is killed. */
  public static final Duration DEFAULT_STOP_TIMEOUT = Duration.ofSeconds(20);

  static final String LOG_FILE = "sandbox.log";
  private static final Duration PROBE = Duration.ofMillis(500);

  private final Path dir;
  private final Duration startTimeout;
  private final Duration stopTimeout;

  /** A sandbox kept in {@code dir}, with the default time bounds. */
  public Sandbox(Path dir) {
    this(dir, DEFAULT_START_TIMEOUT, DEFAULT_STOP_TIMEOUT);
  }

  /** A sandbox kept in {@code dir}, with explicit time bounds for start and graceful stop. */
  public Sandbox(Path dir, Duration startTimeout, Duration stopTimeout) {
    this.dir = dir.toAbsolutePath().normalize();
    this.startTimeout = startTimeout;
    this.stopTimeout = stopTimeout;
  }

  /** The directory holding the state file, the log and the data. */
  public Path dir() {
    return dir;
  }

  /** The daemon's log file (also where redis-server's startup problems are reported). */
  public Path logFile() {
    return dir.resolve(LOG_FILE);
  }

  /**
   * Starts the sandbox, or returns the running one.
   *
   * @throws SandboxException when the daemon fails or does not answer within the start bound (the
   *     message carries the tail of its log)
   */
  public SandboxStart up() {
    SandboxStatus now = status();
    if (now.running()) {
      return new SandboxStart(now.state().orElseThrow(), true, logFile());
    }
    if (now.degraded()) {
      cleanUp(now.state().orElseThrow());
    }
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new SandboxException("cannot create the sandbox directory " + dir + ": " + e, e);
    }
    Process daemon;
    try {
      daemon =
          new ProcessBuilder(daemonCommand())
              .directory(dir.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
              .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()))
              .redirectErrorStream(true)
              .start();
    } catch (IOException e) {
      throw new SandboxException("cannot start the sandbox daemon: " + e.getMessage(), e);
    }
    long deadline = System.nanoTime() + startTimeout.toNanos();
    while (System.nanoTime() < deadline) {
      Optional<SandboxState> state = SandboxState.read(dir);
      if (state.isPresent()
          && state.get().daemonPid() == daemon.pid()
          && LoopbackProbe.redisPongs(state.get().redisPort(), PROBE)
          && LoopbackProbe.accepts(state.get().mongoPort(), PROBE)) {
        return new SandboxStart(state.get(), false, logFile());
      }
      if (!daemon.isAlive()) {
        if (daemon.exitValue() == 3) {
          throw new SandboxException(
              "another sandbox daemon is starting in " + dir + "; try `breakerctl sandbox status`");
        }
        throw new SandboxException(
            "the sandbox daemon exited with status "
                + daemon.exitValue()
                + "; last lines of "
                + logFile()
                + ":\n"
                + logTail(20));
      }
      sleep(50);
    }
    daemon.destroy();
    waitFor(daemon.toHandle(), stopTimeout);
    daemon.destroyForcibly();
    throw new SandboxException(
        "the sandbox did not answer within "
            + startTimeout.toSeconds()
            + " s; last lines of "
            + logFile()
            + ":\n"
            + logTail(20));
  }

  /**
   * Stops the sandbox: SIGTERM to the daemon (which stops both servers and flushes MongoDB's data),
   * a bounded wait, then SIGKILL; a redis-server left by a crashed daemon is stopped too.
   */
  public SandboxShutdown down() {
    Optional<SandboxState> state = SandboxState.read(dir);
    if (state.isEmpty()) {
      return new SandboxShutdown(SandboxShutdown.Outcome.NOT_RUNNING, state);
    }
    Optional<ProcessHandle> daemon = live(state.get().daemonPid(), "java");
    SandboxShutdown.Outcome outcome;
    if (daemon.isPresent()) {
      daemon.get().destroy();
      if (waitFor(daemon.get(), stopTimeout)) {
        outcome = SandboxShutdown.Outcome.STOPPED;
      } else {
        daemon.get().destroyForcibly();
        waitFor(daemon.get(), Duration.ofSeconds(5));
        outcome = SandboxShutdown.Outcome.KILLED;
      }
    } else {
      outcome = SandboxShutdown.Outcome.CLEANED_UP;
    }
    cleanUp(state.get());
    return new SandboxShutdown(outcome, state);
  }

  /** Reads the state file and checks that the processes live and the ports answer. */
  public SandboxStatus status() {
    Optional<SandboxState> state = SandboxState.read(dir);
    if (state.isEmpty()) {
      return new SandboxStatus(dir, state, false, false, false, false);
    }
    SandboxState s = state.get();
    return new SandboxStatus(
        dir,
        state,
        live(s.daemonPid(), "java").isPresent(),
        live(s.redisPid(), "redis").isPresent(),
        LoopbackProbe.redisPongs(s.redisPort(), PROBE),
        LoopbackProbe.accepts(s.mongoPort(), PROBE));
  }

  /** Kills what a dead daemon left behind (its redis-server) and removes the state file. */
  private void cleanUp(SandboxState state) {
    live(state.redisPid(), "redis")
        .ifPresent(
            redis -> {
              redis.destroy();
              if (!waitFor(redis, stopTimeout)) {
                redis.destroyForcibly();
              }
            });
    try {
      Files.deleteIfExists(dir.resolve(SandboxState.FILE_NAME));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private List<String> daemonCommand() {
    List<String> command = new ArrayList<>();
    // A new session: Ctrl-C in the terminal that ran `sandbox up` must not reach the daemon.
    setsid().ifPresent(command::add);
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(
        List.of(
            "-Xmx256m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-Dslf4j.internal.verbosity=ERROR",
            "-cp",
            daemonClassPath(),
            SandboxDaemon.class.getName(),
            dir.toString()));
    return command;
  }

  /**
   * The class path for the daemon. A jar is copied into the sandbox directory first: the daemon
   * outlives this process, and a rebuild that replaces the jar under a running JVM breaks it.
   */
  private String daemonClassPath() {
    // Absolute entries: the daemon runs in the sandbox directory.
    String cp =
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(e -> !e.isEmpty())
            .map(e -> Path.of(e).toAbsolutePath().toString())
            .collect(Collectors.joining(File.pathSeparator));
    Path jar = Path.of(cp);
    if (cp.contains(File.pathSeparator) || !cp.endsWith(".jar") || !Files.isRegularFile(jar)) {
      return cp;
    }
    Path copy = dir.resolve("lib").resolve("breakerctl-sandbox.jar");
    try {
      if (!Files.exists(copy)
          || Files.size(copy) != Files.size(jar)
          || !Files.getLastModifiedTime(copy).equals(Files.getLastModifiedTime(jar))) {
        Files.createDirectories(copy.getParent());
        Path tmp = Files.createTempFile(copy.getParent(), "breakerctl", ".tmp");
        try {
          Files.copy(
              jar, tmp, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.COPY_ATTRIBUTES);
          Files.move(
              tmp, copy, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
          Files.deleteIfExists(tmp);
        }
      }
      return copy.toString();
    } catch (IOException e) {
      return cp;
    }
  }

  private static Optional<String> setsid() {
    for (String candidate : List.of("/usr/bin/setsid", "/bin/setsid")) {
      if (Files.isExecutable(Path.of(candidate))) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /** The live process with this pid, if its command looks like {@code expect} (pids are reused). */
  private static Optional<ProcessHandle> live(long pid, String expect) {
    if (pid <= 0) {
      return Optional.empty();
    }
    return ProcessHandle.of(pid)
        .filter(ProcessHandle::isAlive)
        .filter(p -> p.info().command().map(c -> c.contains(expect)).orElse(true));
  }

  private static boolean waitFor(ProcessHandle p, Duration bound) {
    try {
      p.onExit().get(bound.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (TimeoutException e) {
      return !p.isAlive();
    } catch (ExecutionException e) {
      return !p.isAlive();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SandboxException("interrupted", e);
    }
  }

  private String logTail(int lines) {
    try {
      List<String> all = Files.readAllLines(logFile(), StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SandboxException("interrupted", e);
    }
  }
}
