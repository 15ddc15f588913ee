package io.breakerctl.runtime.toolkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.CallNotPermittedException;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.CircuitEvent;
import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.Permission;
import io.breakerctl.runtime.StoreCommand;
import io.breakerctl.runtime.internal.RegistryInternals;
import io.breakerctl.runtime.metrics.BreakerMetrics;
import io.breakerctl.runtime.metrics.BreakerRegistryMetrics;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.runtime.retry.Retry;
import io.breakerctl.runtime.retry.RetryPolicy;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.StoreFault;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import io.breakerctl.testing.RedisServerProcess;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The Micrometer binder against a HYBRID breaker on a real redis-server. */
@DisplayName("Metrics of a real breaker")
class MetricsIT {

  @RegisterExtension
  static final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);

  @Test
  @DisplayName(
      "rejections equal the calls made while open, transitions match the events, probes the leases")
  void countersMatchWhatHappened() throws Exception {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    BreakerRegistry registry =
        redis.manage(
            BreakerRegistry.builder()
                .redisUri(redis.uri())
                .nodeId("metrics-node")
                .mode(Mode.HYBRID)
                .commandTimeout(Duration.ofSeconds(1))
                .defaults(
                    Policy.builder()
                        .failureThreshold(3)
                        .open(Duration.ofMillis(300))
                        .maxOpen(Duration.ofMillis(300))
                        .halfOpenPermits(1)
                        .build())
                .build());
    CircuitBreaker cb = BreakerRegistryMetrics.bind(registry, meters).breaker("metrics:payments");
    List<CircuitEvent> transitions = new CopyOnWriteArrayList<>();
    cb.onEvent(
        e -> {
          if (e.type() == CircuitEvent.Type.TRANSITION) {
            transitions.add(e);
          }
        });

    for (int i = 0; i < 5; i++) {
      cb.call(() -> "ok");
    }
    for (int i = 0; i < 3; i++) {
      callFailing(cb);
    }
    Poll.until(Duration.ofSeconds(5), "the trip", () -> cb.view().state() == State.OPEN);
    int rejected = 0;
    for (int i = 0; i < 7; i++) {
      try {
        cb.call(() -> "while open");
      } catch (CallNotPermittedException e) {
        rejected++;
      }
    }

    int probeFailures = 0;
    int probeSuccesses = 0;
    int denied = 0;
    for (boolean succeed : new boolean[] {false, true}) {
      Permission probe = awaitProbe(cb);
      Permission busy = cb.tryAcquire();
      assertThat(busy.allowed()).isFalse();
      assertThat(busy.reason().code()).isEqualTo("PROBES_BUSY");
      rejected++;
      denied++;
      if (succeed) {
        probe.onResult("recovered", 1_000_000);
        probeSuccesses++;
      } else {
        probe.onError(new IllegalStateException("still down"), 1_000_000);
        probeFailures++;
      }
      if (!succeed) {
        Poll.until(Duration.ofSeconds(5), "reopened", () -> cb.view().state() == State.OPEN);
      }
    }
    Poll.until(Duration.ofSeconds(5), "closed again", () -> cb.view().state() == State.CLOSED);
    Retry retry = Retry.of(cb, RetryPolicy.builder().budgetRatio(1).maxAttempts(2).build());
    cb.call(() -> "first attempts lend the budget");
    try {
      retry.call(
          a -> {
            throw new IllegalStateException("again " + a.number());
          });
    } catch (IllegalStateException expected) {
      // both attempts failed
    }

    assertThat(sum(meters, BreakerMetrics.REJECTIONS)).isEqualTo(rejected);
    assertThat(count(meters, BreakerMetrics.LEASE_DENIED)).isEqualTo(denied);
    assertThat(probes(meters, "failure")).isEqualTo(probeFailures);
    assertThat(probes(meters, "success")).isEqualTo(probeSuccesses);
    Map<String, Integer> byEdge = new HashMap<>();
    transitions.forEach(e -> byEdge.merge(e.from() + ">" + e.to(), 1, Integer::sum));
    Map<String, Integer> counted = new HashMap<>();
    for (Counter c : meters.find(BreakerMetrics.TRANSITIONS).counters()) {
      counted.put(c.getId().getTag("from") + ">" + c.getId().getTag("to"), (int) c.count());
    }
    assertThat(counted).isEqualTo(byEdge);
    assertThat(byEdge).containsKeys("CLOSED>OPEN", "HALF_OPEN>CLOSED");
    assertThat(timer(meters, "success")).isEqualTo(5 + 1 + 1);
    assertThat(timer(meters, "failure")).isEqualTo(3 + 1 + 2);
    assertThat(meters.get(BreakerMetrics.CALLS_ALLOWED).functionCounter().count())
        .isEqualTo(5 + 3 + 2 + 1 + 2);
    assertThat(count(meters, BreakerMetrics.RETRIES)).isEqualTo(1);
    assertThat(meters.get(BreakerMetrics.CALLS).tag("outcome", "success").timer().getId())
        .satisfies(
            id -> {
              assertThat(id.getTag("breaker")).isEqualTo("metrics:payments");
              assertThat(id.getTag("caller")).isEqualTo("metrics");
              assertThat(id.getTag("dependency")).isEqualTo("payments");
              assertThat(id.getTag("node")).isEqualTo("metrics-node");
            });
  }

  @Test
  @DisplayName(
      "Redis latency and command failures by command kind (flush, stamps, state, ...), degraded"
          + " time of the node")
  void storeMeters() throws Exception {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    RedisServerProcess own = RedisServerProcess.start(RedisBinary.embedded());
    try (BreakerRegistry registry =
        BreakerRegistry.builder()
            .redisUri(own.uri())
            .nodeId("store-meters")
            .mode(Mode.HYBRID)
            // the meters are the subject, not the timeout: with the default 50 ms a starved
            // machine's late answer degraded the node for 0.3 s before Redis was stopped, and the
            // "never degraded, no failures" checks of the healthy phase failed (twice at load 40+)
            .commandTimeout(Duration.ofSeconds(2))
            .flushInterval(Duration.ofMillis(100))
            .checkInterval(Duration.ofMillis(200))
            .sweepInterval(Duration.ofMillis(400))
            .build()) {
      CircuitBreaker cb = BreakerRegistryMetrics.bind(registry, meters).breaker("metrics:store");
      assertThat(commands(meters, "state").count()).as("the first read").isGreaterThan(0);
      for (int i = 0; i < 3; i++) {
        callFailing(cb);
      }
      Poll.until(
          Duration.ofSeconds(5),
          "3 record scripts timed",
          () -> commands(meters, "record").count() >= 3);
      cb.call(() -> "ok");
      Poll.until(
          Duration.ofSeconds(5),
          "the batched successes flushed",
          () -> commands(meters, "flush").count() > 0);
      Poll.until(
          Duration.ofSeconds(5), "a stamp sweep", () -> commands(meters, "stamps").count() > 0);
      Poll.until(
          Duration.ofSeconds(5), "a canary check", () -> commands(meters, "canary").count() > 0);
      double stateReads = commands(meters, "state").count();
      RegistryInternals.store(registry)
          .override(
              cb.id(),
              new OverrideRequest(
                  OverrideKind.FORCED_OPEN, "test", "metrics", Duration.ofMinutes(1), ""))
          .join();
      Poll.until(
          Duration.ofSeconds(5),
          "the node refreshes after the override's message",
          () -> commands(meters, "state").count() > stateReads);
      for (String kind : List.of("record", "flush", "stamps", "canary", "state")) {
        FunctionTimer t = commands(meters, kind);
        assertThat(t.totalTime(TimeUnit.NANOSECONDS)).as(kind).isPositive();
        assertThat(t.getId().getTag("node")).isEqualTo("store-meters");
      }
      // the start's warm-up (300 pipelined scripts, each within the 50 ms command timeout) is
      // counted either way: timed when it answered, a failure when a starved machine made its last
      // scripts late (the node works without it)
      FunctionTimer warmUp = commands(meters, "warm_up");
      double warmUpFailures = failures(meters, "warm_up");
      assertThat(warmUp.count() + warmUpFailures).as("the warm-up counted").isEqualTo(1);
      if (warmUp.count() == 1) {
        assertThat(warmUp.totalTime(TimeUnit.NANOSECONDS)).as("warm_up").isPositive();
      }
      assertThat(meters.find(BreakerRegistryMetrics.REDIS_COMMANDS).functionTimers())
          .extracting(t -> t.getId().getTag("command"))
          .containsExactlyInAnyOrder(
              Arrays.stream(StoreCommand.values()).map(StoreCommand::code).toArray(String[]::new));
      FunctionCounter degraded =
          meters.get(BreakerRegistryMetrics.REDIS_DEGRADED).functionCounter();
      assertThat(degraded.count()).isZero();
      assertThat(meters.find(BreakerRegistryMetrics.REDIS_DEGRADED_NOW).gauges())
          .as("one gauge per reason, all 0 while the node is up")
          .hasSize(StoreFault.values().length)
          .allSatisfy(g -> assertThat(g.value()).isZero());
      assertThat(failures(meters)).as("failures but the warm-up's").isEqualTo(warmUpFailures);

      own.close();
      Poll.until(Duration.ofSeconds(10), "the node degrades", registry::degraded);
      Poll.until(
          Duration.ofSeconds(5),
          "failed pings of the recovery check counted",
          () -> failures(meters, "ping") > 0);
      // the ping failures first: both counters grow meanwhile, and the total read after them is
      // at least what they were (the other order compared a later ping count with an older total)
      double pings = failures(meters, "ping");
      assertThat(failures(meters)).isGreaterThanOrEqualTo(pings);
      String reason = registry.degradedReason().orElseThrow();
      assertThat(reason).isIn("timeout", "unreachable");
      assertThat(
              meters
                  .get(BreakerRegistryMetrics.REDIS_DEGRADED_NOW)
                  .tag("reason", reason)
                  .gauge()
                  .value())
          .as("the degraded gauge of the reason")
          .isEqualTo(1);
      assertThat(meters.find(BreakerRegistryMetrics.REDIS_DEGRADED_NOW).gauges())
          .as("only one reason at a time")
          .filteredOn(g -> g.value() == 1)
          .hasSize(1);
      double first = degraded.count();
      Thread.sleep(100);
      assertThat(degraded.count()).isGreaterThan(first);
    } finally {
      own.close();
    }
  }

  private static FunctionTimer commands(SimpleMeterRegistry meters, String kind) {
    return meters.get(BreakerRegistryMetrics.REDIS_COMMANDS).tag("command", kind).functionTimer();
  }

  private static double failures(SimpleMeterRegistry meters, String kind) {
    return meters
        .get(BreakerRegistryMetrics.REDIS_FAILURES)
        .tag("command", kind)
        .functionCounter()
        .count();
  }

  private static double failures(SimpleMeterRegistry meters) {
    return meters.find(BreakerRegistryMetrics.REDIS_FAILURES).functionCounters().stream()
        .mapToDouble(FunctionCounter::count)
        .sum();
  }

  private static Permission awaitProbe(CircuitBreaker cb) {
    Permission[] got = new Permission[1];
    Poll.until(
        Duration.ofSeconds(5),
        "a probe lease",
        () -> {
          if (cb.view().state() == State.OPEN) {
            return false; // an acquire now would be a rejection the test does not count
          }
          Permission p = cb.tryAcquire();
          got[0] = p;
          return p.allowed();
        });
    assertThat(got[0].lease()).isNotEmpty();
    return got[0];
  }

  private static void callFailing(CircuitBreaker cb) {
    try {
      cb.call(
          () -> {
            throw new IllegalStateException("down");
          });
    } catch (IllegalStateException expected) {
      // counted
    }
  }

  private static double sum(SimpleMeterRegistry meters, String name) {
    return meters.find(name).counters().stream().mapToDouble(Counter::count).sum();
  }

  private static double count(SimpleMeterRegistry meters, String name) {
    return meters.get(name).counter().count();
  }

  private static double probes(SimpleMeterRegistry meters, String outcome) {
    return meters.get(BreakerMetrics.PROBES).tag("outcome", outcome).counter().count();
  }

  private static long timer(SimpleMeterRegistry meters, String outcome) {
    return meters.get(BreakerMetrics.CALLS).tag("outcome", outcome).timer().count();
  }
}
