package io.breakerctl.runtime;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import io.breakerctl.testing.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Subscriptions that stay connected and deliver nothing (issue 42: a stalled replica kept an
 * override from 4 of 6 HYBRID nodes for 25.7 s with every master healthy; the canary and the stamp
 * sweep cannot see it). Here every node's pub/sub connection goes silent at once (a proxy discards
 * what Redis sends on it while it stays open, as a stalled server does for it alone); its command
 * connection works. An operator then forces the breaker open, directly on Redis. Each node's
 * beacon, sent to itself every half checkInterval, does not come back, so within one checkInterval
 * it subscribes again and reads its breakers: every node obeys the override within the bound, and
 * no call is admitted after it. Without the beacon nothing would tell them until the sweep (10 min
 * here).
 */
@DisplayName("A silent subscription is replaced within the check interval")
class SilentSubscriptionIT {
  private static final Duration CHECK = Duration.ofSeconds(2);

  /** checkInterval, plus a resubscription and a read on a loaded machine. */
  private static final long BOUND_MILLIS = CHECK.toMillis() + 3_000;

  @RegisterExtension final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);

  @Test
  void overrideObeyedThroughSilentSubscriptions() throws Exception {
    BreakerId id = BreakerId.parse("silent:dep");
    try (TcpProxy proxy = TcpProxy.to(redis.server().port())) {
      proxy.watch("SUBSCRIBE");
      List<CircuitBreaker> nodes = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        nodes.add(
            redis
                .manage(
                    BreakerRegistry.builder()
                        .redisUri(proxy.uri())
                        .nodeId("silent-" + i)
                        .mode(Mode.HYBRID)
                        .defaults(Policy.builder().failureThreshold(5).build())
                        .checkInterval(CHECK)
                        .sweepInterval(Duration.ofMinutes(10))
                        .build())
                .breaker(id));
      }
      try (RedisFleetStore operator =
          RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build())) {
        OverrideObedience.check(nodes, id, operator, proxy::silenceWatched, BOUND_MILLIS);
      }
    }
  }
}
