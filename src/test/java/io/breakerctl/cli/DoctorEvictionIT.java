package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.MemoryMongo;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code doctor}'s eviction check against a real redis-server configured each way: with {@code
 * maxmemory} set, every policy but {@code noeviction} can evict breaker keys (an evicted tripped
 * breaker reads as CLOSED), so doctor fails naming the policy and the fix; {@code noeviction}, or
 * no {@code maxmemory}, passes.
 */
@DisplayName("doctor fails on a Redis that may evict breaker keys")
class DoctorEvictionIT {
  @RegisterExtension final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);
  @TempDir Path home;
  @RegisterExtension final MemoryMongo mongo = new MemoryMongo();

  private InProcessRun doctor() {
    return InProcessRun.breakerctl(home, redis.uri(), mongo.uri(), "doctor");
  }

  @Test
  void evictingPoliciesFail() {
    InProcessRun unlimited = doctor();
    assertThat(unlimited.code()).as(unlimited.out() + unlimited.err()).isZero();
    assertThat(unlimited.out()).containsPattern("ok +eviction +no master evicts keys");

    redis.server().call("CONFIG", "SET", "maxmemory", "64mb");
    for (String policy : new String[] {"allkeys-lru", "volatile-lru", "allkeys-lfu"}) {
      redis.server().call("CONFIG", "SET", "maxmemory-policy", policy);
      InProcessRun evicting = doctor();
      assertThat(evicting.code()).as(policy + ": " + evicting.out()).isEqualTo(1);
      assertThat(evicting.out())
          .containsPattern("fail +eviction +:\\d+: maxmemory-policy " + policy)
          .contains("set maxmemory-policy noeviction, or give breakerctl a Redis of its own");
      assertThat(nodeSees())
          .as("what a node logs at start under " + policy)
          .hasValueSatisfying(m -> assertThat(m).startsWith("maxmemory-policy " + policy));
    }
    redis.server().call("CONFIG", "SET", "maxmemory-policy", "noeviction");
    InProcessRun safe = doctor();
    assertThat(safe.code()).as(safe.out() + safe.err()).isZero();
    assertThat(safe.out()).containsPattern("ok +eviction");
    assertThat(nodeSees()).isEmpty();
  }

  /** What the runtime's start-up check finds (one CONFIG GET). */
  private java.util.Optional<String> nodeSees() {
    try (RedisFleetStore store =
        RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build())) {
      return StoreFutures.await(store.evictionRisk());
    }
  }
}
