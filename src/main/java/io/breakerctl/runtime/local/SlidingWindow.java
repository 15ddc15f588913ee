package io.breakerctl.runtime.local;

import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.TransitionCause;
import java.util.Arrays;

/**
 * The time-bucketed failure window of {@code record.lua} and its trip rules: {@link
 * Policy#WINDOW_BUCKETS} buckets of {@code max(1, floor(windowMillis / WINDOW_BUCKETS))} ms,
 * numbered {@code floor(now / bucketMs)}. The totals and the newest bucket are kept apart from a
 * ring of older buckets (slot = bucket number mod {@code WINDOW_BUCKETS}), which is read only when
 * the bucket number moves.
 *
 * <p>Not thread-safe: the owning machine guards it with its lock.
 */
final class SlidingWindow {
  private static final int BUCKETS = Policy.WINDOW_BUCKETS;

  private final long[] ringFailures = new long[BUCKETS];
  private final long[] ringCalls = new long[BUCKETS];
  private long failures;
  private long calls;
  private long currentFailures;
  private long currentCalls;
  private long bucket;
  private boolean started;

  /** Failures in the window (the maintained total, as the script's {@code winFailures}). */
  long failures() {
    return failures;
  }

  /** Calls in the window (as the script's {@code winCalls}). */
  long calls() {
    return calls;
  }

  /**
   * Why the window trips a CLOSED breaker under {@code p} ({@code record.lua}): FAILURE_THRESHOLD
   * at {@code failureThreshold} failures, else FAILURE_RATE once {@code minimumCalls} calls are in
   * the window and failures reach {@code failureRateThreshold} percent of them; null when neither.
   */
  TransitionCause tripCause(Policy p) {
    if (failures >= p.failureThreshold()) {
      return TransitionCause.FAILURE_THRESHOLD;
    }
    if (p.failureRateThreshold().isPresent()
        && calls >= p.minimumCalls()
        && failures * 100.0 >= p.failureRateThreshold().getAsDouble() * calls) {
      return TransitionCause.FAILURE_RATE;
    }
    return null;
  }

  /**
   * Counts outcomes at {@code nowMillis}: buckets that left the window are subtracted first; a
   * bucket number behind the current one or a whole window ahead resets the window.
   */
  void count(long nowMillis, long windowMillis, long newFailures, long newSuccesses) {
    long b = Math.floorDiv(nowMillis, bucketMillis(windowMillis));
    if (!started || b < bucket || b - bucket >= BUCKETS) {
      zero();
    } else if (b > bucket) {
      for (long k = bucket + 1; k <= b; k++) {
        int slot = slot(k);
        failures -= ringFailures[slot];
        calls -= ringCalls[slot];
        ringFailures[slot] = 0;
        ringCalls[slot] = 0;
      }
      if (currentCalls > 0) {
        ringFailures[slot(bucket)] = currentFailures;
        ringCalls[slot(bucket)] = currentCalls;
      }
      currentFailures = 0;
      currentCalls = 0;
    }
    currentFailures += newFailures;
    currentCalls += newFailures + newSuccesses;
    failures += newFailures;
    calls += newFailures + newSuccesses;
    bucket = b;
    started = true;
  }

  /** Empties the window and starts it at the bucket of {@code nowMillis} (the script's clear). */
  void clear(long nowMillis, long windowMillis) {
    zero();
    bucket = Math.floorDiv(nowMillis, bucketMillis(windowMillis));
    started = true;
  }

  private void zero() {
    Arrays.fill(ringFailures, 0);
    Arrays.fill(ringCalls, 0);
    failures = 0;
    calls = 0;
    currentFailures = 0;
    currentCalls = 0;
  }

  private static long bucketMillis(long windowMillis) {
    return Math.max(1, windowMillis / BUCKETS);
  }

  private static int slot(long bucketNumber) {
    return (int) Math.floorMod(bucketNumber, (long) BUCKETS);
  }
}
