package io.breakerctl.runtime.retry;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Retries at most {@code ratio} times the first attempts seen over a sliding window (ten buckets),
 * on this node only: a fleet whose dependency fails sends at most {@code (1 + ratio)} times its
 * first attempts. Counting a first attempt is an array increment; a retry takes a short lock.
 *
 * <p>While the node is degraded (Redis cannot coordinate, the node decides alone), the budget is
 * earned only by the first attempts made since the degradation began: the window is emptied when
 * the first retry of an episode asks. Otherwise the healthy traffic of the minute before an outage
 * (thousands of successful first attempts) pays for retries against a dependency that started
 * failing at the same moment, while the fleet cannot coordinate a trip: a fleet with Redis stopped
 * sent 1.7-1.8x its first attempts with a ratio of 0.2. Once the node recovers the window keeps
 * what it counted and slides on.
 */
public final class RetryBudget {
  private static final int BUCKETS = 10;

  private final double ratio;
  private final long bucketNanos;
  private final AtomicLongArray firsts = new AtomicLongArray(BUCKETS);
  private final AtomicLongArray retries = new AtomicLongArray(BUCKETS);
  private final AtomicLongArray stamps = new AtomicLongArray(BUCKETS);

  /** A budget of {@code ratio} retries per first attempt over {@code windowNanos}. */
  RetryBudget(double ratio, long windowNanos) {
    this.ratio = ratio;
    this.bucketNanos = Math.max(1, windowNanos / BUCKETS);
    long now = bucket();
    for (int i = 0; i < BUCKETS; i++) {
      stamps.set(i, now);
    }
  }

  private long bucket() {
    return System.nanoTime() / bucketNanos;
  }

  private int slot(long bucket) {
    return (int) Math.floorMod(bucket, (long) BUCKETS);
  }

  /** Counts a first attempt. */
  void first() {
    long b = bucket();
    int i = slot(b);
    if (stamps.get(i) != b) {
      roll(i, b);
    }
    firsts.incrementAndGet(i);
  }

  private synchronized void roll(int i, long b) {
    if (stamps.get(i) != b) {
      firsts.set(i, 0);
      retries.set(i, 0);
      stamps.set(i, b);
    }
  }

  /** Whether the last retry asked while the node was degraded (guarded by this). */
  private boolean degradedEpisode;

  /** Takes one retry from the budget; false (nothing taken) when it is spent. */
  boolean tryRetry() {
    return tryRetry(false);
  }

  /**
   * Takes one retry from the budget; false (nothing taken) when it is spent. {@code degraded}: the
   * node decides without Redis now; the first such ask of an episode empties the window, so only
   * the first attempts made while degraded earn retries.
   */
  synchronized boolean tryRetry(boolean degraded) {
    long b = bucket();
    if (degraded && !degradedEpisode) {
      for (int i = 0; i < BUCKETS; i++) {
        firsts.set(i, 0);
        retries.set(i, 0);
        stamps.set(i, b);
      }
    }
    degradedEpisode = degraded;
    long f = 0;
    long r = 0;
    for (int i = 0; i < BUCKETS; i++) {
      if (b - stamps.get(i) < BUCKETS) {
        f += firsts.get(i);
        r += retries.get(i);
      }
    }
    if (r + 1 > ratio * f) {
      return false;
    }
    int i = slot(b);
    if (stamps.get(i) != b) {
      roll(i, b);
    }
    retries.incrementAndGet(i);
    return true;
  }
}
