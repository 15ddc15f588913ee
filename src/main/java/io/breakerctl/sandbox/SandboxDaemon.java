package io.breakerctl.sandbox;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The sandbox's daemon JVM: runs a real {@code redis-server} and the MongoDB-wire server (H2
 * backend, data in the sandbox directory) on free loopback ports, writes {@link SandboxState} once
 * both answer, and on SIGTERM stops both gracefully and removes the state file.
 *
 * <p>redis-server runs under a tiny {@code sh} watchdog that holds a pipe from this JVM: when the
 * JVM dies for any reason, even SIGKILL, the pipe closes and the watchdog stops redis-server.
 *
 * <p>Usage: {@code java -cp JAR io.breakerctl.sandbox.SandboxDaemon DIR}. Exit codes: 0 stopped, 1
 * could not start, 3 another daemon owns DIR.
 */
public final class SandboxDaemon {

  private static final Duration START_TIMEOUT = Duration.ofSeconds(20);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);
  private static final Pattern PROCESS_ID = Pattern.compile("process_id:(\\d+)");
  // "$0" is redis-server; the background reader stops it when the JVM's end of stdin closes.
  // (An asynchronous list reads /dev/null unless redirected explicitly: hence fd 3.)
  private static final String WATCHDOG =
      "exec 3<&0; \"$0\" \"$@\" </dev/null 3<&- & r=$!;"
          + " (read -r _ <&3; kill -TERM $r 2>/dev/null) & w=$!; exec 3<&-;"
          + " wait $r; s=$?; kill $w 2>/dev/null; exit $s";

  private final Path dir;
  private final PrintStream log;
  private volatile MongoServer mongo;
  private volatile H2Backend backend;
  private volatile Process redisWatchdog;
  private volatile long redisPid = -1;
  private volatile boolean stopping;

  SandboxDaemon(Path dir, PrintStream log) {
    this.dir = dir.toAbsolutePath();
    this.log = log;
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: SandboxDaemon DIR");
      System.exit(2);
    }
    Path dir = Path.of(args[0]).toAbsolutePath();
    Files.createDirectories(dir);
    FileChannel lockChannel =
        FileChannel.open(
            dir.resolve("daemon.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock lock = lockChannel.tryLock();
    if (lock == null) {
      System.err.println("another sandbox daemon owns " + dir);
      System.exit(3);
    }
    SandboxDaemon daemon = new SandboxDaemon(dir, System.out);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  daemon.stop();
                  stopped.countDown();
                },
                "sandbox-shutdown"));
    try {
      SandboxState state = daemon.start();
      daemon.log(
          "ready: redis "
              + state.redisUri()
              + " (pid "
              + state.redisPid()
              + ", "
              + state.redisVersion()
              + "), mongodb "
              + state.mongoUri()
              + ", daemon pid "
              + state.daemonPid());
    } catch (RuntimeException | IOException e) {
      daemon.log("could not start: " + e.getMessage());
      e.printStackTrace(System.out);
      System.exit(1);
    }
    daemon
        .redisWatchdog
        .onExit()
        .thenRun(
            () -> {
              if (!daemon.stopping) {
                daemon.log("redis-server exited unexpectedly; stopping the sandbox");
                System.exit(1);
              }
            });
    stopped.await();
  }

  SandboxState start() throws IOException {
    log("starting in " + dir);
    Path redisDir = dir.resolve("redis");
    Files.createDirectories(redisDir);
    RedisExecutable redis = RedisExecutable.find(dir.resolve("bin"));
    log("redis-server " + redis.version() + " at " + redis.path());
    int redisPort = startRedis(redis, redisDir);

    Path mongoFile = dir.resolve("mongo.mv.db");
    backend = new H2Backend(mongoFile.toString());
    mongo = new MongoServer(backend);
    mongo.bind(InetAddress.getLoopbackAddress().getHostAddress(), 0);
    int mongoPort = mongo.getLocalAddress().getPort();
    log("mongodb-wire server (H2, " + mongoFile + ") on 127.0.0.1:" + mongoPort);

    SandboxState state =
        new SandboxState(
            redisPort,
            mongoPort,
            ProcessHandle.current().pid(),
            redisPid,
            redis.version(),
            dir,
            Instant.now());
    state.write(dir);
    return state;
  }

  private int startRedis(RedisExecutable redis, Path redisDir) throws IOException {
    IOException last = null;
    for (int attempt = 1; attempt <= 3; attempt++) {
      int port = freePort();
      List<String> command = new ArrayList<>(List.of("sh", "-c", WATCHDOG));
      command.add(redis.path().toString());
      command.addAll(
          List.of(
              "--port", Integer.toString(port),
              "--bind", "127.0.0.1",
              "--daemonize", "no",
              "--dir", redisDir.toString(),
              "--dbfilename", "dump.rdb",
              "--appendonly", "no",
              "--logfile", dir.resolve("redis.log").toString()));
      command.addAll(List.of("--save", "60", "1"));
      Process p =
          new ProcessBuilder(command)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
      while (System.nanoTime() < deadline && p.isAlive()) {
        Optional<String> info =
            LoopbackProbe.redisCommand(port, "INFO server", Duration.ofMillis(500));
        Matcher m = PROCESS_ID.matcher(info.orElse(""));
        if (m.find()) {
          redisWatchdog = p;
          redisPid = Long.parseLong(m.group(1));
          return port;
        }
        sleep(50);
      }
      p.getOutputStream().close();
      p.destroyForcibly();
      last =
          new IOException(
              "redis-server did not answer on port "
                  + port
                  + " (attempt "
                  + attempt
                  + "; see "
                  + dir.resolve("redis.log")
                  + ")");
      log(last.getMessage());
    }
    throw last;
  }

  /** Stops MongoDB (H2 closes cleanly: acknowledged writes survive), then redis-server. */
  synchronized void stop() {
    if (stopping) {
      return;
    }
    stopping = true;
    log("stopping");
    MongoServer m = mongo;
    if (m != null) {
      try {
        m.shutdown();
      } catch (RuntimeException e) {
        log("mongodb-wire server shutdown: " + e);
      }
      try {
        if (backend != null && !backend.getMvStore().isClosed()) {
          backend.close();
        }
      } catch (RuntimeException e) {
        log("H2 close: " + e);
      }
    }
    Process w = redisWatchdog;
    if (w != null) {
      try (OutputStream stdin = w.getOutputStream()) {
        stdin.flush();
      } catch (IOException e) {
        // closing the pipe is the signal; a broken pipe means it already ended
      }
      try {
        if (!w.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
          log("redis-server did not stop within " + STOP_TIMEOUT.toSeconds() + " s; killing it");
          ProcessHandle.of(redisPid).ifPresent(ProcessHandle::destroyForcibly);
          w.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    try {
      Files.deleteIfExists(dir.resolve(SandboxState.FILE_NAME));
    } catch (IOException e) {
      log("removing the state file: " + e);
    }
    log("stopped");
  }

  private void log(String message) {
    log.println(Instant.now() + " sandbox: " + message);
    log.flush();
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      s.setReuseAddress(true);
      return s.getLocalPort();
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
