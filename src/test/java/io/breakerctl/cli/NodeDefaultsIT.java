package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.cli.output.BreakerDetailView;
import io.breakerctl.cli.output.BreakerView;
import io.breakerctl.cli.output.BreakerViews;
import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The threshold a fleet runs with is visible when the nodes use their registry defaults: the record
 * script stores the caller's policy as {@code nodePolicy}, {@code status} and {@code describe} show
 * it, and a node reporting other defaults shows as policy drift.
 */
@DisplayName("Registry defaults are visible in status and describe")
class NodeDefaultsIT {

  @RegisterExtension final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);

  private CircuitBreaker node(String name, int threshold, BreakerId id) {
    return redis
        .manage(
            BreakerRegistry.builder()
                .redisUri(redis.uri())
                .nodeId(name)
                .defaults(Policy.builder().failureThreshold(threshold).build())
                .flushInterval(Duration.ofMillis(100))
                .build())
        .breaker(id);
  }

  @Test
  @DisplayName("threshold 3 from the nodes' defaults; a node with threshold 7 drifts")
  void defaultsShown() {
    BreakerId id = BreakerId.parse("defaults:dep");
    RedisFleetStore store =
        redis.manage(RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build()));
    CircuitBreaker a = node("same-a", 3, id);
    CircuitBreaker b = node("same-b", 3, id);
    a.tryAcquire().onSuccess(1_000_000);
    b.tryAcquire().onSuccess(1_000_000);
    Poll.until(
        Duration.ofSeconds(3),
        "both nodes report",
        () -> StoreFutures.await(store.snapshot(id, 0)).nodes().size() == 2);
    BreakerSnapshot s = StoreFutures.await(store.snapshot(id, 0));
    BreakerView status = BreakerViews.status(s);
    assertThat(status.failures().threshold()).isEqualTo(3);
    assertThat(status.policy()).as("no warmed policy").isNull();
    assertThat(status.nodes().policyDrift()).isEmpty();
    BreakerDetailView detail = BreakerViews.detail(s);
    assertThat(detail.policy().source()).isEqualTo("node-defaults");
    assertThat(detail.policy().spec()).containsEntry("failureThreshold", 3);

    CircuitBreaker c = node("other-c", 7, id);
    c.tryAcquire().onSuccess(1_000_000);
    Poll.until(
        Duration.ofSeconds(3),
        "a node with other defaults shows as drift",
        () -> {
          BreakerView v = BreakerViews.status(StoreFutures.await(store.snapshot(id, 0)));
          return v.nodes().reporting() == 3 && !v.nodes().policyDrift().isEmpty();
        });
  }
}
