package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.Permission;
import io.breakerctl.runtime.local.ActiveOverride;
import io.breakerctl.runtime.local.LocalAdmission;
import io.breakerctl.runtime.model.AdmissionReason;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.StoreFailureMode;

/**
 * The decisions of a SHARED or HYBRID breaker while the guard of its shard is down: as the policy's
 * {@code storeFailureMode} says, from the local machine seeded once per degradation from the last
 * shared view (see {@link DegradedAdmission}).
 */
final class DegradedDecisions {
  private final BreakerState state;
  private final BreakerContext registry;
  private final Grants grants;

  DegradedDecisions(BreakerState state, Grants grants) {
    this.state = state;
    this.registry = state.registry;
    this.grants = grants;
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
    synchronized (state) {
      seedIfNeeded();
      if (state.local.activeOverride().isPresent()) {
        overridden = state.local.tryAcquire(state.node());
      }
    }
    if (overridden != null) {
      return grants.fromLocal(overridden);
    }
    StoreFailureMode m = state.resolved.policy().storeFailureMode();
    SharedView v = state.view;
    if (m == StoreFailureMode.ALLOW_ALL) {
      return new BreakerGrant(
          state.owner,
          true,
          v == null ? State.CLOSED : v.effective(state.now()),
          AdmissionReason.DEGRADED_ALLOW,
          -1,
          "",
          true);
    }
    if (m == StoreFailureMode.LAST_KNOWN
        && v != null
        && state.now() - v.readAtMillis() < registry.lastKnownMillis()) {
      State s = v.effective(state.now());
      if (s.rejects()) {
        return grants.reject(s, AdmissionReason.of(s));
      }
      if (s == State.HALF_OPEN) {
        return grants.reject(s, AdmissionReason.NO_LEASE);
      }
      if (s == State.CLOSED && state.local.storedState() != State.CLOSED) {
        // the node's own failures tripped its local machine: never worse than LOCAL
        return grants.fromLocal(seededAcquire());
      }
      return new BreakerGrant(state.owner, true, s, AdmissionReason.LAST_KNOWN, -1, "", true);
    }
    return grants.fromLocal(seededAcquire());
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
    synchronized (state) {
      seedIfNeeded();
      return state.local.tryAcquire(state.node());
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
    long degradation = state.guard().degradations();
    if (state.seededFor == degradation) {
      return;
    }
    synchronized (state) {
      if (state.seededFor == degradation) {
        return;
      }
      SharedView v = state.view;
      if (v != null) {
        long now = state.now();
        long length =
            v.openMillis() > 0 ? v.openMillis() : state.resolved.policy().open().toMillis();
        if (v.stored() == State.CLOSED) {
          // seedClosed decides under the machine's lock: a check of the machine's state before a
          // seed could be overtaken by another caller's failure tripping it, and the seed would
          // erase that trip and its emptied window (7 calls where at most 6 may pass,
          // CoordinatorFaultIT in a run with both cores busy)
          ActiveOverride o = localOverride(v, now);
          if (!state.local.seeding().seedClosed(o, v.generation())) {
            // the node's own trip (its failures the fleet may not have heard of): kept, and
            // published at recovery as a trip made while degraded
            state
                .local
                .seeding()
                .seed(
                    state.local.storedState(),
                    state.local.openUntilMillis(),
                    state.local.openMillis(),
                    o,
                    v.generation());
            if (state.resolved.policy().storeFailureMode() != StoreFailureMode.ALLOW_ALL) {
              state.trippedWhileDegraded.set(true);
            }
          }
        } else {
          state
              .local
              .seeding()
              .seed(State.OPEN, now + length, length, localOverride(v, now), v.generation());
        }
      }
      state.seededFor = degradation;
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
