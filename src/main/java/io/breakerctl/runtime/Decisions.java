package io.breakerctl.runtime;

import io.breakerctl.runtime.local.LocalAdmission;
import io.breakerctl.runtime.model.AdmissionReason;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.AcquireResult;
import io.breakerctl.runtime.store.BreakerStore;
import io.breakerctl.runtime.store.StoreException;
import io.breakerctl.runtime.store.StoreFutures;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The decisions the admission strategies ({@link Admissions}) compose while the store answers: a
 * shared acquire (the acquire script decides and may grant a probe lease), a decision from the last
 * shared view when a command failed, one from the local machine (the node's own trip, a node that
 * never read the shared state), and a rejection.
 */
final class Decisions {
  private final DistributedBreaker b;
  private final BreakerContext registry;

  Decisions(DistributedBreaker b, BreakerContext registry) {
    this.b = b;
    this.registry = registry;
  }

  /**
   * Decides from the local machine while its own trip is in force and the fleet's view is CLOSED
   * (SHARED or HYBRID, Redis answering): open rejects ({@link AdmissionReason#LOCAL_TRIP}),
   * half-open grants the local machine's probes, closed ends the own trip.
   */
  Permission ownAcquire(long gen) {
    LocalAdmission a = b.local.tryAcquire(b.node());
    if (!a.allowed()) {
      return reject(a.state(), a.state() == State.OPEN ? AdmissionReason.LOCAL_TRIP : a.reason());
    }
    if (a.leaseId() == null || a.leaseId().isEmpty()) {
      b.endOwnTrip();
      return new BreakerGrant(b, true, State.CLOSED, AdmissionReason.CLOSED, gen, "", false);
    }
    return b.leases.renewing(
        new BreakerGrant(
            b,
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
      b.guard().trip(io.breakerctl.runtime.store.StoreFault.UNREACHABLE);
      return b.whileDown.degradedAcquire();
    }
    AcquireResult r;
    String lease = b.leases.nextLeaseName();
    CompletableFuture<AcquireResult> pending = null;
    try {
      pending = store.acquire(b.id, b.node(), b.resolved.policy(), lease);
      r = StoreFutures.await(pending, registry.commandTimeout());
      b.guard().success();
    } catch (StoreException e) {
      if (pending != null) {
        b.leases.giveBackIfGranted(pending, lease);
      }
      b.guard().failure(e);
      return b.guard().up() ? fromView() : b.whileDown.degradedAcquire();
    }
    if (behind(r)) {
      return fromView(); // Redis lost what this node knows: decide from it, re-assert it
    }
    b.tracker.learn(r);
    if (!r.allowed()) {
      return reject(r.state(), r.reason());
    }
    return b.leases.renewing(
        new BreakerGrant(
            b,
            true,
            r.state(),
            r.reason(),
            DistributedBreaker.parse(r.generation()),
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
    SharedView v = b.view;
    if (v == null) {
      return fromLocal(b.local.tryAcquire(b.node()));
    }
    State s = v.effective(b.now());
    switch (s) {
      case CLOSED, FORCED_CLOSED, DISABLED, METRICS_ONLY:
        return new BreakerGrant(b, true, s, AdmissionReason.of(s), v.generation(), "", false);
      case OPEN, FORCED_OPEN:
        return reject(s, AdmissionReason.of(s));
      default:
        if (!b.resolved.policy().enabled()) {
          return new BreakerGrant(
              b, true, s, AdmissionReason.POLICY_DISABLED, v.generation(), "", false);
        }
        return reject(State.HALF_OPEN, AdmissionReason.NO_LEASE);
    }
  }

  /**
   * Whether an acquire answer comes from a Redis that lost what this node's view enforces (a
   * failover to a replica that missed the write, a flush); then the node re-asserts it.
   */
  private boolean behind(AcquireResult r) {
    SharedView v = b.view;
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
            DistributedBreaker.parse(r.generation()),
            r.epoch(),
            v.offsetMillis(),
            b.now());
    State lost = v.lostIn(answer, b.now());
    if (lost == null) {
      return false;
    }
    b.tracker.reassertSoon(v, lost);
    return true;
  }

  Permission fromLocal(LocalAdmission a) {
    if (!a.allowed()) {
      return reject(a.state(), a.reason());
    }
    return b.leases.renewing(
        new BreakerGrant(
            b,
            true,
            a.state(),
            a.reason(),
            a.generation(),
            a.leaseId() == null ? "" : a.leaseId(),
            true));
  }

  Permission reject(State s, AdmissionReason reason) {
    b.observers.current().rejected(s, reason.code());
    b.events.emit(CircuitEvent.Type.REJECTED, s, s, reason.code());
    return new BreakerGrant(b, false, s, reason, -1, "", false);
  }
}
