package io.breakerctl.runtime.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisClusterProcess;
import io.breakerctl.testing.RedisServerProcess;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The canary a node checks instead of every breaker's stamp while its subscription is up: stable
 * while nothing is lost, moved by a FLUSHALL on any one master, one key in each master's slots.
 */
@DisplayName("store canary: one key per master, moved by data lost without a closed connection")
class StoreCanaryIT {

  @Test
  @DisplayName("standalone: stable, then moved by FLUSHALL; every store sees the same token")
  void standalone() {
    try (RedisServerProcess redis = RedisServerProcess.start(RedisBinary.embedded());
        RedisFleetStore a =
            RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build());
        RedisFleetStore b =
            RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build())) {
      String first = StoreFutures.await(a.canary());
      assertThat(first).startsWith("standalone=");
      assertThat(StoreFutures.await(a.canary())).isEqualTo(first);
      assertThat(StoreFutures.await(b.canary())).isEqualTo(first);
      assertThat(redis.call("GET", "cb:canary")).isNotNull();

      redis.flushAll();
      String after = StoreFutures.await(b.canary());
      assertThat(after).isNotEqualTo(first);
      assertThat(StoreFutures.await(a.canary())).isEqualTo(after);
    }
  }

  @Test
  @DisplayName("cluster: one canary in each master's slots; a FLUSHALL on one master moves it")
  void cluster() {
    try (RedisClusterProcess cluster = RedisClusterProcess.start(RedisBinary.embedded());
        RedisFleetStore store =
            RedisFleetStore.connect(StoreConfig.builder().uri(cluster.uri()).build())) {
      String first = StoreFutures.await(store.canary());
      String[] parts = first.split(",");
      assertThat(parts).hasSize(3);
      Set<RedisServerProcess> owners = new HashSet<>();
      List<String> keys = store.node().canaryKeys();
      assertThat(keys).hasSize(3);
      for (String key : keys) {
        owners.add(cluster.masterFor(key));
        assertThat(cluster.masterFor(key).call("GET", key)).isNotNull();
      }
      assertThat(owners).as("one canary on each master").hasSize(3);
      assertThat(StoreFutures.await(store.canary())).isEqualTo(first);

      cluster.nodes().get(1).flushAll();
      String after = StoreFutures.await(store.canary());
      assertThat(after).isNotEqualTo(first);
      int changed = 0;
      String[] now = after.split(",");
      for (int i = 0; i < parts.length; i++) {
        changed += parts[i].equals(now[i]) ? 0 : 1;
      }
      assertThat(changed).as("only the flushed master's token moved").isEqualTo(1);
    }
  }
}
