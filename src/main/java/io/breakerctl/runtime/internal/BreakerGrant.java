package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.CallOutcome;
import io.breakerctl.runtime.model.AdmissionReason;
import io.breakerctl.runtime.model.BackoffHint;
import io.breakerctl.runtime.model.RateLimitAction;
import io.breakerctl.runtime.model.State;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link DistributedBreaker}'s permission and, once reported, its outcome: what decided it (the
 * shared state, a shared lease, the local machine), and the guard against reporting twice.
 */
final class BreakerGrant implements ClassifyingPermission {
  private final GrantOwner breaker;
  private final boolean allowed;
  private final State state;
  private final AdmissionReason reason;
  final long generation;
  final String lease;
  final boolean local;

  /**
   * Decided by the node's own local machine while Redis answers (its own trip in force): the
   * outcome goes to the local machine and to Redis as any other.
   */
  final boolean own;

  /** Guards against reporting twice; null for the shared closed-state permission. */
  private final AtomicBoolean reported;

  /** The renewals of this probe's lease while its call runs; null for a call without a lease. */
  private volatile ProbeRenewal renewal;

  BreakerGrant(
      GrantOwner breaker,
      boolean allowed,
      State state,
      AdmissionReason reason,
      long generation,
      String lease,
      boolean local) {
    this(breaker, allowed, state, reason, generation, lease, local, new AtomicBoolean());
  }

  BreakerGrant(
      GrantOwner breaker,
      boolean allowed,
      State state,
      AdmissionReason reason,
      long generation,
      String lease,
      boolean local,
      AtomicBoolean reported) {
    this(breaker, allowed, state, reason, generation, lease, local, reported, false);
  }

  BreakerGrant(
      GrantOwner breaker,
      boolean allowed,
      State state,
      AdmissionReason reason,
      long generation,
      String lease,
      boolean local,
      AtomicBoolean reported,
      boolean own) {
    this.own = own;
    this.breaker = breaker;
    this.allowed = allowed;
    this.state = state;
    this.reason = reason;
    this.generation = generation;
    this.lease = lease;
    this.local = local;
    this.reported = reported;
  }

  /** Keeps this probe's lease alive with {@code r} until its outcome is reported. */
  void renewing(ProbeRenewal r) {
    renewal = r;
  }

  @Override
  public boolean allowed() {
    return allowed;
  }

  @Override
  public State state() {
    return state;
  }

  @Override
  public AdmissionReason reason() {
    return reason;
  }

  @Override
  public String lease() {
    return lease;
  }

  @Override
  public void onOutcome(CallOutcome outcome, long nanos, BackoffHint hint) {
    if (!allowed || outcome == CallOutcome.REJECTED || !claim()) {
      return;
    }
    report(outcome, nanos, hint);
  }

  /**
   * Whether this is the shared permission of the closed state (HYBRID's hot path): every call gets
   * the same one, and nothing guards it against being reported twice.
   */
  boolean shared() {
    return reported == null;
  }

  /** Whether {@code g} was decided as this grant was: same generation, same decider. */
  boolean sameDecision(BreakerGrant g) {
    return g.generation == generation && g.local == local && g.own == own && g.state == state;
  }

  /** Claims the one report of this call: false when it was reported already. */
  boolean claim() {
    return reported == null || reported.compareAndSet(false, true);
  }

  @Override
  public boolean rejectionStackTrace() {
    return breaker.rejectionStackTraces();
  }

  @Override
  public CallOutcome classify(Throwable error) {
    return breaker.classifier().classify(error);
  }

  @Override
  public <T> CallOutcome classifyResult(T result) {
    return breaker.classifier().classifyResult(result);
  }

  @Override
  public BackoffHint hintOf(Object errorOrResult) {
    return breaker.hintOf(errorOrResult);
  }

  /**
   * Reports an allowed call's outcome (claimed): observers, then the breaker counts it. A failure's
   * back-off hint goes with it; a rate-limit answer is counted as a failure, backs off without
   * counting, or neither, as the policy's {@code rateLimited} says.
   */
  void report(CallOutcome outcome, long nanos, BackoffHint hint) {
    ProbeRenewal r = renewal;
    if (r != null) {
      r.stop(); // the call ended: its lease is given back or decided by the outcome below
    }
    observe(outcome, nanos);
    RateLimitAction action =
        outcome == CallOutcome.RATE_LIMITED ? breaker.rateLimited() : RateLimitAction.IGNORE;
    if (action == RateLimitAction.COUNT) {
      breaker.complete(this, true, nanos, hint);
    } else if (action == RateLimitAction.BACKOFF && hint != null) {
      breaker.backoff(this, hint);
    } else if (outcome.counted()) {
      breaker.complete(this, outcome.failure(), nanos, outcome.failure() ? hint : null);
    } else if (!local && !lease.isEmpty()) {
      // a probe whose outcome counts neither way: its lease goes back, or the fleet would wait
      // the lease's expiry for the next probe
      breaker.release(lease);
    }
  }

  /** Tells the breaker's observer how the call ended; counts nothing. */
  void observe(CallOutcome outcome, long nanos) {
    boolean slow = outcome == CallOutcome.SUCCESS && breaker.isSlow(nanos / 1_000_000);
    breaker.observer().outcome(slow ? CallOutcome.SLOW : outcome, nanos);
  }
}
