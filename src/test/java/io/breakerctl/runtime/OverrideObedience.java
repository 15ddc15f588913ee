package io.breakerctl.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.StoreFutures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Whether every node obeys an operator's FORCED_OPEN within a bound after a fault: callers on every
 * node (a working dependency, a call every 5 ms, timed on this host's clock) until each node has
 * rejected once; then each node's first rejection must come within the bound of the override, and
 * no node admits a call after its first rejection.
 */
final class OverrideObedience {
  private OverrideObedience() {}

  /**
   * Starts the callers, waits until every node admits, runs {@code fault}, forces {@code id} open
   * through {@code operator} and checks the bound ({@code boundMillis} from the override).
   */
  static void check(
      List<CircuitBreaker> nodes,
      BreakerId id,
      RedisFleetStore operator,
      Runnable fault,
      long boundMillis)
      throws InterruptedException {
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
                long end = System.nanoTime() + Duration.ofSeconds(90).toNanos();
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
    try {
      Poll.until(
          Duration.ofSeconds(10),
          "every node admits calls",
          () -> admitted.stream().map(a -> a[0]).distinct().count() == n);
      fault.run();
      long forcedAt = System.currentTimeMillis();
      StoreFutures.await(
          operator.override(
              id,
              new OverrideRequest(
                  OverrideKind.FORCED_OPEN, "oncall", "obey", Duration.ofMinutes(10), "c-1")));
      Poll.until(
          Duration.ofMillis(boundMillis + 10_000),
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
        System.out.printf("node %d obeyed %d ms after the override%n", i, obeyedAfter);
        assertThat(obeyedAfter)
            .as("node %d obeys the override within %d ms", i, boundMillis)
            .isLessThan(boundMillis);
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
