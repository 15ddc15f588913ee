package io.breakerctl.runtime;

import io.breakerctl.runtime.local.ActiveOverride;
import io.breakerctl.runtime.local.LocalAdmission;
import io.breakerctl.runtime.model.AdmissionReason;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.StoreFailureMode;

/**
 * The admission decorator of a SHARED or HYBRID breaker: while the guard of its shard is down it
 * decides as the policy's {@code storeFailureMode} says, from the local machine seeded once per
 * degradation from the last shared view; while the guard is up the mode's own strategy decides.
 */
final class DegradedAdmission implements Admission {
  private final DistributedBreaker b;
  private final BreakerContext registry;
  private final Admission up;

  DegradedAdmission(DistributedBreaker b, BreakerContext registry, Admission up) {
    this.b = b;
    this.registry = registry;
    this.up = up;
  }

  @Override
  public Permission decide() {
    return b.guard().up() ? up.decide() : degradedAcquire();
  }

  /**
   * Decides while the node is degraded. The local machine, seeded from the last shared view when
   * the node was declared degraded, holds the override the node has seen, which stays in force in
   * every storeFailureMode until its expiry or clear. Then LOCAL_ONLY decides per process from the
   * seeded machine; LAST_KNOWN decides from the shared view for the registry's {@code lastKnownFor}
   * after its last read (half-open rejects: no lease, no probe), then as LOCAL_ONLY; ALLOW_ALL
   * admits.
   */
  Permission degradedAcquire() {
    LocalAdmission overridden = null;
    synchronized (b) {
      seedIfNeeded();
      if (b.local.activeOverride().isPresent()) {
        overridden = b.local.tryAcquire(b.node());
      }
    }
    if (overridden != null) {
      return b.decisions.fromLocal(overridden);
    }
    StoreFailureMode m = b.resolved.policy().storeFailureMode();
    SharedView v = b.view;
    if (m == StoreFailureMode.ALLOW_ALL) {
      return new BreakerGrant(
          b,
          true,
          v == null ? State.CLOSED : v.effective(b.now()),
          AdmissionReason.DEGRADED_ALLOW,
          -1,
          "",
          true);
    }
    if (m == StoreFailureMode.LAST_KNOWN
        && v != null
        && b.now() - v.readAtMillis() < registry.lastKnownMillis()) {
      State s = v.effective(b.now());
      if (s.rejects()) {
        return b.decisions.reject(s, AdmissionReason.of(s));
      }
      if (s == State.HALF_OPEN) {
        return b.decisions.reject(s, AdmissionReason.NO_LEASE);
      }
      if (s == State.CLOSED && b.local.storedState() != State.CLOSED) {
        // the node's own failures tripped its local machine: never worse than LOCAL
        return b.decisions.fromLocal(seededAcquire());
      }
      return new BreakerGrant(b, true, s, AdmissionReason.LAST_KNOWN, -1, "", true);
    }
    return b.decisions.fromLocal(seededAcquire());
  }

  /**
   * The seeded local machine's decision while degraded. The seed check and the decision hold the
   * breaker's monitor, as {@link ViewTracker#install} does: a recovery installs the exact shared
   * state (a half-open breaker whose lease another node holds, or an open window that just ended)
   * into the local machine while this node is still degraded, and a decision between that and the
   * guard's recovery must come from a fresh seed (which rejects), never from the installed copy
   * (which would grant a local probe beside the fleet's: two calls at a recovering dependency).
   */
  private LocalAdmission seededAcquire() {
    synchronized (b) {
      seedIfNeeded();
      return b.local.tryAcquire(b.node());
    }
  }

  /**
   * Seeds the local machine from the last shared view once per degradation, before it decides
   * anything: stored state, open window, override and its expiry (converted with the measured
   * Redis-time offset), generation. A view that is open or half-open becomes a fresh local open
   * window from now (at least one more open window before this node probes on its own), so a short
   * stall at the moment of recovery never turns into one probe per node.
   */
  void seedIfNeeded() {
    long degradation = b.guard().degradations();
    if (b.seededFor == degradation) {
      return;
    }
    synchronized (b) {
      if (b.seededFor == degradation) {
        return;
      }
      SharedView v = b.view;
      if (v != null) {
        long now = b.now();
        long length = v.openMillis() > 0 ? v.openMillis() : b.resolved.policy().open().toMillis();
        if (v.stored() == State.CLOSED) {
          // seedClosed decides under the machine's lock: a check of the machine's state before a
          // seed could be overtaken by another caller's failure tripping it, and the seed would
          // erase that trip and its emptied window (7 calls where at most 6 may pass,
          // CoordinatorFaultIT in a run with both cores busy)
          ActiveOverride o = localOverride(v, now);
          if (!b.local.seeding().seedClosed(o, v.generation())) {
            // the node's own trip (its failures the fleet may not have heard of): kept, and
            // published at recovery as a trip made while degraded
            b.local
                .seeding()
                .seed(
                    b.local.storedState(),
                    b.local.openUntilMillis(),
                    b.local.openMillis(),
                    o,
                    v.generation());
            if (b.resolved.policy().storeFailureMode() != StoreFailureMode.ALLOW_ALL) {
              b.trippedWhileDegraded.set(true);
            }
          }
        } else {
          b.local
              .seeding()
              .seed(State.OPEN, now + length, length, localOverride(v, now), v.generation());
        }
      }
      b.seededFor = degradation;
    }
  }

  /** The view's override in force on the local clock, or null. */
  static ActiveOverride localOverride(SharedView v, long now) {
    if (!v.overrideLive(now)) {
      return null;
    }
    long until = v.overrideUntil() == 0 ? 0 : v.overrideUntil() - v.offsetMillis();
    return new ActiveOverride(v.override(), until, v.origin().actor(), v.origin().reason(), now);
  }
}
