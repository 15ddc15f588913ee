package io.breakerctl.runtime;

import static io.breakerctl.runtime.store.StoreFutures.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.FleetSelection;
import io.breakerctl.runtime.store.NodeHeartbeat;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisServerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The fleet view counts a node's per-breaker reports while the node is alive ({@code alive.lua},
 * one write per node per heartbeat interval), so reports need not be re-sent per breaker.
 */
@DisplayName("node liveness: reports count while their node is alive")
class NodeLivenessIT {
  private static final FleetSelection ALL = FleetSelection.ALL;

  @Test
  @DisplayName("a live node's report counts, an expired one's not, an unknown node's by its time")
  void readersApplyLiveness() throws Exception {
    try (RedisServerProcess redis = RedisServerProcess.start(RedisBinary.embedded());
        RedisFleetStore store =
            RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build())) {
      BreakerId id = BreakerId.parse("live:dep");
      for (String node : List.of("alive", "gone", "old-runtime")) {
        await(
            store.record(
                id,
                Outcome.successes(node, 1),
                Policy.DEFAULT,
                new NodeHeartbeat(node, State.CLOSED, "", 0, false, 0, "")));
      }
      await(store.alive("alive", Duration.ofMinutes(1)));
      await(store.alive("gone", Duration.ofMillis(1)));
      Thread.sleep(20);

      assertThat(await(store.snapshot(id, 0)).nodes())
          .extracting(NodeHeartbeat::node)
          .containsExactlyInAnyOrder("alive", "old-runtime");
      List<BreakerSnapshot> read = new ArrayList<>();
      store.fleet(Duration.ofSeconds(2), 100).snapshots(ALL, read::add, (i, p) -> {});
      assertThat(read).hasSize(1);
      assertThat(read.get(0).nodes())
          .extracting(NodeHeartbeat::node)
          .containsExactlyInAnyOrder("alive", "old-runtime");

      // a node that says it leaves is out at once
      await(store.alive("alive", Duration.ZERO));
      assertThat(await(store.snapshot(id, 0)).nodes())
          .extracting(NodeHeartbeat::node)
          .containsExactly("old-runtime");
    }
  }

  @Test
  @DisplayName("a registry beats once per heartbeat interval for all its breakers, leaves at close")
  void registryBeatsAndLeaves() {
    try (RedisServerProcess redis = RedisServerProcess.start(RedisBinary.embedded())) {
      BreakerRegistry r =
          BreakerRegistry.builder()
              .redisUri(redis.uri())
              .nodeId("beating")
              .mode(Mode.HYBRID)
              .heartbeatInterval(Duration.ofMillis(200))
              // the mark at close is one write bounded by this: generous, so that a starved
              // machine shows whether it is sent after every beat, not how fast it answers
              .commandTimeout(Duration.ofSeconds(2))
              .build();
      try {
        for (int i = 0; i < 20; i++) {
          r.breaker(BreakerId.parse("beat:dep" + i)).tryAcquire().onSuccess(1_000);
        }
        Poll.until(
            Duration.ofSeconds(5),
            "the first beat",
            () -> redis.call("ZSCORE", "cb:alive", "beating") != null);
        long first = Long.parseLong(String.valueOf(redis.call("ZSCORE", "cb:alive", "beating")));
        Poll.until(
            Duration.ofSeconds(5),
            "the next beat",
            () ->
                Long.parseLong(String.valueOf(redis.call("ZSCORE", "cb:alive", "beating")))
                    > first);
      } finally {
        r.close();
      }
      // marked gone: valid until a moment already past, not a beat's three intervals ahead (the
      // mark is the close's last write on its connection, after every beat)
      long until = Long.parseLong(String.valueOf(redis.call("ZSCORE", "cb:alive", "beating")));
      List<?> time = (List<?>) redis.call("TIME");
      long now =
          Long.parseLong(String.valueOf(time.get(0))) * 1000
              + Long.parseLong(String.valueOf(time.get(1))) / 1000;
      assertThat(until).as("marked gone at close (Redis now %d)", now).isLessThanOrEqualTo(now);
    }
  }

  @Test
  @DisplayName(
      "a process that reuses a node id: its predecessor's reports on breakers it never opened stop"
          + " counting at its first beat")
  void reusedNodeId() {
    try (RedisServerProcess redis = RedisServerProcess.start(RedisBinary.embedded());
        RedisFleetStore store =
            RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build())) {
      BreakerId both = BreakerId.parse("reuse:both");
      BreakerId first = BreakerId.parse("reuse:first-only");
      BreakerRegistry.Builder node =
          BreakerRegistry.builder()
              .redisUri(redis.uri())
              .nodeId("pod-0")
              .mode(Mode.HYBRID)
              .heartbeatInterval(Duration.ofMillis(200));
      BreakerRegistry before = node.build();
      try {
        for (BreakerId id : List.of(both, first)) {
          CircuitBreaker cb = before.breaker(id);
          cb.tryAcquire().onSuccess(1_000);
        }
        Poll.until(
            Duration.ofSeconds(5),
            "the first process's reports count",
            () -> reporters(store, first).equals(List.of("pod-0")));
      } finally {
        // a crash leaves the reports; a close marks the node gone, which the new beat undoes
        before.close();
      }
      BreakerRegistry after = node.build();
      try {
        CircuitBreaker cb = after.breaker(both);
        cb.tryAcquire().onSuccess(1_000);
        Poll.until(
            Duration.ofSeconds(5),
            "the new process reports on the breaker it opened",
            () -> reporters(store, both).equals(List.of("pod-0")));
        assertThat(reporters(store, first))
            .as("the predecessor's report on a breaker the new process never opened")
            .isEmpty();
        List<BreakerSnapshot> read = new ArrayList<>();
        store.fleet(Duration.ofSeconds(2), 100).snapshots(ALL, read::add, (i, p) -> {});
        assertThat(read)
            .filteredOn(s -> s.id().equals(first))
            .singleElement()
            .satisfies(s -> assertThat(s.nodes()).isEmpty());
      } finally {
        after.close();
      }
    }
  }

  private static List<String> reporters(RedisFleetStore store, BreakerId id) {
    return await(store.snapshot(id, 0)).nodes().stream().map(NodeHeartbeat::node).toList();
  }
}
