package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.CircuitEvent;
import io.breakerctl.runtime.Permission;
import io.breakerctl.runtime.local.LocalAdmission;
import io.breakerctl.runtime.model.AdmissionReason;
import io.breakerctl.runtime.model.State;

/**
 * The permissions every strategy hands out that need no store: a rejection (observed and told to
 * the listeners) and a decision of the local machine (a granted probe's lease renewed while its
 * call runs).
 */
final class Grants {
  private final BreakerState state;
  private final BreakerEvents events;
  private final ProbeLeases leases;

  Grants(BreakerState state, BreakerEvents events, ProbeLeases leases) {
    this.state = state;
    this.events = events;
    this.leases = leases;
  }

  /** The local machine's decision as a permission. */
  Permission fromLocal(LocalAdmission a) {
    if (!a.allowed()) {
      return reject(a.state(), a.reason());
    }
    return leases.renewing(
        new BreakerGrant(
            state.owner,
            true,
            a.state(),
            a.reason(),
            a.generation(),
            a.leaseId() == null ? "" : a.leaseId(),
            true));
  }

  /** A rejection in {@code s} for {@code reason}. */
  Permission reject(State s, AdmissionReason reason) {
    state.observers.current().rejected(s, reason.code());
    events.emit(CircuitEvent.Type.REJECTED, s, s, reason.code());
    return new BreakerGrant(state.owner, false, s, reason, -1, "", false);
  }
}
