package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.store.NodeCallCounts;
import java.util.concurrent.atomic.LongAdder;

/**
 * The calls one breaker completed, rejected and had answered by a fallback on this node, read once
 * per liveness beat for the fleet's call rates ({@link NodeCallCounts}). Nothing is counted on the
 * closed-state hot path: a call is counted when it ends, and the hot path's successes, which the
 * breaker already counts in its pending successes, are counted as those are taken (flushed, sent
 * with a failure, reconciled) and read as still pending at the beat. A tally in {@code tryAcquire}
 * cost the hot path 4-5 ns (16.6 against 11-13 ns per call, {@code scripts/bench runtime}).
 */
final class CallTally {
  private final LongAdder completed = new LongAdder();
  private final LongAdder rejected = new LongAdder();
  private final LongAdder fallbacks = new LongAdder();

  /** The successes counted but not yet taken from the breaker's pending count. */
  private final LongAdder pending;

  // what the previous take() read; only the beat (one thread at a time) touches them
  private long takenCompleted;
  private long takenRejected;
  private long takenFallbacks;

  CallTally(LongAdder pending) {
    this.pending = pending;
  }

  /**
   * {@code n} calls ended (negative: successes given back to the pending count, sent again later).
   */
  void completed(long n) {
    completed.add(n);
  }

  void rejected() {
    rejected.increment();
  }

  void fallbackServed() {
    fallbacks.increment();
  }

  /**
   * The counts since the previous take (never lost to a concurrent increment: the counters are
   * cumulative, a take reads their sums and keeps them). Successes move from pending to completed
   * when taken, and back when a send fails: a take that reads them between the two counts less,
   * never below what it took before, and the next take counts the rest. Called by the beat only.
   */
  synchronized NodeCallCounts.Counts take() {
    long a = Math.max(takenCompleted, completed.sum() + pending.sum());
    long r = rejected.sum();
    long f = fallbacks.sum();
    NodeCallCounts.Counts c =
        new NodeCallCounts.Counts(a - takenCompleted, r - takenRejected, f - takenFallbacks);
    takenCompleted = a;
    takenRejected = r;
    takenFallbacks = f;
    return c;
  }
}
