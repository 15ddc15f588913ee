package io.breakerctl.runtime;

import io.breakerctl.runtime.redis.NodeCallCounts;
import java.util.concurrent.atomic.LongAdder;

/**
 * The calls one breaker admitted, rejected and had answered by a fallback on this node: striped
 * counters the callers increment (no lock, no allocation, nothing sent), read once per liveness
 * beat for the fleet's call rates ({@link NodeCallCounts}).
 */
final class CallTally {
  private final LongAdder admitted = new LongAdder();
  private final LongAdder rejected = new LongAdder();
  private final LongAdder fallbacks = new LongAdder();

  // what the previous take() read; only the beat (one thread at a time) touches them
  private long takenAdmitted;
  private long takenRejected;
  private long takenFallbacks;

  void admitted() {
    admitted.increment();
  }

  void rejected() {
    rejected.increment();
  }

  void fallbackServed() {
    fallbacks.increment();
  }

  /**
   * The counts since the previous take (never lost to a concurrent increment: the counters are
   * cumulative, a take reads their sums and keeps them). Called by the beat only.
   */
  synchronized NodeCallCounts.Counts take() {
    long a = admitted.sum();
    long r = rejected.sum();
    long f = fallbacks.sum();
    NodeCallCounts.Counts c =
        new NodeCallCounts.Counts(a - takenAdmitted, r - takenRejected, f - takenFallbacks);
    takenAdmitted = a;
    takenRejected = r;
    takenFallbacks = f;
    return c;
  }
}
