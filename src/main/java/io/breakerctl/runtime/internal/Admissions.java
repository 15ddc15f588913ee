package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.Permission;
import io.breakerctl.runtime.model.AdmissionReason;
import io.breakerctl.runtime.model.State;

/** The admission strategy of each {@link Mode} (see {@link Admission}). */
final class Admissions {

  private Admissions() {}

  /**
   * The strategy of {@code mode} for {@code b} while the store answers (the breaker wraps a SHARED
   * or HYBRID one in {@link DegradedAdmission}).
   */
  static Admission of(
      Mode mode, BreakerState state, Decisions decisions, Grants grants, ProbeLeases leases) {
    return switch (mode) {
      case LOCAL -> new LocalOnly(state, grants);
      case SHARED -> new Shared(state, decisions);
      case HYBRID -> new Hybrid(state, decisions, grants, leases);
    };
  }

  /** LOCAL: the local machine decides every call, as a per-process breaker does. */
  private record LocalOnly(BreakerState state, Grants grants) implements Admission {
    @Override
    public Permission decide() {
      return grants.fromLocal(state.local.tryAcquire(state.node()));
    }
  }

  /**
   * SHARED: the acquire script decides every call, except while the node's own trip is in force and
   * the fleet's view is CLOSED (then the local machine decides).
   */
  private record Shared(BreakerState state, Decisions decisions) implements Admission {
    @Override
    public Permission decide() {
      if (state.ownTrip) {
        SharedView v = state.view;
        if (v == null || v.effective(state.now()) == State.CLOSED) {
          return decisions.ownAcquire(v == null ? -1 : v.generation());
        }
      }
      return decisions.sharedAcquire();
    }
  }

  /**
   * HYBRID: the shared view decides; a CLOSED view without override admits through one shared
   * permission (no clock, no allocation, no network), and only a half-open view asks the acquire
   * script, for a probe lease.
   */
  private record Hybrid(BreakerState state, Decisions decisions, Grants grants, ProbeLeases leases)
      implements Admission {
    @Override
    public Permission decide() {
      BreakerGrant closed = state.closedGrant;
      if (closed != null) {
        return closed; // the hot path: no clock, no allocation, no network
      }
      // the own trip before the view: apply() writes the view and then ends the own trip when the
      // fleet trips (follow), so a view read first could be the CLOSED one from before that trip,
      // paired with the own trip that trip ended, and grant a call both the fleet and this node
      // reject (7 calls where at most 6 may pass, CoordinatorFaultIT, about 1 round in 1,000 of
      // four
      // callers; ownTripReadBeforeTheView makes it happen every time). Read in this order, an own
      // trip seen ended comes with the view that ended it, and one seen in force asks the local
      // machine, which that view left open.
      boolean own = state.ownTrip;
      SharedView v = state.view;
      State s = v == null ? State.CLOSED : v.effective(state.now());
      long gen = v == null ? -1 : v.generation();
      switch (s) {
        case CLOSED, FORCED_CLOSED, DISABLED, METRICS_ONLY:
          if (s == State.CLOSED && own) {
            return decisions.ownAcquire(gen);
          }
          return new BreakerGrant(state.owner, true, s, AdmissionReason.of(s), gen, "", false);
        case OPEN, FORCED_OPEN:
          return grants.reject(s, AdmissionReason.of(s));
        default:
          if (!state.resolved.policy().enabled()) {
            return new BreakerGrant(
                state.owner, true, s, AdmissionReason.POLICY_DISABLED, gen, "", false);
          }
          if (leases.hasProbe()) {
            leases.triggerProbe();
            return grants.reject(State.HALF_OPEN, AdmissionReason.PROBE_PENDING);
          }
          return decisions.sharedAcquire();
      }
    }
  }
}
