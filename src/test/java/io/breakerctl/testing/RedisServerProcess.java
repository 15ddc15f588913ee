package io.breakerctl.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One {@code redis-server} child process on {@code 127.0.0.1} and a free port, with its own temp
 * directory (data dir, optional config file, and {@code redis.log} holding stdout/stderr). It is
 * registered with {@link TestProcesses}, so it never outlives the test JVM.
 *
 * <p>Control commands ({@link #call}, {@link #pause}, {@link #flushAll}, ...) use a tiny RESP
 * client over a fresh socket with bounded timeouts; none of them can hang.
 */
public final class RedisServerProcess implements AutoCloseable {

  /** Host every server binds to. */
  public static final String HOST = "127.0.0.1";

  private static final Duration CONTROL_TIMEOUT = Duration.ofSeconds(5);
  private static final int START_ATTEMPTS = 5;

  private final RedisBinary binary;
  private final List<String> extraArgs;
  private final String configText;
  private final Duration readyTimeout;
  private final Path dir;
  private final int port;
  private Process process;
  private boolean closed;

  /** Options for starting a server; obtain with {@link RedisServerProcess#builder}. */
  public static final class Builder {
    private final RedisBinary binary;
    private final List<String> extraArgs = new ArrayList<>();
    private String configText;
    private Duration readyTimeout = Duration.ofSeconds(10);
    private boolean needsClusterBusPort;

    private Builder(RedisBinary binary) {
      this.binary = Objects.requireNonNull(binary, "binary");
    }

    /** Extra command-line arguments appended after the defaults, e.g. {@code "--requirepass"}. */
    public Builder args(String... args) {
      extraArgs.addAll(List.of(args));
      return this;
    }

    /** Text of a redis.conf written to the server's dir and passed as the config file. */
    public Builder config(String text) {
      this.configText = text;
      return this;
    }

    /** How long to wait for the server to answer PING after (re)start; default 10 s. */
    public Builder readyTimeout(Duration timeout) {
      this.readyTimeout = timeout;
      return this;
    }

    /** Also require {@code port + 10000} (the cluster bus port) to be free. */
    Builder clusterBusPort() {
      this.needsClusterBusPort = true;
      return this;
    }

    /** Starts the server and waits until it answers PING. */
    public RedisServerProcess start() {
      Path dir;
      try {
        dir = Files.createTempDirectory("breakerctl-redis-");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      IllegalStateException last = null;
      for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
        RedisServerProcess server =
            new RedisServerProcess(this, dir, freePort(needsClusterBusPort));
        try {
          server.launch();
          return server;
        } catch (IllegalStateException e) {
          last = e;
          server.kill();
          if (!server.logTail(50).contains("in use")) {
            break;
          }
        }
      }
      deleteRecursively(dir);
      throw last;
    }
  }

  private RedisServerProcess(Builder b, Path dir, int port) {
    this.binary = b.binary;
    this.extraArgs = List.copyOf(b.extraArgs);
    this.configText = b.configText;
    this.readyTimeout = b.readyTimeout;
    this.dir = dir;
    this.port = port;
  }

  /** Starts a plain server on {@code binary} and waits until it is ready. */
  public static RedisServerProcess start(RedisBinary binary) {
    return builder(binary).start();
  }

  /**
   * Starts a replica of {@code master} on the same binary and waits until the master sees it online
   * (its first sync done).
   */
  public static RedisServerProcess replicaOf(RedisServerProcess master) {
    RedisServerProcess replica =
        builder(master.binary()).args("--replicaof", HOST, Integer.toString(master.port())).start();
    try {
      io.breakerctl.runtime.redis.Poll.until(
          Duration.ofSeconds(10),
          "the replica is online",
          () -> String.valueOf(master.call("INFO", "replication")).contains("state=online"));
      return replica;
    } catch (RuntimeException | Error e) {
      replica.close();
      throw e;
    }
  }

  /** A builder for a server with extra arguments or a config file. */
  public static Builder builder(RedisBinary binary) {
    return new Builder(binary);
  }

  /** Always {@code 127.0.0.1}. */
  public String host() {
    return HOST;
  }

  /** The TCP port; stays the same across {@link #restart()}. */
  public int port() {
    return port;
  }

  /** {@code redis://127.0.0.1:<port>}. */
  public String uri() {
    return "redis://" + HOST + ":" + port;
  }

  /** Version of the binary, e.g. {@code "7.0.15"}. */
  public String version() {
    return binary.version();
  }

  /** The binary this server runs. */
  public RedisBinary binary() {
    return binary;
  }

  /** The server's private directory (data, config, log). */
  public Path dir() {
    return dir;
  }

  /** The file receiving the server's stdout and stderr. */
  public Path logFile() {
    return dir.resolve("redis.log");
  }

  /** The last {@code lines} lines of the server log (empty if none). */
  public String logTail(int lines) {
    try {
      List<String> all = Files.readAllLines(logFile(), StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException | UncheckedIOException e) {
      return "";
    }
  }

  /** The pid of the current redis-server process (stale after it exits; -1 before start). */
  public synchronized long pid() {
    return process == null ? -1 : process.pid();
  }

  /** Whether the process is running. */
  public synchronized boolean isAlive() {
    return process != null && process.isAlive();
  }

  /** Sends a command and returns the reply: String, Long, null, or a List of those. */
  public Object call(String... command) {
    return Resp.call(HOST, port, CONTROL_TIMEOUT, command);
  }

  /**
   * {@code INFO commandstats} as command -> {calls, usec} (since start or the last {@code CONFIG
   * RESETSTAT}); commands run by scripts are counted under their own names.
   */
  public Map<String, long[]> commandStats() {
    Object reply = call("INFO", "commandstats");
    Map<String, long[]> out = new LinkedHashMap<>();
    for (String line : String.valueOf(reply).split("\r?\n")) {
      if (!line.startsWith("cmdstat_")) {
        continue;
      }
      int colon = line.indexOf(':');
      String name = line.substring("cmdstat_".length(), colon);
      long calls = 0;
      long usec = 0;
      for (String kv : line.substring(colon + 1).split(",")) {
        String[] p = kv.split("=", 2);
        if (p[0].equals("calls")) {
          calls = Long.parseLong(p[1]);
        } else if (p[0].equals("usec")) {
          usec = Long.parseLong(p[1]);
        }
      }
      out.put(name, new long[] {calls, usec});
    }
    return out;
  }

  /** {@code CLIENT PAUSE <ms> ALL}: the server stops serving clients for {@code duration}. */
  public void pause(Duration duration) {
    call("CLIENT", "PAUSE", Long.toString(duration.toMillis()), "ALL");
  }

  /**
   * SIGSTOPs the server: a hung Redis (connections accepted and kept, nothing answered) until
   * {@link #resume()}.
   */
  public synchronized void suspend() {
    signal("STOP");
  }

  /** SIGCONTs a server {@link #suspend()} stopped. */
  public synchronized void resume() {
    signal("CONT");
  }

  /**
   * Makes the server answer {@code -BUSY}: a script that never ends runs (sent on a connection of
   * its own) with the busy-reply threshold at 10 ms, until {@link #endBusy()}.
   */
  public void busy() {
    call("CONFIG", "SET", "lua-time-limit", "10");
    Resp.fireAndForget(HOST, port, Duration.ofMillis(50), "EVAL", "while true do end", "0");
  }

  /** Ends {@link #busy()}: {@code SCRIPT KILL}, the threshold back to 5 s. */
  public void endBusy() {
    try {
      call("SCRIPT", "KILL");
    } catch (Resp.ErrorReply e) {
      if (!e.getMessage().contains("NOTBUSY")) {
        throw e; // (NOTBUSY: no script running, already killed)
      }
    }
    // the kill takes effect at the script's next hook, not with the reply: until then Redis still
    // answers BUSY (seen on a loaded machine), so wait for it, bounded
    long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (true) {
      try {
        call("CONFIG", "SET", "lua-time-limit", "5000");
        return;
      } catch (Resp.ErrorReply e) {
        if (!e.getMessage().startsWith("BUSY") || System.nanoTime() > until) {
          throw e;
        }
        try {
          Thread.sleep(5);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  private void signal(String name) {
    if (process == null || !process.isAlive()) {
      throw new IllegalStateException("not running: " + this);
    }
    try {
      Process kill =
          new ProcessBuilder("kill", "-" + name, Long.toString(process.pid()))
              .redirectErrorStream(true)
              .start();
      if (!kill.waitFor(5, java.util.concurrent.TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
      }
    } catch (java.io.IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** {@code FLUSHALL}. */
  public void flushAll() {
    call("FLUSHALL");
  }

  /** SIGKILLs the server and waits for it to die. Clients then get connection refused. */
  public synchronized void kill() {
    if (process != null) {
      TestProcesses.killAndWait(process, Duration.ofSeconds(5));
      TestProcesses.unregister(process);
    }
  }

  /** Graceful stop: {@code SHUTDOWN NOSAVE}, falling back to SIGTERM and then SIGKILL. */
  public synchronized void stop() {
    if (process == null || !process.isAlive()) {
      kill();
      return;
    }
    Resp.fireAndForget(HOST, port, Duration.ofSeconds(2), "SHUTDOWN", "NOSAVE");
    if (!waitForExit(Duration.ofSeconds(3))) {
      process.destroy();
      waitForExit(Duration.ofSeconds(2));
    }
    kill();
  }

  /** Starts the server again (after kill/stop) on the same port and dir; waits until ready. */
  public synchronized void restart() {
    if (closed) {
      throw new IllegalStateException("closed");
    }
    stop();
    launch();
  }

  /**
   * Checks every event on the server against the transition table ({@link EventAudit}), then stops
   * the server and deletes its directory.
   *
   * @throws IllegalStateException after stopping, when the server held an illegal event
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    IllegalStateException illegal = null;
    try {
      illegal = audit();
      stop();
    } finally {
      deleteRecursively(dir);
    }
    if (illegal != null) {
      throw illegal;
    }
  }

  private IllegalStateException audit() {
    if (process == null || !process.isAlive()) {
      return null;
    }
    try {
      EventAudit.assertLegal(this);
      return null;
    } catch (IllegalStateException e) {
      return e;
    } catch (UncheckedIOException | Resp.ErrorReply e) {
      // not answering (paused, shutting down) or not readable by the default user: skipped
      return null;
    }
  }

  @Override
  public String toString() {
    return binary.label() + "@" + HOST + ":" + port;
  }

  private synchronized void launch() {
    List<String> cmd = new ArrayList<>();
    cmd.add(binary.path().toString());
    try {
      if (configText != null) {
        Path conf = dir.resolve("redis.conf");
        Files.writeString(conf, configText, StandardCharsets.UTF_8);
        cmd.add(conf.toString());
      }
      cmd.addAll(
          List.of(
              "--bind",
              HOST,
              "--save",
              "",
              "--appendonly",
              "no",
              "--dir",
              dir.toString(),
              "--port",
              Integer.toString(port)));
      cmd.addAll(extraArgs);
      process =
          new ProcessBuilder(cmd)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()))
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException("starting " + cmd, e);
    }
    TestProcesses.register(process, dir);
    awaitReady();
  }

  private void awaitReady() {
    long deadline = System.nanoTime() + readyTimeout.toNanos();
    RuntimeException last = null;
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw startFailure("exited with " + process.exitValue(), null);
      }
      try {
        Resp.call(HOST, port, Duration.ofMillis(500), "PING");
        return;
      } catch (Resp.ErrorReply e) {
        if (e.getMessage().startsWith("NOAUTH")) {
          return; // answering, just password-protected
        }
        last = e;
      } catch (UncheckedIOException e) {
        last = e;
      }
      sleep(25);
    }
    kill();
    throw startFailure("did not answer PING within " + readyTimeout, last);
  }

  private IllegalStateException startFailure(String what, Throwable cause) {
    return new IllegalStateException(
        "redis-server " + this + " " + what + "; log tail:\n" + logTail(30), cause);
  }

  private boolean waitForExit(Duration timeout) {
    try {
      return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return !process.isAlive();
    }
  }

  static int freePort(boolean withBusPort) {
    InetAddress loopback = InetAddress.getLoopbackAddress();
    for (int i = 0; i < 100; i++) {
      // The bus port is port + 10000, so cluster nodes pick below the ephemeral range.
      int want = withBusPort ? ThreadLocalRandom.current().nextInt(20000, 30000) : 0;
      try (ServerSocket s = new ServerSocket()) {
        s.bind(new InetSocketAddress(loopback, want));
        int port = s.getLocalPort();
        if (!withBusPort) {
          return port;
        }
        try (ServerSocket bus = new ServerSocket()) {
          bus.bind(new InetSocketAddress(loopback, port + 10000));
          return port;
        }
      } catch (IOException e) {
        // taken; try another
      }
    }
    throw new IllegalStateException("no free loopback port found");
  }

  static void deleteRecursively(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // best effort
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
