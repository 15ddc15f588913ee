package io.breakerctl.bench;

import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.Permission;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisServerProcess;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Benchmark (not a test; {@code scripts/bench scale}): what a fleet costs Redis and the nodes at
 * the registry's default intervals. {@code --nodes M} HYBRID registries in this JVM (each its own
 * connections and subscription) over {@code --breakers B} breakers, against one redis-server:
 *
 * <ul>
 *   <li><b>idle</b>: every breaker used once by every node, then no traffic;
 *   <li><b>busy</b>: every node calls every breaker {@code --rate} times a second (100), all
 *       successes (the steady state of a healthy fleet).
 * </ul>
 *
 * Each phase measures over {@code --seconds S} (60: every periodic interval, heartbeats and the
 * stamp sweep, falls inside once at its own phase) after a settling time: Redis CPU from {@code
 * INFO cpu} (used_cpu_user + used_cpu_sys, less what the server used alone in 5 s before any node
 * connected: its cron) divided by M x B and the time, and this JVM's CPU time
 * (OperatingSystemMXBean) per node and per 1,000 breakers. Targets (issue: fleet scale): busy at
 * most 3 us of Redis CPU per (node, breaker) per second, idle at most 0.5 us; an idle node with
 * 1,000 breakers at most 1% of a core. Then one Redis core holds about 1e6 / (us per pair) pairs.
 * Options: {@code --redis PATH}, {@code --nodes M}, {@code --breakers B}, {@code --rate R}, {@code
 * --seconds S}, {@code --settle S}, {@code --busy-breakers N}, {@code --flush-interval S} (the
 * registry's flushInterval; default its own), {@code --command-timeout MS} (1000: the nodes' Redis
 * command timeout; the runtime's default of 50 ms degrades nodes whose callers and Redis share 2
 * cores, and their reconciles then dominate what this measures).
 */
public final class ScaleBench {
  private ScaleBench() {}

  /** The server's own CPU per second before any node connects (microseconds). */
  private static double serverIdlePerSecond;

