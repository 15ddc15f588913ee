package io.breakerctl.runtime;

import io.breakerctl.runtime.model.AdmissionReason;
import io.breakerctl.runtime.model.State;

/** The admission strategy of each {@link Mode} (see {@link Admission}). */
final class Admissions {

  private Admissions() {}

  /**
   * The strategy of {@code mode} for {@code b} while the store answers (the breaker wraps a SHARED
   * or HYBRID one in {@link DegradedAdmission}).
   */
  static Admission of(Mode mode, DistributedBreaker b) {
    return switch (mode) {
      case LOCAL -> new LocalOnly(b);
      case SHARED -> new Shared(b);
      case HYBRID -> new Hybrid(b);
    };
  }

  /** LOCAL: the local machine decides every call, as a per-process breaker does. */
  private record LocalOnly(DistributedBreaker b) implements Admission {
    @Override
    public Permission decide() {
      return b.decisions.fromLocal(b.local.tryAcquire(b.node()));
    }
  }

  /**
   * SHARED: the acquire script decides every call, except while the node's own trip is in force and
   * the fleet's view is CLOSED (then the local machine decides).
   */
  private record Shared(DistributedBreaker b) implements Admission {
    @Override
    public Permission decide() {
      if (b.ownTrip) {
        SharedView v = b.view;
        if (v == null || v.effective(b.now()) == State.CLOSED) {
          return b.decisions.ownAcquire(v == null ? -1 : v.generation());
        }
      }
      return b.decisions.sharedAcquire();
    }
  }

  /**
   * HYBRID: the shared view decides; a CLOSED view without override admits through one shared
   * permission (no clock, no allocation, no network), and only a half-open view asks the acquire
   * script, for a probe lease.
   */
  private record Hybrid(DistributedBreaker b) implements Admission {
    @Override
    public Permission decide() {
      BreakerGrant closed = b.closedGrant;
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
      boolean own = b.ownTrip;
      SharedView v = b.view;
      State s = v == null ? State.CLOSED : v.effective(b.now());
      long gen = v == null ? -1 : v.generation();
      switch (s) {
        case CLOSED, FORCED_CLOSED, DISABLED, METRICS_ONLY:
          if (s == State.CLOSED && own) {
            return b.decisions.ownAcquire(gen);
          }
          return new BreakerGrant(b, true, s, AdmissionReason.of(s), gen, "", false);
        case OPEN, FORCED_OPEN:
          return b.decisions.reject(s, AdmissionReason.of(s));
        default:
          if (!b.resolved.policy().enabled()) {
            return new BreakerGrant(b, true, s, AdmissionReason.POLICY_DISABLED, gen, "", false);
          }
          if (b.leases.hasProbe()) {
            b.leases.triggerProbe();
            return b.decisions.reject(State.HALF_OPEN, AdmissionReason.PROBE_PENDING);
          }
          return b.decisions.sharedAcquire();
      }
    }
  }
}
