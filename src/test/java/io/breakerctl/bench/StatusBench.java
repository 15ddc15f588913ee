package io.breakerctl.bench;

import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisServerProcess;
import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code breakerctl status -o json} over N breakers (default 100,000) vs the raw-Redis floor, in
 * the same run: {@code redis-cli --scan | redis-cli --pipe} with HGETALL (every key the bench
 * writes is a breaker hash; redis-cli 7.0 has no {@code --type}) when redis-cli is on PATH, else a
 * Lettuce scan + pipelined HGETALL in this JVM (the line says which). breakerctl runs as its own
 * JVM (start-up included, as a user sees it): through {@code scripts/breakerctl} (the shaded jar
 * with its CDS archive and JVM flags; the ratio the target applies to) and as a plain {@code java
 * -cp} of this class path; its peak RSS is read from {@code /usr/bin/time -v} when present, else by
 * polling VmHWM. Targets: ratio &lt;= 3x, RSS &lt;= 512 MB. Options: {@code --breakers N}, {@code
 * --rounds R} (3), {@code --redis PATH}.
 */
public final class StatusBench {
  private StatusBench() {}

  public static void main(String[] args) throws Exception {
    int breakers = 100_000;
    int rounds = 3;
    String redisPath = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--breakers" -> breakers = Integer.parseInt(args[++i]);
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--redis" -> redisPath = args[++i];
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    RedisBinary binary =
        redisPath != null
            ? RedisBinary.of(Path.of(redisPath))
            : RedisBinary.onPath().orElseGet(RedisBinary::embedded);
    Path launcher = Path.of("scripts/breakerctl").toAbsolutePath();
    boolean viaLauncher = Files.isExecutable(launcher);
    if (viaLauncher) {
      // Builds the shaded jar and its CDS archive if needed: outside the measurement.
      run(List.of(launcher.toString(), "version"));
    }
    try (RedisServerProcess redis = RedisServerProcess.start(binary)) {
      System.out.printf("status: redis %s (%s)%n", binary.version(), binary.path());
      // The fixed cost: the same command over an empty server (JVM start, connect, one SCAN).
      List<Double> empty = new ArrayList<>();
      List<Double> emptyJava = new ArrayList<>();
      for (int r = 0; r < rounds; r++) {
        if (viaLauncher) {
          empty.add(breakerctl(redis, 0, launcher)[0] / 1e3);
        }
        emptyJava.add(breakerctl(redis, 0, null)[0] / 1e3);
      }
      long t0 = System.nanoTime();
      fill(redis, breakers);
      System.out.printf(
          "status: %,d breaker hashes written in %.1f s (Lettuce async HSET, 1000 in flight)%n",
          breakers, (System.nanoTime() - t0) / 1e9);
      boolean cli = onPath("redis-cli");
      String baselineName =
          cli
              ? "redis-cli --scan | redis-cli --pipe HGETALL"
              : "Lettuce SCAN + pipelined HGETALL (no redis-cli on PATH)";
      List<Double> base = new ArrayList<>();
      List<Double> ctl = new ArrayList<>();
      List<Double> ctlJava = new ArrayList<>();
      long rss = 0;
      long rssJava = 0;
      for (int r = 0; r < rounds; r++) {
        base.add(cli ? redisCli(redis, breakers) : lettuce(redis));
        if (viaLauncher) {
          long[] run = breakerctl(redis, breakers, launcher);
          ctl.add(run[0] / 1e3);
          rss = Math.max(rss, run[1]);
        }
        long[] run = breakerctl(redis, breakers, null);
        ctlJava.add(run[0] / 1e3);
        rssJava = Math.max(rssJava, run[1]);
      }
      double b = median(base);
      System.out.printf("status: baseline %-52s median %.2f s %s%n", baselineName, b, base);
      if (viaLauncher) {
        double c = median(ctl);
        System.out.printf(
            "status: scripts/breakerctl status -o json (jar, CDS)     median %.2f s %s"
                + " (0 breakers: %.2f s %s)%n",
            c, ctl, median(empty), empty);
        System.out.printf(
            "status: ratio %.2fx (target <= 3x); peak RSS %d MB (target <= 512 MB)%n",
            c / b, rss / 1024);
      }
      double j = median(ctlJava);
      System.out.printf(
          "status: java -cp CLASSPATH ...Main status -o json        median %.2f s %s"
              + " (0 breakers: %.2f s %s)%n",
          j, ctlJava, median(emptyJava), emptyJava);
      System.out.printf(
          "status: ratio %.2fx without the launcher; peak RSS %d MB%n", j / b, rssJava / 1024);
    }
  }

