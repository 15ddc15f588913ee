package io.breakerctl.runtime.local;

import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.RecordOutcome;
import io.breakerctl.runtime.model.RenewOutcome;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;
import java.util.Objects;

/**
 * The probes of one {@link LocalStateMachine}'s half-open window once admitted ({@link
 * LocalStateMachine#probes()}): their renewals ({@code renew.lua}), the slots a lost half-open
 * incarnation's probes hold ({@code reassert.lua}) and, for {@link LocalStateMachine#record} with a
 * lease id, their results ({@code record.lua}). Admission itself stays on {@link
 * LocalStateMachine#tryAcquire}'s path.
 *
 * <p>Thread-safe: each operation runs under the machine's lock, after its time-based changes are
 * recorded, and records its transition as the machine's own operations do.
 */
public final class HalfOpenProbes {

  /** The owner of the leases {@link #holdLost} takes. */
  public static final String LOST_PROBES = "(lost)";

  private final LocalStateMachine m;

  HalfOpenProbes(LocalStateMachine machine) {
    this.m = machine;
  }

  /**
   * Keeps a running probe's lease alive, as {@code renew.lua} does. After time-based changes are
   * recorded: a live lease of this owner and generation in HALF_OPEN expires {@code
   * probeLeaseSeconds} from now again (RENEWED), unless its probe started {@code maxProbeSeconds}
   * or more ago (non-zero): then the probe counts as failed and the breaker reopens with the open
   * window doubled up to {@code maxOpenSeconds} (PROBE_TIMED_OUT). A lease past its expiry is not
   * renewed (LEASE_EXPIRED); no such lease is STALE_LEASE. Nothing but the lease changes unless the
   * probe timed out.
   *
   * @param leaseId the lease {@link LocalStateMachine#tryAcquire} granted
   * @param owner the owner it was granted to
   * @param generation the generation it was granted in
   */
  public LocalRenewal renew(String leaseId, String owner, long generation) {
    Objects.requireNonNull(leaseId, "leaseId");
    Objects.requireNonNull(owner, "owner");
    return m.locked(now -> renew(now, m.policy(), leaseId, owner, generation));
  }

  /**
   * reassert.lua for a trip put back half-open when the lost incarnation was half-open: every probe
   * slot held for one {@code probeLeaseSeconds} by a lease of {@link #LOST_PROBES}, since probes
   * granted in the lost incarnation may still run.
   */
  public void holdLost() {
    m.update(now -> holdLost(now, m.policy()));
  }

  /**
   * Under the machine's lock, the lease branch of {@link LocalStateMachine#record}: a lease given
   * back unused (no outcome), or a probe's result, which counts only for a live lease of this owner
   * and generation in HALF_OPEN; a failure or a result past {@code maxProbeSeconds} reopens with
   * backoff, the last of {@code halfOpenPermits} successes closes.
   *
   * @param state the effective state after the time-based changes
   * @param hint the dependency's back-off hint (null: none): a failed probe reopens for it, capped,
   *     instead of the doubled window
   */
  static LocalRecordResult result(
      LocalStateMachine m,
      long now,
      Policy p,
      State state,
      long failures,
      long successes,
      long generation,
      String leaseId,
      String owner,
      io.breakerctl.runtime.model.BackoffHint hint) {
    boolean accepted = false;
    boolean transitioned = false;
    RecordOutcome reason = RecordOutcome.COUNTED;
    long wf = m.window.failures();
    long wc = m.window.calls();
    if (failures == 0 && successes == 0) {
      if (m.leases.expiryOf(leaseId, owner) != null) {
        m.leases.remove(leaseId, owner);
        accepted = true;
        reason = RecordOutcome.RELEASED;
      } else {
        reason = RecordOutcome.STALE_LEASE;
      }
    } else {
      ProbeLeases.Lease l =
          state == State.HALF_OPEN && generation == m.generation
              ? m.leases.get(leaseId, owner)
              : null;
      if (l == null) {
        reason = RecordOutcome.STALE_LEASE;
      } else if (l.expiry() <= now) {
        reason = RecordOutcome.LEASE_EXPIRED;
      } else {
        m.leases.remove(leaseId, owner);
        accepted = true;
        if (timedOut(p, l, now) || failures > 0) {
          m.openFor(
              now,
              m.hints.window(now, p, hint, backoff(m, p)),
              timedOut(p, l, now) ? TransitionCause.PROBE_TIMED_OUT : TransitionCause.PROBE_FAILED);
          state = State.OPEN;
          transitioned = true;
        } else if (m.halfOpenSuccesses + 1 >= p.halfOpenPermits()) {
          close(m, now, p);
          state = State.CLOSED;
          transitioned = true;
          wf = 0;
          wc = 0;
        } else {
          m.halfOpenSuccesses++;
        }
      }
    }
    return new LocalRecordResult(state, wf, wc, transitioned, m.generation, accepted, reason);
  }

  private LocalRenewal renew(long now, Policy p, String leaseId, String owner, long generation) {
    State state = m.settle(now);
    ProbeLeases.Lease l =
        state == State.HALF_OPEN && generation == m.generation
            ? m.leases.get(leaseId, owner)
            : null;
    if (l == null) {
      return new LocalRenewal(state, RenewOutcome.STALE_LEASE, m.generation, 0, 0);
    }
    if (l.expiry() <= now) {
      return new LocalRenewal(state, RenewOutcome.LEASE_EXPIRED, m.generation, 0, 0);
    }
    if (timedOut(p, l, now)) {
      reopen(m, now, p, TransitionCause.PROBE_TIMED_OUT);
      return new LocalRenewal(
          State.OPEN, RenewOutcome.PROBE_TIMED_OUT, m.generation, m.openUntil, l.renewals());
    }
    long until = now + p.probeLease().toMillis();
    ProbeLeases.Lease renewed = m.leases.renew(leaseId, owner, until);
    return new LocalRenewal(state, RenewOutcome.RENEWED, m.generation, until, renewed.renewals());
  }

  private void holdLost(long now, Policy p) {
    if (m.settle(now) != State.HALF_OPEN) {
      return;
    }
    long until = now + p.probeLease().toMillis();
    for (int i = m.leases.size(); i < p.halfOpenPermits(); i++) {
      m.leases.grant(LOST_PROBES, now, until);
    }
  }

  /** record.lua/renew.lua backoff(): a failed probe reopens for the last window doubled. */
  private static void reopen(LocalStateMachine m, long now, Policy p, TransitionCause cause) {
    m.openFor(now, backoff(m, p), cause);
  }

  private static long backoff(LocalStateMachine m, Policy p) {
    long base = m.openMillis > 0 ? m.openMillis : p.open().toMillis();
    return Math.min(base * 2, p.maxOpen().toMillis());
  }

  /** record.lua, probes succeeded: HALF_OPEN to CLOSED, open window forgotten, window emptied. */
  private static void close(LocalStateMachine m, long now, Policy p) {
    m.stored = State.CLOSED;
    m.openMillis = 0;
    m.openUntil = 0;
    m.transition(now, State.HALF_OPEN, State.CLOSED, TransitionCause.PROBES_SUCCEEDED);
    m.window.clear(now, p.window().toMillis());
  }

  private static boolean timedOut(Policy p, ProbeLeases.Lease l, long now) {
    long max = p.maxProbe().toMillis();
    return max > 0 && now - l.grantedAt() >= max;
  }
}
