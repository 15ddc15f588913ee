package io.breakerctl.runtime.retry;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Retries at most {@code ratio} times the first attempts seen over a sliding window (ten buckets),
 * on this node only: a fleet whose dependency fails sends at most {@code (1 + ratio)} times its
 * first attempts. Counting a first attempt is an array increment; a retry takes a short lock.
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

  /** Takes one retry from the budget; false (nothing taken) when it is spent. */
  synchronized boolean tryRetry() {
    long b = bucket();
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
