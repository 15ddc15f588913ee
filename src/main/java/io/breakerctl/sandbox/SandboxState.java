package io.breakerctl.sandbox;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.Optional;
import java.util.Properties;

/**
 * What a running sandbox daemon wrote into its directory: ports, process ids, where its data lives
 * and when it started. Stored as {@code sandbox.state} (Java properties), written atomically by the
 * daemon once both servers answer and removed by its shutdown.
 */
public record SandboxState(
    int redisPort,
    int mongoPort,
    long daemonPid,
    long redisPid,
    String redisVersion,
    Path dataDir,
    Instant startedAt) {

  /** The file name inside the sandbox directory. */
  public static final String FILE_NAME = "sandbox.state";

  /** {@code redis://127.0.0.1:PORT}. */
  public String redisUri() {
    return "redis://127.0.0.1:" + redisPort;
  }

  /** {@code mongodb://127.0.0.1:PORT}. */
  public String mongoUri() {
    return "mongodb://127.0.0.1:" + mongoPort;
  }

  /** Reads the state file of a sandbox directory; empty when there is none. */
  public static Optional<SandboxState> read(Path dir) {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(dir.resolve(FILE_NAME), StandardCharsets.UTF_8)) {
      p.load(r);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try {
      return Optional.of(
          new SandboxState(
              Integer.parseInt(p.getProperty("redis.port")),
              Integer.parseInt(p.getProperty("mongo.port")),
              Long.parseLong(p.getProperty("daemon.pid")),
              Long.parseLong(p.getProperty("redis.pid")),
              p.getProperty("redis.version", "?"),
              Path.of(p.getProperty("data.dir", dir.toString())),
              Instant.parse(p.getProperty("started.at"))));
    } catch (RuntimeException e) {
      throw new SandboxException(
          "unreadable sandbox state file " + dir.resolve(FILE_NAME) + ": " + e, e);
    }
  }

  /** Writes this state into {@code dir} atomically (a reader never sees half a file). */
  public void write(Path dir) {
    Properties p = new Properties();
    p.setProperty("redis.port", Integer.toString(redisPort));
    p.setProperty("mongo.port", Integer.toString(mongoPort));
    p.setProperty("daemon.pid", Long.toString(daemonPid));
    p.setProperty("redis.pid", Long.toString(redisPid));
    p.setProperty("redis.version", redisVersion);
    p.setProperty("data.dir", dataDir.toString());
    p.setProperty("started.at", startedAt.toString());
    try {
      Path tmp = Files.createTempFile(dir, FILE_NAME, ".tmp");
      try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
        p.store(w, "breakerctl sandbox: written by the daemon, removed when it stops");
      }
      Files.move(
          tmp,
          dir.resolve(FILE_NAME),
          StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException("writing " + dir.resolve(FILE_NAME), e);
    }
  }
}
