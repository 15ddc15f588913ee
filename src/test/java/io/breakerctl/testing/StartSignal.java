package io.breakerctl.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A start time handed from a test to its child JVMs through a file, so that a schedule starts once
 * every process is up instead of at a guess of how long a JVM takes to start on a loaded machine:
 * the children print that they are ready and wait ({@link #await}); the test waits for them, then
 * writes the time ({@link #write}, atomically: a reader never sees half of it).
 */
public final class StartSignal {
  private StartSignal() {}

  /** Writes {@code millis} (wall clock) to {@code file} atomically. */
  public static void write(Path file, long millis) {
    try {
      Path tmp = Path.of(file + ".tmp");
      Files.writeString(tmp, Long.toString(millis));
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The time {@code arg} names: a number itself, or {@code @FILE}: the time written to FILE,
   * waiting for it at most {@code limit}.
   */
  public static long await(String arg, Duration limit) {
    if (!arg.startsWith("@")) {
      return Long.parseLong(arg);
    }
    Path file = Path.of(arg.substring(1));
    long deadline = System.nanoTime() + limit.toNanos();
    while (System.nanoTime() < deadline) {
      try {
        String text = Files.readString(file).trim();
        if (!text.isEmpty()) {
          return Long.parseLong(text);
        }
      } catch (IOException | NumberFormatException notYet) {
        // not written yet
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
    throw new IllegalStateException("no start time in " + file + " within " + limit);
  }

  /** A fresh temporary file for one signal (deleted when the JVM exits). */
  public static Path newFile(String name) {
    try {
      Path f = Files.createTempFile(name, ".start");
      Files.delete(f); // absent until written
      f.toFile().deleteOnExit();
      return f;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
