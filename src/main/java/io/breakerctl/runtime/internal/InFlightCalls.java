package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.CallOutcome;
import io.breakerctl.runtime.Permission;
import io.breakerctl.runtime.model.AdmissionReason;
import io.breakerctl.runtime.model.BackoffHint;
import io.breakerctl.runtime.model.State;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The calls of one breaker still running, for a policy with {@code slowCallMillis}: a call that
 * crosses {@code slowCallMillis} while it runs counts as slow (a failure) at that moment, once, so
 * a dependency that hangs trips the breaker after {@code failureThreshold} calls have been slow for
 * {@code slowCallMillis}, not when the client's own timeout (30 s or more in most HTTP clients)
 * finally ends them. A call counted this way is not counted again when it ends, and its success
 * does not undo it; a call that ends before its bucket is swept is reported as usual.
 *
 * <p>How: calls are counted, not listed, in buckets by start: a bucket takes the calls that start
 * while it is the current one, for {@code slowCallMillis / 8} (at least 1 ms), and is then closed
 * by a task on the registry's scheduler; its calls still running {@code slowCallMillis} after it
 * closed (its last call has then run that long) are counted slow by a second task, the sweep. A
 * bucket is a few cells (one per stripe of threads, {@link #STRIPES}, 128 bytes apart), each one
 * {@code long}: the count of calls entered there minus calls left there, shifted left by two, and
 * two bits, {@link #CLOSED} and {@link #SWEPT}. A call entering adds one to its thread's cell by a
 * compare-and-set that fails on a closed cell (it then enters the next bucket); a call ending
 * subtracts one from its (ending) thread's cell unless that cell is swept. The sweep sets {@code
 * SWEPT} on each cell and reads its count in the same atomic step, and counts the sum slow. Every
 * call is counted exactly once: its enter is in the sum (it happened before the close); its leave
 * is in the sum when it happened before the sweep reached its cell (the call then reported itself
 * and sums to 0), and is refused when after (the call is then in the sum and is not reported). A
 * call that ends on another thread than it started works the same way (cells may go below 0; only
 * the sum counts). So a hang is seen between {@code slowCallMillis} and {@code slowCallMillis} plus
 * one bucket (1/8) plus the scheduler's delays after the call started.
 *
 * <p>Cost per call: two uncontended compare-and-sets (one per thread stripe), no clock, no
 * allocation for the shared closed-state permission (the bucket is itself the permission); a
 * permission that is the call's own (SHARED, degraded, local) is wrapped once. Per bucket: one
 * small array and two tasks (at most 8 buckets per {@code slowCallMillis} per breaker, only while
 * calls start). The shared permission has no guard against being reported twice: a second report
 * subtracts one more, as it would report the outcome twice without tracking, and may hide one
 * running call from the sweep.
 *
 * <p>Measured ({@code scripts/bench runtime --parts jmh}, JMH {@code hybridSlow*}, 2026-12-06, 2
 * cores, load average 2.5): 22.7 ns per call on one thread and 23.4 ns on two, against 11.3 and
 * 10.2 ns untracked (Resilience4j: 19.6 and 203.7 ns; so 1.16x and 0.11x of it); no allocation. The
 * first version (one shared counter per bucket, {@code System.nanoTime()} per call to find the
 * bucket) cost 49 and 111 ns against 11 and 10. What is left is the two compare-and-sets, the floor
 * of counting each call exactly once (an enter the close cannot miss, an end the sweep cannot count
 * twice); the untracked path costs one such operation (the success counter), so no exact tracker
 * can stay within 10% of the untracked path in the same run (1.16x against 0.58x of Resilience4j
 * here). The bench's target is the hot path's recorded ratio (0.48x / 0.34x, within 10%): met on
 * two threads, missed on one.
 *
 * <p>Not tracked: probes (a call under a lease). A probe holds the fleet's slot and is bounded by
 * {@code maxProbeSeconds} instead (the renewal that ends it as failed, {@link ProbeRenewal}); its
 * result, when it comes, counts as slow if it took {@code slowCallMillis} or more, as any call's.
 */
final class InFlightCalls {

  /** A cell's bit once its bucket no longer takes calls. */
  static final long CLOSED = 1;

  /** A cell's bit once its bucket's calls still running were counted slow. */
  static final long SWEPT = 2;

  /** One call in a cell's count (the count sits above the two bits; it may go below 0). */
  static final long ONE = 4;

  /**
   * Cells per bucket: four per processor rounded up to a power of two, 4 to 16, so that two busy
   * threads rarely share one (a thread's cell is its id, Fibonacci-hashed).
   */
  static final int STRIPES =
      Math.min(
          16,
          Integer.highestOneBit(Math.max(1, Runtime.getRuntime().availableProcessors()) * 4 - 1)
              << 1);

  private static final int STRIPE_SHIFT = 32 - Integer.numberOfTrailingZeros(STRIPES);

  /** Longs between two cells (128 bytes: no two cells share a cache line or its neighbour). */
  private static final int SPACING = 16;

  /** Counts {@code calls} slow calls admitted by {@code grant}, now. */
  interface SlowCounter {
    void slow(BreakerGrant grant, long calls);
  }

  private final BreakerContext registry;
  private final Ticker ticker;
  private final SlowCounter counter;
  private final long slowNanos;
  private final long widthMillis;
  private final AtomicReference<Bucket> current = new AtomicReference<>();

  InFlightCalls(BreakerContext registry, SlowCounter counter, long slowMillis) {
    if (slowMillis <= 0) {
      throw new IllegalArgumentException("slowMillis must be > 0 but was " + slowMillis);
    }
    this.registry = registry;
    this.ticker = registry.ticker();
    this.counter = counter;
    this.slowNanos = slowMillis * 1_000_000;
    this.widthMillis = Math.max(1, slowMillis / 8);
  }

  /** The slowCallMillis this tracker counts against. */
  long slowMillis() {
    return slowNanos / 1_000_000;
  }

  /**
   * The permission a call runs with: {@code p} itself when it is not tracked (a rejection, a
   * probe), else {@code p} counted in the current bucket.
   */
  Permission track(Permission p) {
    if (!(p instanceof BreakerGrant g) || !g.allowed() || !g.lease.isEmpty()) {
      return p;
    }
    Bucket b = enter(g);
    return g.shared() ? b : new Own(b, g);
  }

  private Bucket enter(BreakerGrant g) {
    int cell = cell();
    for (; ; ) {
      Bucket b = current.get();
      if (b != null && b.admits(g) && b.enter(cell)) {
        return b;
      }
      Bucket next = new Bucket(g);
      if (current.compareAndSet(b, next)) {
        next.enter(cell); // not yet closed: its close is scheduled below
        // a closed registry runs no more tasks: the bucket then stays open, and its calls are
        // reported as they end
        registry.later(() -> close(next), widthMillis);
        return next;
      }
    }
  }

  /** The cell of the current thread: its stripe, as an index in a bucket's array. */
  static int cell() {
    return (((int) Thread.currentThread().getId() * 0x9E3779B9) >>> STRIPE_SHIFT) * SPACING;
  }

  /** The bucket takes no more calls; its sweep is due when its last call has run slowNanos. */
  private void close(Bucket b) {
    current.compareAndSet(b, null);
    b.mark(CLOSED);
    long due = ticker.read() + slowNanos;
    schedule(b, due, slowNanos);
  }

  private void schedule(Bucket b, long due, long delayNanos) {
    registry.later(() -> sweep(b, due), Math.max(0, (delayNanos + 999_999) / 1_000_000));
  }

  /** Counts the bucket's calls still running as slow, once its last call has run slowNanos. */
  private void sweep(Bucket b, long due) {
    long early = due - ticker.read();
    if (early > 0) {
      schedule(b, due, early); // the scheduler ran it early (millisecond rounding)
      return;
    }
    long running = b.mark(SWEPT);
    if (running > 0) {
      counter.slow(b.grant, running);
    }
  }

  /** A tracked call's permission: what its grant decided, reported through {@link #onOutcome}. */
  private abstract static class Tracked implements ClassifyingPermission {
    final BreakerGrant grant;

    Tracked(BreakerGrant grant) {
      this.grant = grant;
    }

    @Override
    public boolean allowed() {
      return true;
    }

    @Override
    public State state() {
      return grant.state();
    }

    @Override
    public AdmissionReason reason() {
      return grant.reason();
    }

    @Override
    public String lease() {
      return "";
    }

    @Override
    public CallOutcome classify(Throwable error) {
      return grant.classify(error);
    }

    @Override
    public <T> CallOutcome classifyResult(T result) {
      return grant.classifyResult(result);
    }

    @Override
    public BackoffHint hintOf(Object errorOrResult) {
      return grant.hintOf(errorOrResult);
    }
  }

  /**
   * The calls started in one bucket under one decision; itself the permission of calls whose grant
   * is the shared one.
   */
  static final class Bucket extends Tracked {
    /** The cells ({@link #SPACING} apart): calls in minus calls out, times {@link #ONE}, bits. */
    private final AtomicLongArray cells = new AtomicLongArray(STRIPES * SPACING);

    Bucket(BreakerGrant grant) {
      super(grant);
    }

    /** Whether a call granted by {@code g} may count in this bucket (same grant or decision). */
    boolean admits(BreakerGrant g) {
      return g == grant || (!g.shared() && !grant.shared() && grant.sameDecision(g));
    }

    /** A call starts on {@code cell}: false, and nothing counted, once the bucket is closed. */
    boolean enter(int cell) {
      for (; ; ) {
        long s = cells.get(cell);
        if ((s & CLOSED) != 0) {
          return false;
        }
        if (cells.compareAndSet(cell, s, s + ONE)) {
          return true;
        }
      }
    }

    /**
     * A call ends: true when it is still to be reported (the sweep has not counted it), false once
     * the sweep has reached the ending thread's cell (the call was in its sum).
     */
    boolean leave() {
      int cell = cell();
      for (; ; ) {
        long s = cells.get(cell);
        if ((s & SWEPT) != 0) {
          return false;
        }
        if (cells.compareAndSet(cell, s, s - ONE)) {
          return true;
        }
      }
    }

    /** Sets {@code bit} on every cell; returns the sum of their counts as each was marked. */
    long mark(long bit) {
      long sum = 0;
      for (int i = 0; i < cells.length(); i += SPACING) {
        long s;
        do {
          s = cells.get(i);
        } while (!cells.compareAndSet(i, s, s | bit));
        sum += s >> 2;
      }
      return sum;
    }

    @Override
    public void onOutcome(CallOutcome outcome, long nanos, BackoffHint hint) {
      if (outcome == CallOutcome.REJECTED) {
        leave(); // not an outcome of an admitted call: it leaves uncounted
      } else if (leave()) {
        grant.report(outcome, nanos, hint);
      } else {
        grant.observe(outcome, nanos); // counted slow by the sweep: its metrics only
      }
    }
  }

  /** A call's own permission (reported at most once) counted in a bucket. */
  private static final class Own extends Tracked {
    private final Bucket bucket;

    Own(Bucket bucket, BreakerGrant grant) {
      super(grant);
      this.bucket = bucket;
    }

    @Override
    public void onOutcome(CallOutcome outcome, long nanos, BackoffHint hint) {
      if (grant.claim()) {
        bucket.onOutcome(outcome, nanos, hint);
      }
    }
  }
}
