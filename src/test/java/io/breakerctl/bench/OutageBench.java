package io.breakerctl.bench;

import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.Permission;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisServerProcess;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Benchmark (not a test; {@code scripts/bench outage}): what losing Redis costs the nodes. {@code
 * --nodes} HYBRID registries (20, each its own connections; default options) in this JVM, each
 * calling its breaker every 2 ms; the JVM's CPU time (OperatingSystemMXBean) is measured over 0.5 s
 * windows: steady state, the 0.5 s right after redis-server is SIGKILLed, and the degraded steady
 * state a few seconds later; also how long until every node counted as degraded. Target: the first
 * 0.5 s after the kill costs at most 2x the steady state (reconnects back off with jitter and are
 * logged once, not per attempt). Options: {@code --redis PATH}, {@code --nodes N}.
 */
public final class OutageBench {
  private OutageBench() {}

  /** Runs the benchmark. */
  public static void main(String[] args) throws Exception {
    String[] redis = {null};
    int[] nodes = {20};
    int[] warmOutages = {1};
    BenchSupport.parse(
        args,
        (a, v) -> {
          switch (a) {
            case "--redis" -> redis[0] = v;
            case "--nodes" -> nodes[0] = BenchSupport.positive(a, v, 1);
            case "--warm-outages" -> warmOutages[0] = BenchSupport.positive(a, v, 0);
            default -> {
              return false;
            }
          }
          return true;
        });
    RedisBinary binary = BenchSupport.binary(redis[0]);
    BenchSupport.header("outage", binary, redis[0] != null);
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    List<BreakerRegistry> registries = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    AtomicBoolean running = new AtomicBoolean(true);
    try (RedisServerProcess server = RedisServerProcess.start(binary)) {
      BreakerId id = BreakerId.parse("bench:outage");
      List<CircuitBreaker> breakers = new ArrayList<>();
      for (int i = 0; i < nodes[0]; i++) {
        BreakerRegistry r =
            BreakerRegistry.builder()
                .redisUri(server.uri())
                .nodeId("outage-" + i)
                .mode(Mode.HYBRID)
                .build();
        registries.add(r);
        breakers.add(r.breaker(id));
      }
      for (CircuitBreaker cb : breakers) {
        Thread t =
            new Thread(
                () -> {
                  long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                  while (running.get() && System.nanoTime() < end) {
                    Permission p = cb.tryAcquire();
                    if (p.allowed()) {
                      p.onSuccess(100_000);
                    }
                    sleep(2);
                  }
                });
        t.setDaemon(true);
        t.start();
        threads.add(t);
      }
      sleep(3000); // warm
      for (int w = 0; w < warmOutages[0]; w++) {
        server.kill();
        waitFor(() -> registries.stream().allMatch(BreakerRegistry::degraded));
        server.restart();
        waitFor(() -> registries.stream().noneMatch(BreakerRegistry::degraded));
        sleep(2000);
      }
      double steady = window(os, 4);
      long killed = System.nanoTime();
      server.kill();
      double afterKill = window(os, 1);
      long allDegraded = -1;
      long limit = killed + Duration.ofSeconds(5).toNanos();
      while (System.nanoTime() < limit) {
        if (registries.stream().allMatch(BreakerRegistry::degraded)) {
          allDegraded = (System.nanoTime() - killed) / 1_000_000;
          break;
        }
        sleep(5);
      }
      sleep(2000);
      double degraded = window(os, 4);
      System.out.printf(
          Locale.ROOT,
          "%d HYBRID nodes calling every 2 ms; JVM CPU per 0.5 s (ms of CPU time):%n"
              + "  steady %.1f, first 0.5 s after the kill %.1f (%.2fx), degraded steady %.1f"
              + " (%.2fx)%n  every node degraded %d ms after the kill%n",
          nodes[0],
          steady,
          afterKill,
          afterKill / steady,
          degraded,
          degraded / steady,
          allDegraded);
    } finally {
      running.set(false);
      for (Thread t : threads) {
        t.join(1000);
      }
      registries.forEach(BreakerRegistry::close);
    }
  }

  private static void waitFor(java.util.function.BooleanSupplier condition) {
    long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (!condition.getAsBoolean() && System.nanoTime() < end) {
      sleep(10);
    }
  }

  /** Average CPU ms of this JVM per 0.5 s over {@code n} consecutive windows. */
  private static double window(com.sun.management.OperatingSystemMXBean os, int n) {
    long start = os.getProcessCpuTime();
    sleep(500L * n);
    return (os.getProcessCpuTime() - start) / 1e6 / n;
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
