package io.breakerctl.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Registry of child processes started by test fixtures. A JVM shutdown hook SIGKILLs any that are
 * still running, so a failing test or {@code System.exit} never leaks a redis-server or child JVM.
 *
 * <p>For the one case a shutdown hook cannot cover (the test JVM itself being SIGKILLed), each
 * registration also leaves a small marker file under {@code java.io.tmpdir/breakerctl-redis/pids};
 * the next JVM that loads this class kills children whose owning JVM is gone. Process start times
 * are recorded and compared, so a recycled pid is never killed by mistake.
 */
public final class TestProcesses {

  private static final Path MARKERS =
      Path.of(System.getProperty("java.io.tmpdir"), "breakerctl-redis", "pids");
  private static final ProcessHandle SELF = ProcessHandle.current();
  private static final Map<Long, Process> LIVE = new ConcurrentHashMap<>();
  private static final Map<Long, Path> DIRS = new ConcurrentHashMap<>();

  static {
    reapOrphans();
    Runtime.getRuntime()
        .addShutdownHook(new Thread(TestProcesses::killAll, "breakerctl-test-processes-reaper"));
  }

  private TestProcesses() {}

  /** Tracks {@code process} until {@link #unregister} or JVM exit, whichever comes first. */
  public static void register(Process process) {
    register(process, null);
  }

  /**
   * Like {@link #register(Process)}; if the process has to be killed at JVM exit (or reaped as an
   * orphan), {@code scratchDir} is deleted too. Only directories named {@code breakerctl-*} are.
   */
  public static void register(Process process, Path scratchDir) {
    LIVE.put(process.pid(), process);
    if (scratchDir != null) {
      DIRS.put(process.pid(), scratchDir);
    }
    try {
      Files.createDirectories(MARKERS);
      Files.writeString(
          marker(process.pid()),
          startMillis(SELF)
              + " "
              + startMillis(process.toHandle())
              + "\n"
              + (scratchDir == null ? "" : scratchDir.toAbsolutePath()),
          StandardCharsets.UTF_8);
    } catch (IOException e) {
      // The marker only helps after a hard crash; the in-JVM hook still works without it.
    }
  }

  /** Stops tracking {@code process} (call after it has exited). */
  public static void unregister(Process process) {
    LIVE.remove(process.pid());
    DIRS.remove(process.pid());
    try {
      Files.deleteIfExists(marker(process.pid()));
    } catch (IOException e) {
      // best effort
    }
  }

  /** SIGKILLs a process and waits (bounded) for it to exit; returns whether it exited. */
  public static boolean killAndWait(Process process, Duration timeout) {
    process.destroyForcibly();
    try {
      return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return !process.isAlive();
    }
  }

  /** SIGKILLs every registered process that is still running. */
  public static void killAll() {
    List<Process> all = new ArrayList<>(LIVE.values());
    for (Process p : all) {
      p.destroyForcibly();
    }
    for (Process p : all) {
      killAndWait(p, Duration.ofSeconds(2));
      deleteScratch(DIRS.get(p.pid()));
      unregister(p);
    }
  }

  private static void deleteScratch(Path dir) {
    if (dir != null && dir.getFileName().toString().startsWith("breakerctl-")) {
      RedisServerProcess.deleteRecursively(dir);
    }
  }

  private static Path marker(long childPid) {
    return MARKERS.resolve(SELF.pid() + "-" + childPid);
  }

  /**
   * Whether two readings of a process's start are the same process (and not a reused pid). Not
   * equality: a JVM derives the start from the kernel's boot time, which moves when the wall clock
   * is stepped, so two JVMs can read one process's start some milliseconds apart. With equality a
   * reaper once took a live orphan for a reused pid and left it running (and could take a live test
   * JVM for a dead one).
   */
  private static boolean sameStart(long a, long b) {
    return a >= 0 && b >= 0 && Math.abs(a - b) <= 2_000;
  }

  private static long startMillis(ProcessHandle handle) {
    return handle.info().startInstant().map(Instant::toEpochMilli).orElse(-1L);
  }

  /**
   * Kills children left behind by test JVMs that died without running their shutdown hooks (runs
   * automatically when this class is first used).
   */
  public static void reapOrphans() {
    if (!Files.isDirectory(MARKERS)) {
      return;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(MARKERS)) {
      for (Path file : files) {
        try {
          reapOne(file);
        } catch (IOException | RuntimeException e) {
          // best effort; leave the marker for a later run
        }
      }
    } catch (IOException e) {
      // best effort
    }
  }

  private static void reapOne(Path file) throws IOException {
    String[] pids = file.getFileName().toString().split("-");
    String[] lines = Files.readString(file, StandardCharsets.UTF_8).split("\n", -1);
    String[] starts = lines[0].trim().split(" ");
    if (pids.length != 2 || starts.length != 2) {
      Files.deleteIfExists(file);
      return;
    }
    Optional<ProcessHandle> owner = ProcessHandle.of(Long.parseLong(pids[0]));
    boolean ownerAlive =
        owner.isPresent()
            && owner.get().isAlive()
            && sameStart(startMillis(owner.get()), Long.parseLong(starts[0]));
    if (ownerAlive) {
      return;
    }
    Optional<ProcessHandle> child = ProcessHandle.of(Long.parseLong(pids[1]));
    if (child.isPresent() && sameStart(startMillis(child.get()), Long.parseLong(starts[1]))) {
      child.get().destroyForcibly();
      try {
        child.get().onExit().get(2, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (ExecutionException | TimeoutException e) {
        return; // try again next time
      }
    }
    if (lines.length > 1 && !lines[1].isBlank()) {
      deleteScratch(Path.of(lines[1].trim()));
    }
    Files.deleteIfExists(file);
  }
}
