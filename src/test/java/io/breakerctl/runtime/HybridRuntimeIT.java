package io.breakerctl.runtime;

import static io.breakerctl.runtime.store.StoreFutures.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.internal.RegistryInternals;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.NodeHeartbeat;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import io.breakerctl.testing.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** HYBRID nodes: propagation, policy adoption without restart, the fleet view. */
@DisplayName("HYBRID runtime: propagation, policies, fleet view")
class HybridRuntimeIT {

  @RegisterExtension
  static final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);

  private static final AtomicInteger SEQ = new AtomicInteger();
  private static RedisFleetStore store;

  @BeforeAll
  static void connect() {
    store = RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build());
  }

  @AfterAll
  static void close() {
    store.close();
  }

  private static BreakerId fresh(String name) {
    return BreakerId.parse("hybrid-" + name + ":dep-" + SEQ.incrementAndGet());
  }

  private static List<BreakerRegistry> nodes(int n, String prefix, Policy p) {
    List<BreakerRegistry> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(
          BreakerRegistry.builder()
              .redisUri(redis.uri())
              .nodeId(prefix + i)
              .defaults(p)
              .flushInterval(Duration.ofMillis(200))
              .build());
    }
    return out;
  }

  /** Milliseconds from {@code sinceMillis} until each node's view shows {@code state}. */
  private static List<Long> awaitAll(List<CircuitBreaker> breakers, State state, long sinceMillis) {
    List<Long> lags = new ArrayList<>();
    long deadline = System.nanoTime() + Duration.ofSeconds(1).toNanos();
    List<CircuitBreaker> waiting = new ArrayList<>(breakers);
    while (!waiting.isEmpty()) {
      long now = System.currentTimeMillis();
      waiting.removeIf(
          b -> {
            if (b.view().state() == state) {
              lags.add(now - sinceMillis);
              return true;
            }
            return false;
          });
      if (System.nanoTime() > deadline) {
        throw new AssertionError(waiting.size() + " nodes did not see " + state + " within 1 s");
      }
      Thread.onSpinWait();
    }
    return lags;
  }

  private static String percentiles(List<Long> lags) {
    List<Long> s = new ArrayList<>(lags);
    s.sort(null);
    return "p50="
        + s.get(s.size() / 2)
        + "ms p99="
        + s.get((int) Math.ceil(s.size() * 0.99) - 1)
        + "ms";
  }

  @Test
  @DisplayName("a trip, a recovery and an override reach all 20 HYBRID nodes within 1 s")
  void propagation() {
    BreakerId id = fresh("propagation");
    Policy p = Policy.builder().failureThreshold(5).open(Duration.ofMillis(300)).build();
    List<BreakerRegistry> fleet = nodes(20, "p", p);
    try {
      List<CircuitBreaker> breakers = fleet.stream().map(r -> r.breaker(id)).toList();
      Poll.until(
          Duration.ofSeconds(5),
          "every node has read the shared view",
          () -> breakers.stream().allMatch(b -> !b.view().generation().isEmpty()));

      long tripAt = System.currentTimeMillis();
      for (int i = 0; i < 5; i++) {
        await(store.record(id, Outcome.failure("driver", ""), p));
      }
      List<Long> trip = awaitAll(breakers, State.OPEN, tripAt);

      Poll.until(
          Duration.ofSeconds(3),
          "the window to end",
          () -> await(store.snapshot(id, 0)).effectiveState() == State.HALF_OPEN);
      var probe = await(store.acquire(id, "driver", p));
      long closeAt = System.currentTimeMillis();
      await(
          store.record(id, Outcome.probe("driver", probe.generation(), probe.leaseId(), true), p));
      List<Long> recovery = awaitAll(breakers, State.CLOSED, closeAt);

      long forceAt = System.currentTimeMillis();
      await(
          store.override(
              id,
              new OverrideRequest(
                  OverrideKind.FORCED_OPEN, "oncall", "drill", Duration.ZERO, "c1")));
      List<Long> override = awaitAll(breakers, State.FORCED_OPEN, forceAt);

      System.out.println(
          "propagation trip "
              + percentiles(trip)
              + " recovery "
              + percentiles(recovery)
              + " override "
              + percentiles(override));
      assertThat(breakers).allSatisfy(b -> assertThat(b.tryAcquire().allowed()).isFalse());
    } finally {
      fleet.forEach(BreakerRegistry::close);
    }
  }

  @Test
  @DisplayName("a policy warmed into Redis is adopted by running nodes without restart")
  void policyAdoption() {
    BreakerId id = fresh("adopt");
    List<BreakerRegistry> fleet = nodes(3, "a", Policy.DEFAULT);
    try {
      List<CircuitBreaker> breakers = fleet.stream().map(r -> r.breaker(id)).toList();
      List<CircuitEvent> adopted = new java.util.concurrent.CopyOnWriteArrayList<>();
      breakers.forEach(
          b ->
              b.onEvent(
                  e -> {
                    if (e.type() == CircuitEvent.Type.POLICY_ADOPTED) {
                      adopted.add(e);
                    }
                  }));
      Policy two = Policy.builder().failureThreshold(2).build();

      await(store.warm(id, "hybrid-adopt:*", 7, two, "ctl"));

      // a node's view runs the version just before its listeners hear of it: wait for both
      Poll.until(
          Duration.ofSeconds(3),
          "every node runs version 7 and said so",
          () ->
              breakers.stream().allMatch(b -> b.view().policyVersion() == 7)
                  && adopted.size() >= 3);
      assertThat(breakers)
          .allSatisfy(
              b -> {
                assertThat(b.view().policy()).isEqualTo(two);
                assertThat(b.view().policyId()).isEqualTo("hybrid-adopt:*");
              });
      assertThat(adopted)
          .hasSize(3)
          .allSatisfy(e -> assertThat(e.detail()).isEqualTo("hybrid-adopt:*@7"));
      Poll.until(
          Duration.ofSeconds(3),
          "heartbeats report version 7",
          () -> {
            BreakerSnapshot s = await(store.snapshot(id, 0));
            return s.nodes().size() == 3
                && s.nodes().stream().allMatch(n -> n.policyVersion() == 7);
          });
    } finally {
      fleet.forEach(BreakerRegistry::close);
    }
  }

  @Test
  @DisplayName(
      "fleet view: one node on an old policy version, one cut off from Redis, the breaker disagreeing")
  void fleetView() {
    BreakerId id = fresh("view");
    Policy p = Policy.builder().failureThreshold(3).open(Duration.ofSeconds(30)).build();
    await(store.warm(id, id.toString(), 1, p, "ctl"));
    try (TcpProxy proxy = TcpProxy.to(redis.server().port())) {
      BreakerRegistry a =
          BreakerRegistry.builder()
              .redisUri(redis.uri())
              .nodeId("view-a")
              .defaults(p)
              .flushInterval(Duration.ofMillis(100))
              .build();
      BreakerRegistry b =
          BreakerRegistry.builder()
              .redisUri(redis.uri())
              .nodeId("view-b")
              .defaults(p)
              .flushInterval(Duration.ofMillis(100))
              .refreshInterval(Duration.ofSeconds(60))
              .build();
      BreakerRegistry c =
          BreakerRegistry.builder()
              .redisUri(proxy.uri())
              .nodeId("view-c")
              .defaults(p)
              .flushInterval(Duration.ofMillis(100))
              .build();
      try {
        CircuitBreaker ba = a.breaker(id);
        CircuitBreaker bb = b.breaker(id);
        CircuitBreaker bc = c.breaker(id);
        Poll.until(
            Duration.ofSeconds(3),
            "all run version 1",
            () -> List.of(ba, bb, bc).stream().allMatch(x -> x.view().policyVersion() == 1));

        RegistryInternals.stopListening(b); // node b misses the pub/sub message
        await(store.warm(id, id.toString(), 2, p.toBuilder().failureThreshold(4).build(), "ctl"));
        Poll.until(
            Duration.ofSeconds(3),
            "nodes a and c run version 2",
            () -> ba.view().policyVersion() == 2 && bc.view().policyVersion() == 2);

        proxy.delay(Duration.ofMillis(400));
        for (int i = 0; i < 2; i++) {
          bc.tryAcquire().onFailure(new RuntimeException("down"), 1_000_000);
        }
        Poll.until(Duration.ofSeconds(5), "node c degraded (its records time out)", c::degraded);
        for (int i = 0; i < 3; i++) {
          bc.tryAcquire().onFailure(new RuntimeException("down"), 1_000_000);
        }
        Poll.until(
            Duration.ofSeconds(3),
            "node c's local breaker trips on its own",
            () -> bc.view().state() == State.OPEN);

        Poll.until(
            Duration.ofSeconds(10),
            "the stored heartbeats show the fleet",
            () -> {
              BreakerSnapshot s = await(store.snapshot(id, 0));
              var byNode = new ConcurrentHashMap<String, NodeHeartbeat>();
              s.nodes().forEach(n -> byNode.put(n.node(), n));
              return byNode.size() == 3
                  && byNode.get("view-b").policyVersion() == 1
                  && byNode.get("view-a").policyVersion() == 2
                  && byNode.get("view-c").degraded()
                  && byNode.get("view-c").state() == State.OPEN;
            });
        BreakerSnapshot s = await(store.snapshot(id, 0));
        long warmed = s.warmedPolicy().orElseThrow().version();
        assertThat(warmed).isEqualTo(2);
        assertThat(s.effectiveState()).isEqualTo(State.CLOSED);
        assertThat(s.nodes().stream().filter(n -> n.policyVersion() < warmed))
            .extracting(NodeHeartbeat::node)
            .containsExactly("view-b");
        assertThat(s.nodes().stream().filter(NodeHeartbeat::degraded))
            .extracting(NodeHeartbeat::node)
            .containsExactly("view-c");
        assertThat(s.nodes().stream().filter(n -> n.state() != s.effectiveState()))
            .as("nodes disagreeing with the shared state")
            .extracting(NodeHeartbeat::node)
            .containsExactly("view-c");
      } finally {
        a.close();
        b.close();
        c.close();
      }
    }
  }
}
