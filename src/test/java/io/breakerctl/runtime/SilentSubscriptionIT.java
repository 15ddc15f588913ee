package io.breakerctl.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.OverrideKind;
import io.breakerctl.runtime.redis.OverrideRequest;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.runtime.redis.RedisBreakerStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import io.breakerctl.testing.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
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
      int n = nodes.size();
      AtomicLongArray firstRejection = new AtomicLongArray(n);
      ConcurrentLinkedQueue<long[]> admitted = new ConcurrentLinkedQueue<>();
      AtomicBoolean running = new AtomicBoolean(true);
      List<Thread> callers = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        int node = i;
        CircuitBreaker cb = nodes.get(i);
        Thread t =
            new Thread(
                () -> {
                  long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                  while (running.get() && System.nanoTime() < end) {
                    Permission p = cb.tryAcquire();
                    long at = System.currentTimeMillis();
                    if (p.allowed()) {
                      admitted.add(new long[] {node, at});
                      p.onSuccess(1_000);
                    } else if (firstRejection.get(node) == 0) {
                      firstRejection.set(node, at);
                    }
                    Fleet.sleep(5);
                  }
                });
        t.setDaemon(true);
        t.start();
        callers.add(t);
      }
      try (RedisBreakerStore operator =
          RedisBreakerStore.connect(StoreConfig.builder().uri(redis.uri()).build())) {
        Poll.until(
            Duration.ofSeconds(10),
            "every node admits calls",
            () -> admitted.stream().map(a -> a[0]).distinct().count() == n);
        proxy.silenceWatched();
        long forcedAt = System.currentTimeMillis();
        RedisBreakerStore.await(
            operator.override(
                id,
                new OverrideRequest(
                    OverrideKind.FORCED_OPEN, "oncall", "silent", Duration.ofMinutes(10), "c-1")));
        Poll.until(
            Duration.ofMillis(BOUND_MILLIS + 10_000),
            "every node rejects",
            () -> {
              for (int i = 0; i < n; i++) {
                if (firstRejection.get(i) == 0) {
                  return false;
                }
              }
              return true;
            });
        Fleet.sleep(500);
        running.set(false);
        for (Thread t : callers) {
          t.join(2_000);
        }
        for (int i = 0; i < n; i++) {
          long obeyedAfter = firstRejection.get(i) - forcedAt;
          System.out.printf(
              "silent subscription: node %d obeyed %d ms after the override%n", i, obeyedAfter);
          assertThat(obeyedAfter)
              .as("node %d obeys the override within checkInterval plus a read", i)
              .isLessThan(BOUND_MILLIS);
          assertThat(nodes.get(i).view().state()).isEqualTo(State.FORCED_OPEN);
          int node = i;
          assertThat(admitted.stream().filter(a -> a[0] == node && a[1] > firstRejection.get(node)))
              .as("node %d admits nothing once it obeyed", i)
              .isEmpty();
        }
      } finally {
        running.set(false);
        for (Thread t : callers) {
          t.join(2_000);
        }
      }
    }
  }
}
