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
 * the same run: {@code redis-cli --scan | redis-cli --pipe} with HGETALL when redis-cli is on PATH,
 * else a Lettuce scan + pipelined HGETALL in this JVM (the line says which). breakerctl runs as its
 * own JVM (start-up included, as a user sees it) on this class path; its peak RSS is read from
 * {@code /usr/bin/time -v} when present, else by polling VmHWM. Targets: ratio &lt;= 3x, RSS &lt;=
 * 512 MB. Options: {@code --breakers N}, {@code --rounds R} (3), {@code --redis PATH}.
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
    try (RedisServerProcess redis = RedisServerProcess.start(binary)) {
      System.out.printf("status: redis %s (%s)%n", binary.version(), binary.path());
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
      long rss = 0;
      for (int r = 0; r < rounds; r++) {
        base.add(cli ? redisCli(redis) : lettuce(redis));
        long[] run = breakerctl(redis, breakers);
        ctl.add(run[0] / 1e3);
        rss = Math.max(rss, run[1]);
      }
      double b = median(base);
      double c = median(ctl);
      System.out.printf("status: baseline %-52s median %.2f s %s%n", baselineName, b, base);
      System.out.printf(
          "status: breakerctl status -o json (own JVM)              median %.2f s %s%n", c, ctl);
      System.out.printf(
          "status: ratio %.2fx (target <= 3x); breakerctl peak RSS %d MB (target <= 512 MB)%n",
          c / b, rss / 1024);
    }
  }

  private static void fill(RedisServerProcess redis, int n) throws Exception {
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

  private static double redisCli(RedisServerProcess redis) throws Exception {
    String p = Integer.toString(redis.port());
    String sh =
        "redis-cli -p "
            + p
            + " --scan --pattern 'cb:{*}' --type hash | sed 's/^/HGETALL /' | redis-cli -p "
            + p
            + " --pipe > /dev/null";
    long t0 = System.nanoTime();
    Process pr = new ProcessBuilder("sh", "-c", sh).redirectErrorStream(true).start();
    pr.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
    if (!pr.waitFor(120, TimeUnit.SECONDS) || pr.exitValue() != 0) {
      throw new IllegalStateException("baseline failed");
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

  /** Runs breakerctl status -o json; returns {wall ms, peak RSS kB}. */
  private static long[] breakerctl(RedisServerProcess redis, int expected) throws Exception {
    Path out = Files.createTempFile("status", ".json");
    Path timeLog = Files.createTempFile("status", ".time");
    try {
      List<String> cmd = new ArrayList<>();
      boolean gnuTime = Files.isExecutable(Path.of("/usr/bin/time"));
      if (gnuTime) {
        cmd.addAll(List.of("/usr/bin/time", "-v", "-o", timeLog.toString()));
      }
      cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      cmd.addAll(
          List.of(
              "-cp",
              System.getProperty("java.class.path"),
              "io.breakerctl.cli.Main",
              "status",
              "-o",
              "json",
              "--redis",
              redis.uri()));
      long t0 = System.nanoTime();
      Process p =
          new ProcessBuilder(cmd)
              .redirectOutput(out.toFile())
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
