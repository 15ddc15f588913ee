package io.breakerctl.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Epoch;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;
import io.breakerctl.runtime.model.Transitions;
import io.breakerctl.runtime.redis.BreakerKeys;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.BreakerEvent;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import io.breakerctl.testing.RedisServerProcess;
import io.breakerctl.testing.SideBySide;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RestoreArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A failover must not undo a trip: Redis that comes back behind the nodes (a promoted replica that
 * missed the write, simulated with DUMP before the trip and RESTORE after it; a FLUSHALL) gets the
 * trip or the override back from the nodes through {@code reassert.lua}, and no node admits a call
 * meanwhile. The 20 flushes at a window's end run in 4 lanes side by side, each lane on its own
 * redis-server with its own nodes, so a round's flush only ever hits its own round.
 */
@DisplayName("Redis behind the nodes: the trip or override is re-asserted")
class FailoverIT {

  @RegisterExtension final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);

  private static final Policy POLICY =
      Policy.builder().failureThreshold(5).open(Duration.ofSeconds(20)).build();

  private List<CircuitBreaker> nodes(BreakerId id, int n) {
    List<CircuitBreaker> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(
          redis
              .manage(
                  BreakerRegistry.builder()
                      .redisUri(redis.uri())
                      .nodeId("failover-" + i)
                      .defaults(POLICY)
                      .commandTimeout(Duration.ofMillis(500))
                      .refreshInterval(Duration.ofMillis(500))
                      .checkInterval(Duration.ofMillis(500))
                      // the RESTORE below stands in for a replica's older copy in place: no
                      // connection closes and the canary stays, so the sweep is what finds it
                      .sweepInterval(Duration.ofMillis(500))
                      .flushInterval(Duration.ofMillis(200))
                      .build())
              .breaker(id));
    }
    return out;
  }

  /** Calls on every node until stopped, counting admitted calls (the dependency fails). */
  private static final class Callers implements AutoCloseable {
    final AtomicLong admitted = new AtomicLong();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> threads = new ArrayList<>();

    Callers(List<CircuitBreaker> nodes) {
      for (CircuitBreaker cb : nodes) {
        Thread t =
            new Thread(
                () -> {
                  long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                  while (running.get() && System.nanoTime() < end) {
                    Permission p = cb.tryAcquire();
                    if (p.allowed()) {
                      admitted.incrementAndGet();
                      p.onFailure(new IllegalStateException("down"), 1_000_000);
                    }
                    Fleet.sleep(2);
                  }
                });
        t.setDaemon(true);
        t.start();
        threads.add(t);
      }
    }

    @Override
    public void close() throws InterruptedException {
      running.set(false);
      for (Thread t : threads) {
        t.join(2000);
      }
    }
  }

  @Test
  @DisplayName("DUMP before a trip, RESTORE after it: OPEN again within 2 s, no call admitted")
  void restoredReplica() throws Exception {
    BreakerId id = BreakerId.parse("failover:restored");
    BreakerKeys keys = BreakerKeys.withPrefix("cb");
    List<CircuitBreaker> nodes = nodes(id, 3);
    RedisClient raw = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<byte[], byte[]> bin = raw.connect(ByteArrayCodec.INSTANCE);
        RedisFleetStore store =
            RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build())) {
      // the keys exist, CLOSED: what the replica will have
      Permission p = nodes.get(0).tryAcquire();
      p.onSuccess(1_000_000);
      Poll.until(
          Duration.ofSeconds(3),
          "the breaker's keys exist",
          () -> StoreFutures.await(store.state(id)).exists());
      Map<String, byte[]> dumped = new LinkedHashMap<>();
      for (String k : List.of(keys.hash(id), keys.events(id), keys.leases(id))) {
        byte[] d = bin.sync().dump(k.getBytes(StandardCharsets.UTF_8));
        dumped.put(k, d);
      }
      String epoch = StoreFutures.await(store.state(id)).epoch();
      // what the dump holds, so what a promoted replica that missed the trip holds: read here, not
      // after the RESTORE, where a node's next flush may already have put the trip back
      assertThat(StoreFutures.await(store.state(id)).storedState())
          .as("the dumped (replica's) state")
          .isEqualTo(State.CLOSED);

      for (int i = 0; i < 5; i++) {
        nodes.get(i % 3).tryAcquire().onFailure(new IllegalStateException("down"), 1_000_000);
      }
      Poll.until(
          Duration.ofSeconds(3),
          "every node sees the trip",
          () -> nodes.stream().allMatch(cb -> cb.view().state() == State.OPEN));
      long tripGeneration = StoreFutures.await(store.state(id)).number("generation");

      try (Callers callers = new Callers(nodes)) {
        Fleet.sleep(300);
        long before = callers.admitted.get();
        for (Map.Entry<String, byte[]> e : dumped.entrySet()) {
          byte[] key = e.getKey().getBytes(StandardCharsets.UTF_8);
          if (e.getValue() == null) {
            bin.sync().del(key);
          } else {
            bin.sync().restore(key, e.getValue(), RestoreArgs.Builder.ttl(0).replace());
          }
        }
        long restoredAt = System.currentTimeMillis();
        Poll.until(
            Duration.ofSeconds(2),
            "Redis holds OPEN again",
            () -> StoreFutures.await(store.state(id)).effectiveState() == State.OPEN);
        System.out.printf(
            "failover: OPEN again %d ms after the RESTORE%n",
            System.currentTimeMillis() - restoredAt);
        Fleet.sleep(500);
        assertThat(callers.admitted.get() - before)
            .as("no node admitted a call while Redis was behind")
            .isZero();
      }
      var after = StoreFutures.await(store.state(id));
      assertThat(Epoch.before(epoch, after.epoch()))
          .as(
              "a new epoch (%s after %s): generations issued before the replica went back never"
                  + " match again",
              after.epoch(), epoch)
          .isTrue();
      assertThat(after.number("generation")).isGreaterThan(tripGeneration);
      List<BreakerEvent> events = StoreFutures.await(store.eventsAfter(id, "", 100));
      assertThat(events)
          .extracting(BreakerEvent::cause)
          .containsOnlyOnce(TransitionCause.REASSERTED);
      for (BreakerEvent e : events) {
        assertThat(Transitions.isLegal(e.from(), e.to(), e.cause())).as("event %s", e).isTrue();
      }
    } finally {
      raw.shutdown();
    }
  }

  @Test
  @DisplayName("FLUSHALL under nodes that hold an override: back within 2 s, new epoch, no call")
  void flushedOverride() throws Exception {
    BreakerId id = BreakerId.parse("failover:flushed");
    List<CircuitBreaker> nodes = nodes(id, 3);
    try (RedisFleetStore store =
        RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build())) {
      StoreFutures.await(
          store.override(
              id,
              new OverrideRequest(
                  OverrideKind.FORCED_OPEN, "oncall", "incident 7", Duration.ofMinutes(5), "c-7")));
      Poll.until(
          Duration.ofSeconds(3),
          "every node sees the override",
          () -> nodes.stream().allMatch(cb -> cb.view().state() == State.FORCED_OPEN));
      var before = StoreFutures.await(store.state(id));
      try (Callers callers = new Callers(nodes)) {
        Fleet.sleep(200);
        redis.server().flushAll();
        long flushedAt = System.currentTimeMillis();
        Poll.until(
            Duration.ofSeconds(2),
            "the override is back",
            () -> StoreFutures.await(store.state(id)).override().isPresent());
        System.out.printf(
            "flush: override back %d ms after FLUSHALL%n", System.currentTimeMillis() - flushedAt);
        Fleet.sleep(500);
        assertThat(callers.admitted.get()).as("no call admitted").isZero();
      }
      var after = StoreFutures.await(store.state(id));
      assertThat(after.effectiveState()).isEqualTo(State.FORCED_OPEN);
      assertThat(after.epoch()).as("a new incarnation").isNotEqualTo(before.epoch());
      assertThat(after.number("overrideUntil")).isEqualTo(before.number("overrideUntil"));
      assertThat(after.fields().get("overrideActor")).isEqualTo("oncall");
      assertThat(after.fields().get("overrideReason")).isEqualTo("incident 7");
      List<BreakerEvent> events = StoreFutures.await(store.eventsAfter(id, "", 100));
      assertThat(events)
          .filteredOn(e -> e.cause() == TransitionCause.REASSERTED)
          .singleElement()
          .satisfies(e -> assertThat(e.field("lostEpoch")).isEqualTo(before.epoch()));
    }
  }

  /** The lanes {@link #flushAtWindowEnd} runs side by side, each on its own redis-server. */
  private static final int LANES = 4;

  @Test
  @DisplayName(
      "FLUSHALL at an open window's end, 20 times: at most one probe reaches the dependency")
  void flushAtWindowEnd() throws Exception {
    Policy policy =
        Policy.builder()
            .failureThreshold(2)
            .open(Duration.ofMillis(600))
            .halfOpenPermits(1)
            .probeLease(Duration.ofSeconds(30))
            .build();
    // the 20 rounds in 4 lanes side by side (round r in lane r % 4), each lane with its own
    // redis-server, so that one lane's FLUSHALL never lands in another's round, and its own 3 nodes
    List<RedisServerProcess> servers = new ArrayList<>();
    servers.add(redis.server());
    for (int lane = 1; lane < LANES; lane++) {
      servers.add(redis.manage(RedisServerProcess.start(redis.binary())));
    }
    AtomicLong probes = new AtomicLong();
    SideBySide.each(
        java.util.stream.IntStream.range(0, LANES).boxed().toList(),
        lane -> {
          RedisServerProcess server = servers.get(lane);
          List<BreakerRegistry> registries = new ArrayList<>();
          for (int i = 0; i < 3; i++) {
            registries.add(
                redis.manage(
                    BreakerRegistry.builder()
                        .redisUri(server.uri())
                        .nodeId("window-end-" + i)
                        .defaults(policy)
                        .commandTimeout(Duration.ofMillis(500))
                        .refreshInterval(Duration.ofMillis(500))
                        .checkInterval(Duration.ofMillis(500))
                        .build()));
          }
          RedisFleetStore store =
              redis.manage(
                  RedisFleetStore.connect(StoreConfig.builder().uri(server.uri()).build()));
          for (int round = lane; round < 20; round += LANES) {
            probes.addAndGet(flushRound(server, store, registries, round));
          }
        });
    assertThat(probes.get()).as("probes over 20 rounds (the half-open window probes)").isPositive();
  }

  /** One round of {@link #flushAtWindowEnd}: the calls that reached the dependency (0 or 1). */
  private static int flushRound(
      RedisServerProcess server, RedisFleetStore store, List<BreakerRegistry> registries, int round)
      throws Exception {
    BreakerId id = BreakerId.parse("failover:window-end-" + round);
    List<CircuitBreaker> nodes = registries.stream().map(r -> r.breaker(id)).toList();
    Outage.trip(nodes, 2);
    long until = StoreFutures.await(store.state(id)).number("openUntil");
    // the flush lands from 300 ms before the window's end up to its end, a step per round
    long flushAt = until - 300 + round * 15L;
    List<Permission> held = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (HeldCallers callers = new HeldCallers(nodes, held)) {
      Fleet.sleep(Math.max(0, flushAt - System.currentTimeMillis()));
      server.flushAll();
      Fleet.sleep(Math.max(0, until - System.currentTimeMillis()) + 900);
    }
    assertThat(held)
        .as("round %d: calls that reached the dependency across the flush", round)
        .hasSizeLessThanOrEqualTo(1);
    held.forEach(p -> p.onFailure(new IllegalStateException("down"), 1_000_000));
    return held.size();
  }

  /** Calls on every node until closed; an admitted call is held (it reaches the dependency). */
  private static final class HeldCallers implements AutoCloseable {
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> threads = new ArrayList<>();

    HeldCallers(List<CircuitBreaker> nodes, List<Permission> held) {
      for (CircuitBreaker cb : nodes) {
        for (int t = 0; t < 2; t++) {
          Thread thread =
              new Thread(
                  () -> {
                    long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                    while (running.get() && System.nanoTime() < end) {
                      Permission p = cb.tryAcquire();
                      if (p.allowed()) {
                        held.add(p);
                      }
                      Fleet.sleep(2);
                    }
                  });
          thread.setDaemon(true);
          thread.start();
          threads.add(thread);
        }
      }
    }

    @Override
    public void close() throws InterruptedException {
      running.set(false);
      for (Thread t : threads) {
        t.join(2000);
      }
    }
  }

  @Test
  @DisplayName(
      "FLUSHALL under three nodes running policy v6: reports, liveness and v6 back within 5 s")
  void flushedFleetView() throws Exception {
    BreakerId id = BreakerId.parse("failover:fleet-view");
    try (RedisFleetStore store =
        RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build())) {
      StoreFutures.await(store.warm(id, id.toString(), 6, POLICY, "ci"));
      List<CircuitBreaker> nodes = nodes(id, 3);
      Poll.until(
          Duration.ofSeconds(5), "three nodes report v6", () -> liveReports(store, id, 6) == 3);
      redis.server().flushAll();
      long flushedAt = System.currentTimeMillis();
      Poll.until(
          Duration.ofSeconds(5),
          "three live nodes report v6 again, and the keys hold v6",
          () ->
              liveReports(store, id, 6) == 3
                  && StoreFutures.await(store.state(id))
                      .warmedPolicy()
                      .map(w -> w.version() == 6)
                      .orElse(false));
      System.out.printf(
          "flush: fleet view back %d ms after FLUSHALL%n", System.currentTimeMillis() - flushedAt);
      assertThat(nodes).allSatisfy(cb -> assertThat(cb.view().state()).isEqualTo(State.CLOSED));
    }
  }

  /** Reports of {@code version} from nodes alive now. */
  private static long liveReports(RedisFleetStore store, BreakerId id, long version) {
    var snap = StoreFutures.await(store.snapshot(id, 0));
    var alive = StoreFutures.await(store.liveness());
    return alive.live(snap.nodes(), System.currentTimeMillis()).stream()
        .filter(n -> n.policyVersion() == version)
        .count();
  }
}
