package io.breakerctl.runtime.redis;

import static io.breakerctl.runtime.store.StoreFutures.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.store.FleetCallRates;
import io.breakerctl.runtime.store.NodeCallCounts;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A node's call counts go with its liveness beat in one script on Redis Cluster (both keys in one
 * slot), are read back for the fleet with one MGET, and leave with the node.
 */
@DisplayName("call counts ride the liveness beat, on Redis Cluster")
class CallCountsIT {

  @RegisterExtension
  static final RedisExtension redis = RedisExtension.cluster(RedisBinary::embedded);

  @Test
  @DisplayName("two nodes' counts summed; a node that leaves takes its counts along")
  void countsOnCluster() {
    try (RedisFleetStore store =
        RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build())) {
      await(
          store.alive(
              "n1",
              Duration.ofMinutes(1),
              new NodeCallCounts(10_000, Map.of("a:b", new NodeCallCounts.Counts(100, 20, 10)))));
      await(
          store.alive(
              "n2",
              Duration.ofMinutes(1),
              new NodeCallCounts(5_000, Map.of("a:b", new NodeCallCounts.Counts(50, 0, 0)))));

      FleetCallRates rates = await(store.callRates());
      assertThat(rates.nodes()).isEqualTo(2);
      assertThat(rates.windowMillis()).isEqualTo(10_000);
      assertThat(rates.of("a:b")).isEqualTo(new FleetCallRates.Rates(20, 2, 1));

      await(store.alive("n2", Duration.ZERO));
      FleetCallRates after = await(store.callRates());
      assertThat(after.nodes()).isEqualTo(1);
      assertThat(after.of("a:b")).isEqualTo(new FleetCallRates.Rates(10, 2, 1));
    }
  }
}
