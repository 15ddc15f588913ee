package io.breakerctl.runtime;

import io.breakerctl.runtime.redis.StoreUnavailableException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The small breaker around the coordinator: after {@link #TRIP_AFTER} consecutive unavailable
 * answers from Redis (each bounded by the command timeout) the node is degraded, and no call waits
 * on Redis until a background check sees it answer again.
 */
final class StoreGuard {
  /**
   * Consecutive unavailable answers that mark Redis as down. Refused connections fail at once, so a
   * dead Redis is detected within three calls; a single slow answer on a CPU-starved machine does
   * not degrade the node.
   */
  static final int TRIP_AFTER = 3;

  private final AtomicBoolean down = new AtomicBoolean();
  private final AtomicInteger consecutive = new AtomicInteger();
  private final Runnable onDown;

  StoreGuard(Runnable onDown) {
    this.onDown = onDown;
  }

  boolean up() {
    return !down.get();
  }

  void success() {
    consecutive.set(0);
  }

  void failure(Throwable t) {
    Throwable e = t;
    while (e != null && !(e instanceof StoreUnavailableException)) {
      e = e.getCause();
    }
    if (e == null) {
      return;
    }
    if (consecutive.incrementAndGet() >= TRIP_AFTER) {
      trip();
    }
  }

  void trip() {
    if (down.compareAndSet(false, true)) {
      onDown.run();
    }
  }

  /** Marks Redis reachable again; true when it was down. */
  boolean recover() {
    consecutive.set(0);
    return down.compareAndSet(true, false);
  }
}
