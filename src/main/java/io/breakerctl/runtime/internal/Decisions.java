package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.Permission;
import io.breakerctl.runtime.local.LocalAdmission;
import io.breakerctl.runtime.model.AdmissionReason;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.AcquireResult;
import io.breakerctl.runtime.store.BreakerStore;
import io.breakerctl.runtime.store.StoreException;
import io.breakerctl.runtime.store.StoreFault;
import io.breakerctl.runtime.store.StoreFutures;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The decisions the admission strategies ({@link Admissions}) compose while the store answers: a
 * shared acquire (the acquire script decides and may grant a probe lease), a decision from the last
 * shared view when a command failed, and one from the local machine while the node's own trip is in
 * force.
 */
final class Decisions {
  private final BreakerState state;
  private final BreakerContext registry;
  private final Grants grants;
  private final ProbeLeases leases;
  private final ViewTracker tracker;
  private final DegradedDecisions degraded;

  Decisions(
      BreakerState state,
      Grants grants,
      ProbeLeases leases,
      ViewTracker tracker,
      DegradedDecisions degraded) {
    this.state = state;
    this.registry = state.registry;
    this.grants = grants;
    this.leases = leases;
    this.tracker = tracker;
    this.degraded = degraded;
  }

  /**
   * Decides from the local machine while its own trip is in force and the fleet's view is CLOSED
   * (SHARED or HYBRID, Redis answering): open rejects ({@link AdmissionReason#LOCAL_TRIP}),
   * half-open grants the local machine's probes, closed ends the own trip.
   */
  Permission ownAcquire(long gen) {
    LocalAdmission a = state.local.tryAcquire(state.node());
    if (!a.allowed()) {
      return grants.reject(
          a.state(), a.state() == State.OPEN ? AdmissionReason.LOCAL_TRIP : a.reason());
    }
    if (a.leaseId() == null || a.leaseId().isEmpty()) {
      state.endOwnTrip();
      return new BreakerGrant(
          state.owner, true, State.CLOSED, AdmissionReason.CLOSED, gen, "", false);
    }
    return leases.renewing(
        new BreakerGrant(
            state.owner,
            true,
            a.state(),
            a.reason(),
            a.generation(),
            a.leaseId(),
            true,
            new AtomicBoolean(),
            true));
  }

  Permission sharedAcquire() {
    BreakerStore store = registry.store();
    if (store == null) {
      state.guard().trip(io.breakerctl.runtime.store.StoreFault.UNREACHABLE);
      return degraded.degradedAcquire();
    }
    AcquireResult r;
    String lease = leases.nextLeaseName();
    CompletableFuture<AcquireResult> pending = null;
    try {
      pending = store.acquire(state.id, state.node(), state.resolved.policy(), lease);
      r = StoreFutures.await(pending, registry.commandTimeout());
      state.guard().success();
    } catch (StoreException e) {
      if (pending != null) {
        leases.giveBackIfGranted(pending, lease);
      }
      state.guard().failure(e);
      if (!state.guard().up()) {
        return degraded.degradedAcquire();
      }
      Permission p = fromView();
      if (p.reason() == AdmissionReason.NO_LEASE && e.fault() == StoreFault.TIMEOUT) {
        // the acquire timed out at a window's end: the fleet's nodes contend for the probe lease
        state.observers.current().leaseAcquireTimedOut();
      }
      return p;
    }
    if (behind(r)) {
      return fromView(); // Redis lost what this node knows: decide from it, re-assert it
    }
    tracker.learn(r);
    if (!r.allowed()) {
      return grants.reject(r.state(), r.reason());
    }
    return leases.renewing(
        new BreakerGrant(
            state.owner,
            true,
            r.state(),
            r.reason(),
            BreakerState.generation(r.generation()),
            r.leaseId(),
            false));
  }

  /**
   * Decides from the last shared state this node holds, without Redis: a command failed or timed
   * out and the node is not (yet) degraded. OPEN stays OPEN until its window ends, a live override
   * stays in force, and a half-open breaker without a lease from Redis rejects (no lease, no
   * probe); only a view of CLOSED admits. A node that never read the shared state (started while
   * Redis was down) cannot know it and decides per process.
   */
  private Permission fromView() {
    SharedView v = state.view;
    if (v == null) {
      return grants.fromLocal(state.local.tryAcquire(state.node()));
    }
    State s = v.effective(state.now());
    switch (s) {
      case CLOSED, FORCED_CLOSED, DISABLED, METRICS_ONLY:
        return new BreakerGrant(
            state.owner, true, s, AdmissionReason.of(s), v.generation(), "", false);
      case OPEN, FORCED_OPEN:
        return grants.reject(s, AdmissionReason.of(s));
      default:
        if (!state.resolved.policy().enabled()) {
          return new BreakerGrant(
              state.owner, true, s, AdmissionReason.POLICY_DISABLED, v.generation(), "", false);
        }
        return grants.reject(State.HALF_OPEN, AdmissionReason.NO_LEASE);
    }
  }

  /**
   * Whether an acquire answer comes from a Redis that lost what this node's view enforces (a
   * failover to a replica that missed the write, a flush); then the node re-asserts it.
   */
  private boolean behind(AcquireResult r) {
    SharedView v = state.view;
    if (v == null) {
      return false;
    }
    State stored = r.state().isOverride() ? State.CLOSED : r.state();
    SharedView answer =
        new SharedView(
            stored,
            // untilMillis is the window's end only when OPEN (half-open: a lease's expiry; the
            // window ended by now)
            stored == State.OPEN ? r.untilMillis() : 0,
            0,
            r.state().isOverride() ? r.state() : null,
            0,
            SharedView.OverrideOrigin.UNKNOWN,
            null,
            BreakerState.generation(r.generation()),
            r.epoch(),
            v.offsetMillis(),
            state.now());
    State lost = v.lostIn(answer, state.now());
    if (lost == null) {
      return false;
    }
    tracker.reassertSoon(v, lost);
    return true;
  }
}