  /** Runs the benchmark. */
  public static void main(String[] args) throws Exception {
    String[] redis = {null};
    int[] nodes = {10};
    int[] breakers = {1000};
    int[] rate = {100};
    int[] seconds = {60}; // at least the longest periodic interval (heartbeat, sweep: 60 s)
    int[] settle = {12};
    int[] busyBreakers = {100};
    int[] timeoutMs = {1000};
    int[] flushSeconds = {0}; // 0: the registry's default
    BenchSupport.parse(
        args,
        (a, v) -> {
          switch (a) {
            case "--redis" -> redis[0] = v;
            case "--nodes" -> nodes[0] = BenchSupport.positive(a, v, 1);
            case "--breakers" -> breakers[0] = BenchSupport.positive(a, v, 1);
            case "--rate" -> rate[0] = BenchSupport.positive(a, v, 1);
            case "--seconds" -> seconds[0] = BenchSupport.positive(a, v, 1);
            case "--settle" -> settle[0] = BenchSupport.positive(a, v, 0);
            case "--busy-breakers" -> busyBreakers[0] = BenchSupport.positive(a, v, 1);
            case "--command-timeout" -> timeoutMs[0] = BenchSupport.positive(a, v, 1);
            case "--flush-interval" -> flushSeconds[0] = BenchSupport.positive(a, v, 1);
            default -> {
              return false;
            }
          }
          return true;
        });
    RedisBinary binary = BenchSupport.binary(redis[0]);
    BenchSupport.header("scale", binary, redis[0] != null);
    int m = nodes[0];
    int b = breakers[0];
    List<BreakerRegistry> registries = new ArrayList<>();
    List<List<CircuitBreaker>> perNode = new ArrayList<>();
    try (RedisServerProcess server = RedisServerProcess.start(binary)) {
      // what the server burns with no client (its cron), not a cost of any pair: subtracted below
      double e0 = redisCpuMicros(server);
      long t0 = System.nanoTime();
      sleep(5);
      serverIdlePerSecond = (redisCpuMicros(server) - e0) / ((System.nanoTime() - t0) / 1e9);
      System.out.printf(
          Locale.ROOT,
          "  redis-server alone (no client): %.2f ms of CPU per second, subtracted%n",
          serverIdlePerSecond / 1000);
      for (int i = 0; i < m; i++) {
        BreakerRegistry.Builder builder =
            BreakerRegistry.builder()
                .redisUri(server.uri())
                .nodeId("scale-" + i)
                .mode(Mode.HYBRID)
                .commandTimeout(java.time.Duration.ofMillis(timeoutMs[0]));
        if (flushSeconds[0] > 0) {
          builder.flushInterval(java.time.Duration.ofSeconds(flushSeconds[0]));
        }
        BreakerRegistry r = builder.build();
        registries.add(r);
        List<CircuitBreaker> mine = new ArrayList<>(b);
        for (int j = 0; j < b; j++) {
          CircuitBreaker cb = r.breaker(BreakerId.parse("scale:dep" + j));
          Permission p = cb.tryAcquire();
          if (p.allowed()) {
            p.onSuccess(100_000);
          }
          mine.add(cb);
        }
        perNode.add(mine);
      }
      System.out.printf(
          Locale.ROOT,
          "  %d nodes x %d breakers = %d pairs, %s, command timeout %d ms%n",
          m,
          b,
          m * b,
          flushSeconds[0] > 0
              ? "default intervals but flushInterval " + flushSeconds[0] + " s"
              : "default intervals",
          timeoutMs[0]);
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (registries.stream().anyMatch(BreakerRegistry::degraded)
          && System.nanoTime() < deadline) {
        sleep(1); // setup (B first reads per node) can time out on a loaded machine
      }
      // past the first flush of the setup's successes, which the idle phase must not count
      long flushS =
          flushSeconds[0] > 0
              ? flushSeconds[0]
              : BreakerRegistry.DEFAULT_FLUSH_INTERVAL.toSeconds();
      sleep((int) Math.max(settle[0], flushS + 2));
      long degradedNodes = registries.stream().filter(BreakerRegistry::degraded).count();
      System.out.printf(Locale.ROOT, "  degraded nodes before measuring: %d%n", degradedNodes);
      Phase idle = measure(server, seconds[0]);
      report("idle", idle, m, b, 0.5);
      ScheduledExecutorService callers = Executors.newScheduledThreadPool(2);
      long periodMicros = 1_000_000L / rate[0];
      int busyB = Math.min(b, busyBreakers[0]);
      for (List<CircuitBreaker> all : perNode) {
        List<CircuitBreaker> mine = all.subList(0, busyB);
        callers.scheduleAtFixedRate(
            () -> {
              for (CircuitBreaker cb : mine) {
                Permission p = cb.tryAcquire();
                if (p.allowed()) {
                  p.onSuccess(100_000);
                }
              }
            },
            0,
            periodMicros,
            TimeUnit.MICROSECONDS);
      }
      sleep(settle[0]);
      Phase busy = measure(server, seconds[0]);
      callers.shutdownNow();
      System.out.printf(
          Locale.ROOT,
          "  degraded nodes after the busy phase: %d%n",
          registries.stream().filter(BreakerRegistry::degraded).count());
      // the busy pairs' share: what the phase cost beyond the idle rate of the pairs left idle
      double idleRate = idle.redisCpuMicros / ((double) m * b * idle.seconds);
      double busyOnly = busy.redisCpuMicros - idleRate * (double) m * (b - busyB) * busy.seconds;
      Phase busyPairs = new Phase(busyOnly, busy.jvmCpuMicros, busy.seconds);
      System.out.printf(
          Locale.ROOT,
          "  busy: %d of the %d breakers per node at %d calls/s each (%,d calls/s in all)%n",
          busyB,
          b,
          rate[0],
          (long) m * busyB * rate[0]);
      report("busy", busyPairs, m, busyB, 3.0);
      double usPerPair = busyOnly / ((double) m * busyB * busy.seconds);
      System.out.printf(
          Locale.ROOT,
          "  capacity: one Redis core holds about %,.0f busy and %,.0f idle node-breaker pairs at"
              + " these defaults%n",
          1e6 / usPerPair,
          1e6 / (idle.redisCpuMicros / ((double) m * b * idle.seconds)));
      // before the server stops, or every node reports losing it
      registries.forEach(BreakerRegistry::close);
      registries.clear();
    } finally {
      registries.forEach(BreakerRegistry::close);
    }
  }

