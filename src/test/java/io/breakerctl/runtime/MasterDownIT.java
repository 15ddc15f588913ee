package io.breakerctl.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.BreakerKeys;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisClusterProcess;
import io.breakerctl.testing.RedisServerProcess;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Degradation per master: a 3-master Redis Cluster ({@code cluster-require-full-coverage no}, so
 * the two others keep serving their slots), 3 SHARED nodes, one breaker on the master that is
 * SIGKILLed and one on a healthy master. Each node's breaker on the dead master is degraded; the
 * breaker on the healthy master is not, and when its dependency fails the fleet trips on it after
 * {@code threshold} failures in total: at most {@code threshold} + the failures in flight (7) calls
 * reach it, where a node degraded as a whole lets each node trip on its own ({@code threshold x
 * nodes}, 15).
 */
@DisplayName("One Cluster master dead: breakers on the other masters keep deciding shared")
class MasterDownIT {

  private static final int THRESHOLD = 5;
  private static final int NODES = 3;

  @Test
  @DisplayName("its breakers degrade, the others trip fleet-wide after threshold calls in total")
  void perMaster() {
    try (RedisClusterProcess cluster = RedisClusterProcess.start(RedisBinary.embedded())) {
      for (RedisServerProcess n : cluster.nodes()) {
        n.call("CONFIG", "SET", "cluster-require-full-coverage", "no");
      }
      RedisServerProcess doomed = cluster.nodes().get(0);
      BreakerId onDead = idOn(cluster, doomed, "master-down:dead");
      BreakerId onLive = idOn(cluster, cluster.nodes().get(1), "master-down:live");
      List<BreakerRegistry> registries = new ArrayList<>();
      List<CircuitBreaker> dead = new ArrayList<>();
      List<CircuitBreaker> live = new ArrayList<>();
      try {
        // built side by side: each connects to every master and warms its message path (about
        // 2 s here, one after the other)
        registries.addAll(
            java.util.stream.IntStream.range(0, NODES)
                .parallel()
                .mapToObj(
                    i ->
                        BreakerRegistry.builder()
                            .redisUri(cluster.uri())
                            .nodeId("md-" + i)
                            .mode(Mode.SHARED)
                            .defaults(Policy.builder().failureThreshold(THRESHOLD).build())
                            // long enough that a loaded machine's slow answer from a healthy
                            // master is not taken for a dead one
                            .commandTimeout(Duration.ofMillis(250))
                            .connectTimeout(Duration.ofSeconds(2))
                            .build())
                .toList());
        for (BreakerRegistry r : registries) {
          dead.add(r.breaker(onDead));
          live.add(r.breaker(onLive));
        }
        for (int i = 0; i < NODES; i++) {
          dead.get(i).tryAcquire().onSuccess(1_000_000);
          live.get(i).tryAcquire().onSuccess(1_000_000);
        }
        doomed.kill();
        Poll.until(
            Duration.ofSeconds(20),
            "every node's breaker on the dead master is degraded",
            () -> {
              boolean all = true;
              for (CircuitBreaker cb : dead) {
                Permission p = cb.tryAcquire();
                if (p.allowed()) {
                  p.onSuccess(1_000_000);
                }
                all &= cb.view().degraded();
              }
              return all;
            });
        int reached = 0;
        for (int round = 0; round < 10; round++) {
          for (CircuitBreaker cb : live) {
            Permission p = cb.tryAcquire();
            if (p.allowed()) {
              reached++;
              p.onFailure(new IOException("the dependency is down"), 1_000_000);
            }
          }
        }
        for (int i = 0; i < NODES; i++) {
          assertThat(registries.get(i).degraded())
              .as("node %d is degraded (a master is dead)", i)
              .isTrue();
          assertThat(live.get(i).view().degraded())
              .as("node %d's breaker on a healthy master is not", i)
              .isFalse();
        }
        // A failure is recorded without waiting (SHARED sends it at once, the call does not wait
        // for the answer), and each node has its own connection: when a node asks to admit, each
        // other node may have one failure on its way (its earlier ones were answered before its
        // next admission, on the same connection). So threshold + (nodes - 1) in flight, 7; a node
        // degraded as a whole trips on its own: threshold x nodes, 15.
        assertThat(reached)
            .as("calls that reached the failing dependency behind the healthy master")
            .isLessThanOrEqualTo(THRESHOLD + NODES - 1);
        try (RedisFleetStore store =
            RedisFleetStore.connect(
                StoreConfig.builder()
                    .uri(cluster.nodes().get(1).uri() + "," + cluster.nodes().get(2).uri())
                    .build())) {
          assertThat(StoreFutures.await(store.state(onLive)).effectiveState())
              .as("the fleet tripped it in Redis")
              .isEqualTo(State.OPEN);
        }
      } finally {
        registries.forEach(BreakerRegistry::close);
      }
    }
  }

  /** The first {@code base-N} whose keys live on {@code master}. */
  private static BreakerId idOn(
      RedisClusterProcess cluster, RedisServerProcess master, String base) {
    BreakerKeys keys = BreakerKeys.withPrefix("cb");
    for (int n = 0; n < 10_000; n++) {
      BreakerId id = BreakerId.parse(base + "-" + n);
      if (cluster.masterFor(keys.hash(id)) == master) {
        return id;
      }
    }
    throw new IllegalStateException("no id of " + base + " on " + master);
  }
}
