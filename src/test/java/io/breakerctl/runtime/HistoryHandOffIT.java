package io.breakerctl.runtime;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.control.ControlConfig;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.TestMongo;
import io.breakerctl.runtime.control.policy.ApplyOptions;
import io.breakerctl.runtime.control.policy.PolicyControl;
import io.breakerctl.runtime.control.policy.PolicyParser;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Transitions reach MongoDB from the node that won them; one node runs the fleet forwarder. */
@DisplayName("History hand-off and the fleet forwarder")
class HistoryHandOffIT {

  @RegisterExtension
  static final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);

  @Test
  @DisplayName(
      "a breaker with no policy in Redis resolves caller:* from the control plane, warms and adopts it")
  void policyFromControlPlane() {
    try (TestMongo mongo = TestMongo.start()) {
      ControlConfig control = mongo.database();
      try (ControlDatabase db = ControlDatabase.connect(control)) {
        new PolicyControl(db, null, Clock.systemUTC())
            .applyAll(
                PolicyParser.parse(
                    "defaults.yaml",
                    "apiVersion: breakerctl/v1\nkind: Policy\nmetadata:\n  id: 'resolve:*'\n"
                        + "spec:\n  failureThreshold: 2\n"),
                ApplyOptions.by("it", "caller default"));
      }
      BreakerRegistry node =
          BreakerRegistry.builder()
              .redisUri(redis.uri())
              .nodeId("r1")
              .controlPlane(control)
              .build();
      try (RedisFleetStore store =
          RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build())) {
        BreakerId id = BreakerId.parse("resolve:dep");
        CircuitBreaker cb = node.breaker(id);
        Poll.until(
            Duration.ofSeconds(5),
            "the node adopts resolve:* v1",
            () -> "resolve:*".equals(cb.view().policyId()));
        assertThat(cb.view().policyVersion()).isEqualTo(1);
        assertThat(cb.view().policy().failureThreshold()).isEqualTo(2);
        var warmed = StoreFutures.await(store.snapshot(id, 0)).warmedPolicy().orElseThrow();
        assertThat(warmed.policyId()).isEqualTo("resolve:*");
        assertThat(warmed.version()).isEqualTo(1);
      } finally {
        node.close();
      }
    }
  }

  @Test
  @DisplayName(
      "a won trip is stored in history, the stream cursor advances, exactly one node holds the forwarder lease")
  void handOff() {
    try (TestMongo mongo = TestMongo.start()) {
      ControlConfig control = mongo.database();
      BreakerId id = BreakerId.parse("history-node:dep");
      Policy p = Policy.builder().failureThreshold(2).open(Duration.ofSeconds(30)).build();
      List<BreakerRegistry> nodes =
          List.of(
              BreakerRegistry.builder()
                  .redisUri(redis.uri())
                  .nodeId("h1")
                  .defaults(p)
                  .controlPlane(control)
                  .build(),
              BreakerRegistry.builder()
                  .redisUri(redis.uri())
                  .nodeId("h2")
                  .defaults(p)
                  .controlPlane(control)
                  .build());
      try (ControlDatabase db = ControlDatabase.connect(control);
          RedisFleetStore store =
              RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build())) {
        CircuitBreaker cb = nodes.get(0).breaker(id);
        for (int i = 0; i < 2; i++) {
          cb.tryAcquire().onFailure(new RuntimeException("down"), 1_000_000);
        }
        Poll.until(Duration.ofSeconds(3), "the trip", () -> cb.view().state() == State.OPEN);

        Poll.until(
            Duration.ofSeconds(10),
            "the transition in MongoDB history",
            () ->
                db.collection(ControlDatabase.HISTORY)
                        .countDocuments(eq("breakerId", id.toString()))
                    == 1);
        Poll.until(
            Duration.ofSeconds(5),
            "the stream cursor to advance",
            () -> {
              var s = StoreFutures.await(store.snapshot(id, 1));
              return s.fields()
                  .getOrDefault("forwarded", "")
                  .equals(s.recentEvents().get(0).streamId());
            });

        String holder =
            StoreFutures.await(store.holdForwarderLease("probe-node", Duration.ofMillis(1)));
        assertThat(holder)
            .as("the lease is held by a node, not taken by a newcomer")
            .isIn("h1", "h2");
      } finally {
        nodes.forEach(BreakerRegistry::close);
      }
    }
  }
}