  private record Phase(double redisCpuMicros, double jvmCpuMicros, double seconds) {}

  private static Phase measure(RedisServerProcess server, int seconds) {
    java.util.Map<String, long[]> before = server.commandStats();
    long reads0 = readEvents(server);
    Phase p = measureCpu(server, seconds);
    long reads = readEvents(server) - reads0;
    java.util.Map<String, long[]> after = server.commandStats();
    StringBuilder top = new StringBuilder("  commands/s (their own time per second):");
    long[] none = new long[2];
    double inCommands = 0;
    for (java.util.Map.Entry<String, long[]> e : after.entrySet()) {
      inCommands += e.getValue()[1] - before.getOrDefault(e.getKey(), none)[1];
    }
    after.entrySet().stream()
        .sorted(
            (x, y) ->
                Long.compare(
                    y.getValue()[1] - before.getOrDefault(y.getKey(), none)[1],
                    x.getValue()[1] - before.getOrDefault(x.getKey(), none)[1]))
        .limit(6)
        .forEach(
            e ->
                top.append(
                    String.format(
                        Locale.ROOT,
                        " %s %.0f (%.2f ms)",
                        e.getKey(),
                        (e.getValue()[0] - before.getOrDefault(e.getKey(), none)[0]) / p.seconds,
                        (e.getValue()[1] - before.getOrDefault(e.getKey(), none)[1])
                            / p.seconds
                            / 1000)));
    System.out.println(top);
    // Redis CPU outside the commands' own time is the cost of each round trip (wake-up, read,
    // write): what batching amortises.
    System.out.printf(
        Locale.ROOT,
        "  Redis CPU %.2f ms/s, of it inside commands %.2f ms/s; %.0f read events/s%n",
        p.redisCpuMicros / p.seconds / 1000,
        inCommands / p.seconds / 1000,
        reads / p.seconds);
    return p;
  }

  /** The server's read events so far ({@code INFO stats}: total_reads_processed). */
  private static long readEvents(RedisServerProcess server) {
    for (String line : String.valueOf(server.call("INFO", "stats")).split("\r?\n")) {
      if (line.startsWith("total_reads_processed:")) {
        return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
      }
    }
    return 0;
  }

  private static Phase measureCpu(RedisServerProcess server, int seconds) {
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    double r0 = redisCpuMicros(server);
    long j0 = os.getProcessCpuTime();
    long t0 = System.nanoTime();
    sleep(seconds);
    double r1 = redisCpuMicros(server);
    long j1 = os.getProcessCpuTime();
    double s = (System.nanoTime() - t0) / 1e9;
    return new Phase(Math.max(0, r1 - r0 - serverIdlePerSecond * s), (j1 - j0) / 1e3, s);
  }

  private static void report(String name, Phase p, int m, int b, double targetUs) {
    double perPair = p.redisCpuMicros / ((double) m * b * p.seconds);
    double nodeCore = p.jvmCpuMicros / 1e6 / p.seconds / m; // share of one core per node
    double nodeCorePer1000 = nodeCore * 1000.0 / b;
    BenchSupport.target(
        name + " Redis CPU",
        perPair <= targetUs,
        "%.2f us per (node, breaker) per second (target <= %.1f)",
        perPair,
        targetUs);
    if (name.equals("idle")) {
      BenchSupport.target(
          "idle node CPU",
          nodeCorePer1000 <= 0.01,
          "%.2f%% of a core per node with 1,000 breakers (target <= 1%%; measured %.2f%% at %d)",
          nodeCorePer1000 * 100,
          nodeCore * 100,
          b);
    } else {
      BenchSupport.info(
          name + " node CPU", "%.1f%% of a core per node (%d breakers)", nodeCore * 100, b);
    }
  }

  private static double redisCpuMicros(RedisServerProcess server) {
    double total = 0;
    for (String line : String.valueOf(server.call("INFO", "cpu")).split("\r?\n")) {
      if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) {
        total += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
      }
    }
    return total * 1e6;
  }

  private static void sleep(int seconds) {
    try {
      Thread.sleep(seconds * 1000L);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