  private static void run(List<String> cmd) throws Exception {
    Process p =
        new ProcessBuilder(cmd)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .redirectInput(new File("/dev/null"))
            .start();
    if (!p.waitFor(600, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IllegalStateException(cmd + " failed");
    }
  }

  static void fill(RedisServerProcess redis, int n) throws Exception {
    RedisClient client = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      RedisAsyncCommands<String, String> a = c.async();
      c.setAutoFlushCommands(false);
      List<RedisFuture<Long>> batch = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        String key = "cb:{svc" + (i % 500) + ":dep" + i + "}";
        batch.add(
            a.hset(
                key,
                Map.of(
                    "state",
                    i % 50 == 0 ? "OPEN" : "CLOSED",
                    "epoch",
                    "1796000000000000",
                    "winFailures",
                    Integer.toString(i % 5),
                    "winCalls",
                    Integer.toString(i % 40))));
        if (batch.size() == 1000 || i == n - 1) {
          c.flushCommands();
          for (RedisFuture<Long> f : batch) {
            f.get(10, TimeUnit.SECONDS);
          }
          batch.clear();
        }
      }
      c.setAutoFlushCommands(true);
    } finally {
      client.shutdown();
    }
  }

  private static double redisCli(RedisServerProcess redis, int expected) throws Exception {
    String p = Integer.toString(redis.port());
    String sh =
        "redis-cli -p "
            + p
            + " --scan --pattern 'cb:{*}' | sed 's/^/HGETALL /' | redis-cli -p "
            + p
            + " --pipe";
    long t0 = System.nanoTime();
    Process pr = new ProcessBuilder("sh", "-c", sh).redirectErrorStream(true).start();
    String out = new String(pr.getInputStream().readAllBytes());
    if (!pr.waitFor(120, TimeUnit.SECONDS)
        || pr.exitValue() != 0
        || !out.contains("replies: " + expected)) {
      throw new IllegalStateException("baseline failed: " + out);
    }
    return (System.nanoTime() - t0) / 1e9;
  }

  private static double lettuce(RedisServerProcess redis) throws Exception {
    long t0 = System.nanoTime();
    RedisClient client = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      RedisAsyncCommands<String, String> a = c.async();
      ScanCursor cursor = ScanCursor.INITIAL;
      KeyScanArgs args = KeyScanArgs.Builder.matches("cb:{*}").type("hash").limit(5000);
      do {
        KeyScanCursor<String> page = a.scan(cursor, args).get(10, TimeUnit.SECONDS);
        c.setAutoFlushCommands(false);
        List<RedisFuture<Map<String, String>>> fs = new ArrayList<>();
        for (String k : page.getKeys()) {
          fs.add(a.hgetall(k));
        }
        c.flushCommands();
        c.setAutoFlushCommands(true);
        for (RedisFuture<Map<String, String>> f : fs) {
          f.get(10, TimeUnit.SECONDS);
        }
        cursor = page;
      } while (!cursor.isFinished());
    } finally {
      client.shutdown();
    }
    return (System.nanoTime() - t0) / 1e9;
  }

  /**
   * Runs breakerctl status -o json through {@code launcher} (scripts/breakerctl: shaded jar, CDS
   * archive, its JVM flags), or as {@code java -cp} on this class path when null; returns {wall ms,
   * peak RSS kB}.
   */
  private static long[] breakerctl(RedisServerProcess redis, int expected, Path launcher)
      throws Exception {
    Path out = Files.createTempFile("status", ".json");
    Path timeLog = Files.createTempFile("status", ".time");
    try {
      List<String> cmd = new ArrayList<>();
      boolean gnuTime = Files.isExecutable(Path.of("/usr/bin/time"));
      if (gnuTime) {
        cmd.addAll(List.of("/usr/bin/time", "-v", "-o", timeLog.toString()));
      }
      if (launcher != null) {
        cmd.add(launcher.toString());
      } else {
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.breakerctl.Main"));
      }
      cmd.addAll(List.of("status", "-o", "json", "--redis", redis.uri()));
      ProcessBuilder pb = new ProcessBuilder(cmd);
      pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
      long t0 = System.nanoTime();
      Process p =
          pb.redirectOutput(out.toFile())
              .redirectError(ProcessBuilder.Redirect.INHERIT)
              .redirectInput(new File("/dev/null"))
              .start();
      long hwm = 0;
      while (!p.waitFor(20, TimeUnit.MILLISECONDS)) {
        hwm = Math.max(hwm, vmHwm(p));
        if (System.nanoTime() - t0 > 120_000_000_000L) {
          p.destroyForcibly();
          throw new IllegalStateException("breakerctl status took over 120 s");
        }
      }
      long ms = (System.nanoTime() - t0) / 1_000_000;
      if (p.exitValue() != 0) {
        throw new IllegalStateException("breakerctl status exited " + p.exitValue());
      }
      long items = Files.lines(out).filter(l -> l.startsWith("    \"id\" :")).count();
      if (items != expected) {
        throw new IllegalStateException("expected " + expected + " items but got " + items);
      }
      if (gnuTime) {
        for (String line : Files.readAllLines(timeLog)) {
          if (line.contains("Maximum resident set size")) {
            hwm = Long.parseLong(line.replaceAll("\\D+", ""));
          }
        }
      }
      return new long[] {ms, hwm};
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(timeLog);
    }
  }

  private static long vmHwm(Process p) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/" + p.pid() + "/status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.replaceAll("\\D+", ""));
        }
      }
    } catch (Exception e) {
      // the process ended
    }
    return 0;
  }

  private static boolean onPath(String exe) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(dir, exe))) {
        return true;
      }
    }
    return false;
  }

  private static double median(List<Double> xs) {
    List<Double> s = new ArrayList<>(xs);
    s.sort(null);
    return s.get(s.size() / 2);
  }
}
