package io.breakerctl.runtime;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisClusterProcess;
import io.breakerctl.testing.RedisServerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Issue 42's stall: a 3-master Cluster with replicas, HYBRID nodes, every replica stalled (SIGSTOP:
 * connections stay open, nothing is answered) while the masters are healthy. An override set then
 * was obeyed by 4 of 6 nodes only when the replicas resumed, 25.7 s later (their subscriptions sat
 * on replicas). Subscriptions now go to masters, and a silent one is replaced within checkInterval
 * ({@code SilentSubscriptionIT}): every node obeys within the bound, and none admits a call after
 * it.
 */
@DisplayName("Cluster replicas stalled: every node obeys a new override within the check interval")
class StalledReplicasIT {
  private static final Duration CHECK = Duration.ofSeconds(2);

  @Test
  void overrideObeyedWhileReplicasStall() throws Exception {
    try (RedisClusterProcess cluster =
        RedisClusterProcess.startWithReplicas(RedisBinary.embedded(), Duration.ofMillis(2000))) {
      BreakerId id = BreakerId.parse("stall:dep");
      List<BreakerRegistry> registries = new ArrayList<>();
      try (RedisFleetStore operator =
          RedisFleetStore.connect(StoreConfig.builder().uri(cluster.uri()).build())) {
        List<CircuitBreaker> nodes = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
          BreakerRegistry r =
              BreakerRegistry.builder()
                  .redisUri(cluster.uri())
                  .nodeId("stall-" + i)
                  .mode(Mode.HYBRID)
                  .defaults(Policy.builder().failureThreshold(5).build())
                  .checkInterval(CHECK)
                  .sweepInterval(Duration.ofMinutes(10))
                  .build();
          registries.add(r);
          nodes.add(r.breaker(id));
        }
        try {
          OverrideObedience.check(
              nodes,
              id,
              operator,
              () -> cluster.replicas().forEach(RedisServerProcess::suspend),
              CHECK.toMillis() + 3_000);
        } finally {
          cluster.replicas().forEach(RedisServerProcess::resume);
        }
      } finally {
        registries.forEach(BreakerRegistry::close);
      }
    }
  }
}
