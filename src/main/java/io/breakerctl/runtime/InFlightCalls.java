package io.breakerctl.runtime;

import io.breakerctl.runtime.model.AdmissionReason;
import io.breakerctl.runtime.model.State;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The calls of one breaker still running, for a policy with {@code slowCallMillis}: a call that
 * crosses {@code slowCallMillis} while it runs counts as slow (a failure) at that moment, once, so
 * a dependency that hangs trips the breaker after {@code failureThreshold} calls have been slow for
 * {@code slowCallMillis}, not when the client's own timeout (30 s or more in most HTTP clients)
 * finally ends them. A call counted this way is not counted again when it ends, and its success
 * does not undo it; a call that ends before its bucket is swept is reported as usual.
 *
 * <p>How: calls are counted, not listed, in buckets by start time ({@code slowCallMillis / 8} wide,
 * at least 1 ms). A bucket is one {@link AtomicLong}: the count of its calls still running and a
 * {@link #SWEPT} bit. A call entering adds one, a call ending subtracts one; each is one atomic add
 * on the caller's path, and no call is scheduled or listed. A bucket is swept once, on the
 * registry's scheduler, when its last call has run {@code slowCallMillis} (its end plus {@code
 * slowCallMillis}): the sweep sets {@code SWEPT} and reads the count in the same atomic step, and
 * counts that many slow calls. A call that ends after that step finds the bit and is not reported;
 * one that ended before it was not in the count: every call is counted exactly once. So a hang is
 * seen between {@code slowCallMillis} and {@code slowCallMillis} plus one bucket (1/8) plus the
 * scheduler's delay after the call started.
 *
 * <p>Cost: one task per bucket (at most 8 per {@code slowCallMillis} per breaker, only while calls
 * start), nothing per call beyond the two atomic adds. On the HYBRID hot path the shared
 * closed-state permission is replaced by the bucket itself (no allocation per call); a permission
 * that is the call's own (SHARED, degraded, local) is wrapped once.
 *
 * <p>Measured ({@code scripts/bench runtime}, JMH {@code hybridSlow*}, 2026-12-06): 49 ns per call
 * on one thread and 111 ns on two, against 11 and 10 ns without tracking (Resilience4j: 26 and 135
 * ns); no allocation. That misses the target (within 10% of the untracked ratio). The cost is the
 * {@code System.nanoTime()} per call and the one counter every thread shares; the next step is a
 * tick advanced by the registry's timer and striped cells per bucket.
 *
 * <p>Not tracked: probes (a call under a lease). A probe holds the fleet's slot and is bounded by
 * {@code maxProbeSeconds} instead (the renewal that ends it as failed, {@link ProbeRenewal}); its
 * result, when it comes, counts as slow if it took {@code slowCallMillis} or more, as any call's.
 */
final class InFlightCalls {

  /** The bit a sweep sets in a bucket's count; bit 62, so the count can never reach it. */
  static final long SWEPT = 1L << 62;

  /** Counts {@code calls} slow calls admitted by {@code grant}, now. */
  interface SlowCounter {
    void slow(BreakerGrant grant, long calls);
  }

  private final DefaultBreakerRegistry registry;
  private final SlowCounter counter;
  private final long slowNanos;
  private final long widthNanos;
  private final AtomicReference<Bucket> current = new AtomicReference<>();

  InFlightCalls(DefaultBreakerRegistry registry, SlowCounter counter, long slowMillis) {
    if (slowMillis <= 0) {
      throw new IllegalArgumentException("slowMillis must be > 0 but was " + slowMillis);
    }
    this.registry = registry;
    this.counter = counter;
    this.slowNanos = slowMillis * 1_000_000;
    this.widthNanos = Math.max(1_000_000, slowNanos / 8);
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
    long tick = Math.floorDiv(System.nanoTime(), widthNanos);
    for (; ; ) {
      Bucket b = current.get();
      if (b != null && b.tick == tick && b.admits(g)) {
        if ((b.calls.getAndIncrement() & SWEPT) == 0) {
          return b;
        }
        // swept already (this thread read it long ago): the add is void, a new bucket follows
      }
      Bucket next = new Bucket(tick, g);
      if (current.compareAndSet(b, next)) {
        next.calls.getAndIncrement();
        schedule(next, (tick + 1) * widthNanos + slowNanos - System.nanoTime());
        return next;
      }
    }
  }

  private void schedule(Bucket b, long delayNanos) {
    // a closed registry runs no more tasks: its calls are then reported as they end
    registry.later(() -> sweep(b), Math.max(0, (delayNanos + 999_999) / 1_000_000));
  }

  /** Counts the bucket's calls still running as slow, once its last call has run slowNanos. */
  private void sweep(Bucket b) {
    long due = (b.tick + 1) * widthNanos + slowNanos;
    long early = due - System.nanoTime();
    if (early > 0) {
      schedule(b, early); // the scheduler ran it early (millisecond rounding)
      return;
    }
    long running = b.calls.getAndUpdate(s -> s | SWEPT) & ~SWEPT;
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
  }

  /**
   * The calls started in one bucket under one decision; itself the permission of calls whose grant
   * is the shared one.
   */
  static final class Bucket extends Tracked {
    final long tick;

    /** The calls still running, and {@link #SWEPT} once swept. */
    final AtomicLong calls = new AtomicLong();

    Bucket(long tick, BreakerGrant grant) {
      super(grant);
      this.tick = tick;
    }

    /** Whether a call granted by {@code g} may count in this bucket (same grant or decision). */
    boolean admits(BreakerGrant g) {
      return g == grant || (!g.shared() && !grant.shared() && grant.sameDecision(g));
    }

    /**
     * A call ends: true when it is still to be reported (the sweep has not counted it). Never
     * changes a swept bucket, and never takes the count below 0: a permission reported twice (the
     * shared one has no guard) is reported again, as without tracking, and cannot mark the bucket.
     */
    boolean leave() {
      for (; ; ) {
        long s = calls.get();
        if ((s & SWEPT) != 0) {
          return false;
        }
        if (s == 0 || calls.compareAndSet(s, s - 1)) {
          return true;
        }
      }
    }

    @Override
    public void onOutcome(CallOutcome outcome, long nanos) {
      if (outcome == CallOutcome.REJECTED) {
        leave(); // not an outcome of an admitted call: it leaves uncounted
      } else if (leave()) {
        grant.report(outcome, nanos);
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
    public void onOutcome(CallOutcome outcome, long nanos) {
      if (grant.claim()) {
        bucket.onOutcome(outcome, nanos);
      }
    }
  }
}
