package io.breakerctl.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.Poll;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A dependency that stays down, for the tests of what Redis loses or rewinds: the trip that opens
 * the nodes' breaker, and callers on every node whose admitted calls fail and are timed on this
 * host's clock (which Redis shares), so a test can bound them by Redis times.
 */
final class Outage implements AutoCloseable {
  /** Host times (ms) of the calls admitted, in order. */
  final List<Long> admittedAt = new CopyOnWriteArrayList<>();

  private final AtomicBoolean running = new AtomicBoolean(true);
  private final List<Thread> threads = new ArrayList<>();

  /**
   * {@code failures} failed calls on the first node, then waits until every node sees the breaker
   * OPEN.
   */
  static void trip(List<CircuitBreaker> nodes, int failures) {
    for (int i = 0; i < failures; i++) {
      Permission p = nodes.get(0).tryAcquire();
      assertThat(p.allowed()).isTrue();
      p.onFailure(new IllegalStateException("down"), 1_000_000);
    }
    Poll.until(
        Duration.ofSeconds(5),
        "every node sees the trip",
        () -> nodes.stream().allMatch(cb -> cb.view().state() == State.OPEN));
  }

  /**
   * One caller per node, a call every 5 ms for at most {@code limit}, each admitted one failing.
   */
  static Outage callers(List<CircuitBreaker> nodes, Duration limit) {
    Outage o = new Outage();
    long end = System.nanoTime() + limit.toNanos();
    for (CircuitBreaker cb : nodes) {
      Thread t =
          new Thread(
              () -> {
                while (o.running.get() && System.nanoTime() < end) {
                  Permission p = cb.tryAcquire();
                  if (p.allowed()) {
                    o.admittedAt.add(System.currentTimeMillis());
                    p.onFailure(new IllegalStateException("still down"), 1_000);
                  }
                  Fleet.sleep(5);
                }
              });
      t.setDaemon(true);
      t.start();
      o.threads.add(t);
    }
    return o;
  }

  /** Stops the callers and waits for them (bounded). */
  @Override
  public void close() throws InterruptedException {
    running.set(false);
    for (Thread t : threads) {
      t.join(2_000);
    }
  }
}
