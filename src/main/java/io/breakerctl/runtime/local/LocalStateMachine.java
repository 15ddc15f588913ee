package io.breakerctl.runtime.local;

import io.breakerctl.runtime.model.AdmissionReason;
import io.breakerctl.runtime.model.EffectiveState;
import io.breakerctl.runtime.model.OverrideOutcome;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.RecordOutcome;
import io.breakerctl.runtime.model.RenewOutcome;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;
import io.breakerctl.runtime.model.Transitions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * One breaker kept in this process: the state machine of the Lua scripts ({@code acquire.lua},
 * {@code record.lua}, {@code override.lua} and their {@code prelude.lua}) in Java. It is the
 * runtime's LOCAL mode and its fallback while Redis is unreachable, so every decision matches the
 * scripts: the same window buckets, trip rules, lease rules, backoff and override semantics.
 *
 * <p>Time comes only from the injected {@link Clock}. Changes made by time alone (an open window
 * ending, an override expiring) follow {@link EffectiveState#of}: {@link #state()} shows them at
 * once, and the first operation that notices them records the transition.
 *
 * <p>Thread-safe. A CLOSED breaker without an override admits with one volatile read of an
 * immutable admission (no lock, no clock read, no allocation). Every other operation runs under one
 * lock, so each transition has exactly one winner and every count is exact. Listeners are called
 * after the lock is released, one transition at a time in generation order; a transition may be
 * delivered by another thread that is delivering at the time.
 */
public final class LocalStateMachine {

  private static final System.Logger LOG = System.getLogger(LocalStateMachine.class.getName());

  /**
   * The answer of {@link #tryAcquire}, as {@code acquire.lua} returns it.
   *
   * @param allowed whether the call may run
   * @param state the effective state at the decision
   * @param reason CLOSED, FORCED_CLOSED, DISABLED, METRICS_ONLY, POLICY_DISABLED, PROBE (allowed),
   *     OPEN, FORCED_OPEN, PROBES_BUSY (rejected)
   * @param generation the generation admitted in; {@link #record} takes it back
   * @param leaseId the probe lease id when {@code reason} is PROBE, else null
   * @param untilMillis for PROBE the lease's expiry; for a rejection when it may end (the open
   *     window's end, the override's expiry, the earliest lease expiry), 0 when unknown
   */
  public record Admission(
      boolean allowed,
      State state,
      AdmissionReason reason,
      long generation,
      String leaseId,
      long untilMillis) {}

  /**
   * The answer of {@link #record}, as {@code record.lua} returns it.
   *
   * @param state the effective state after the outcome
   * @param windowFailures failures in the window when the outcome was counted (at a trip: the count
   *     that tripped; after probes close the breaker: 0)
   * @param windowCalls calls in the window likewise
   * @param transitioned whether this outcome caused a trip, a close or a reopen (changes noticed by
   *     time alone are not counted here)
   * @param generation the generation after the outcome
   * @param accepted whether the outcome counted toward state
   * @param reason COUNTED, STALE_GENERATION, STALE_LEASE, LEASE_EXPIRED or NOT_COUNTED
   */
  public record Result(
      State state,
      long windowFailures,
      long windowCalls,
      boolean transitioned,
      long generation,
      boolean accepted,
      RecordOutcome reason) {}

  /**
   * The answer of {@link #override} and {@link #clearOverride}, as {@code override.lua} returns it.
   *
   * @param changed whether anything changed (false only for NOT_OVERRIDDEN)
   * @param state the effective state after
   * @param outcome SET, UPDATED, CLEARED or NOT_OVERRIDDEN
   * @param generation the generation after
   * @param previous the effective state before
   */
  public record OverrideResult(
      boolean changed, State state, OverrideOutcome outcome, long generation, State previous) {}

  /**
   * An operator override held by the machine.
   *
   * @param kind FORCED_OPEN, FORCED_CLOSED, DISABLED or METRICS_ONLY
   * @param untilMillis when it expires, 0 for never
   * @param actor who set it
   * @param reason why
   * @param setAtMillis when it was set or last updated
   */
  public record ActiveOverride(
      State kind, long untilMillis, String actor, String reason, long setAtMillis) {}

  /**
   * The answer of {@link #warm}, as {@code warm.lua} returns it.
   *
   * @param written whether the policy was taken
   * @param outcome WARMED, UNCHANGED (this version is held) or STALE (a newer one is held)
   * @param policyId the warmed policy id held afterwards
   * @param version the warmed version held afterwards
   */
  public record Warmed(boolean written, String outcome, String policyId, long version) {}

  /** The stored fields readers need, published after every change. */
  private record View(
      State state, long openUntil, long openMillis, ActiveOverride override, long generation) {}

  private final Clock clock;
  private final ReentrantLock lock = new ReentrantLock();
  private final List<Consumer<LocalTransition>> listeners = new CopyOnWriteArrayList<>();
  private final Queue<LocalTransition> outbox = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean delivering = new AtomicBoolean();

  private volatile Policy policy;
  private volatile View view;
  // Non-null exactly when the stored state is CLOSED and no override is held: the fast path.
  private volatile Admission closedAdmission;

  // Guarded by lock: the script's hash fields.
  private State stored = State.CLOSED;
  private long openUntil;
  private long openMillis;
  private ActiveOverride override;
  private long generation;
  private long halfOpenSuccesses;
  private long failuresTotal;
  private long successesTotal;
  private String warmedId;
  private long warmedVersion;
  private final ProbeLeases leases = new ProbeLeases();
  private final SlidingWindow window = new SlidingWindow();
  private final List<LocalTransition> pending = new ArrayList<>();

  /**
   * Creates a CLOSED breaker at generation 0 with an empty window.
   *
   * @param policy the policy in force
   * @param clock the time source of every decision
   */
  public LocalStateMachine(Policy policy, Clock clock) {
    this.policy = Objects.requireNonNull(policy, "policy");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.view = new View(State.CLOSED, 0, 0, null, 0);
    this.closedAdmission = closed(0);
  }

  /**
   * Replaces the policy; the next operation uses it. The window is not touched here: as in the
   * script, the next counted outcome numbers its bucket with the new bucket length, and a bucket
   * number that lands behind the stored one or a whole window ahead of it (what a changed bucket
   * length gives at any real clock time) resets the window.
   */
  public void setPolicy(Policy policy) {
    Objects.requireNonNull(policy, "policy");
    lock.lock();
    try {
      this.policy = policy;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Warms a resolved policy version, as {@code warm.lua} does: for the same policy id an older or
   * equal version never replaces the one held (STALE, UNCHANGED); a newer version or another policy
   * id is written (WARMED) and, as {@link #setPolicy}, used by the next operation. No transition is
   * recorded.
   *
   * @param policyId the resolved policy's id
   * @param version its version, at least 1
   * @param policy its fields
   * @throws IllegalArgumentException for a version below 1
   */
  public Warmed warm(String policyId, long version, Policy policy) {
    Objects.requireNonNull(policyId, "policyId");
    Objects.requireNonNull(policy, "policy");
    if (version < 1) {
      throw new IllegalArgumentException("version must be >= 1 but was " + version);
    }
    lock.lock();
    try {
      if (policyId.equals(warmedId)) {
        if (warmedVersion > version) {
          return new Warmed(false, "STALE", warmedId, warmedVersion);
        }
        if (warmedVersion == version) {
          return new Warmed(false, "UNCHANGED", warmedId, warmedVersion);
        }
      }
      warmedId = policyId;
      warmedVersion = version;
      this.policy = policy;
      return new Warmed(true, "WARMED", policyId, version);
    } finally {
      lock.unlock();
    }
  }

  /** The policy in force. */
  public Policy policy() {
    return policy;
  }

  /**
   * Registers a listener for every transition recorded from now on. Listeners run after the
   * machine's lock is released, one transition at a time, in generation order; an exception thrown
   * by a listener is logged and does not reach the caller.
   */
  public void onTransition(Consumer<LocalTransition> listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /**
   * Asks whether a call may run, as {@code acquire.lua} does. CLOSED without an override admits at
   * once. Otherwise time-based changes are recorded first; in HALF_OPEN expired leases are dropped
   * and a lease is granted while live leases plus probes already succeeded stay below {@code
   * halfOpenPermits}.
   *
   * @param owner the caller (node id); a probe result must name the same owner
   */
  public Admission tryAcquire(String owner) {
    Objects.requireNonNull(owner, "owner");
    Admission fast = closedAdmission;
    if (fast != null) {
      return fast;
    }
    lock.lock();
    try {
      long now = clock.millis();
      Policy p = policy;
      State state = settle(now);
      switch (state) {
        case FORCED_OPEN:
          return new Admission(
              false, state, AdmissionReason.FORCED_OPEN, generation, null, override.untilMillis());
        case FORCED_CLOSED:
        case DISABLED:
        case METRICS_ONLY:
        case CLOSED:
          return new Admission(true, state, AdmissionReason.of(state), generation, null, 0);
        default:
          break;
      }
      if (!p.enabled()) {
        return new Admission(true, state, AdmissionReason.POLICY_DISABLED, generation, null, 0);
      }
      if (state == State.OPEN) {
        return new Admission(false, state, AdmissionReason.OPEN, generation, null, openUntil);
      }
      leases.removeExpired(now);
      if (leases.size() + halfOpenSuccesses < p.halfOpenPermits()) {
        long until = now + p.probeLease().toMillis();
        String id = leases.grant(owner, now, until);
        return new Admission(true, state, AdmissionReason.PROBE, generation, id, until);
      }
      return new Admission(
          false, state, AdmissionReason.PROBES_BUSY, generation, null, leases.earliestExpiry());
    } finally {
      finish();
    }
  }

  /**
   * The answer of {@link #renew}, as {@code renew.lua} returns it.
   *
   * @param state the effective state after
   * @param reason RENEWED, PROBE_TIMED_OUT (the breaker reopened), LEASE_EXPIRED or STALE_LEASE
   * @param generation the generation after
   * @param untilMillis for RENEWED the lease's new expiry, for PROBE_TIMED_OUT the open window's
   *     end, else 0
   * @param renewals the lease's renewals so far (0 when no lease was held)
   */
  public record Renewal(
      State state, RenewOutcome reason, long generation, long untilMillis, long renewals) {}

  /**
   * Keeps a running probe's lease alive, as {@code renew.lua} does. After time-based changes are
   * recorded: a live lease of this owner and generation in HALF_OPEN expires {@code
   * probeLeaseSeconds} from now again (RENEWED), unless its probe started {@code maxProbeSeconds}
   * or more ago (non-zero): then the probe counts as failed and the breaker reopens with the open
   * window doubled up to {@code maxOpenSeconds} (PROBE_TIMED_OUT). A lease past its expiry is not
   * renewed (LEASE_EXPIRED); no such lease is STALE_LEASE. Nothing but the lease changes unless the
   * probe timed out.
   *
   * @param leaseId the lease {@link #tryAcquire} granted
   * @param owner the owner it was granted to
   * @param generation the generation it was granted in
   */
  public Renewal renew(String leaseId, String owner, long generation) {
    Objects.requireNonNull(leaseId, "leaseId");
    Objects.requireNonNull(owner, "owner");
    lock.lock();
    try {
      long now = clock.millis();
      Policy p = policy;
      State state = settle(now);
      ProbeLeases.Lease l =
          state == State.HALF_OPEN && generation == this.generation
              ? leases.get(leaseId, owner)
              : null;
      if (l == null) {
        return new Renewal(state, RenewOutcome.STALE_LEASE, this.generation, 0, 0);
      }
      if (l.expiry() <= now) {
        return new Renewal(state, RenewOutcome.LEASE_EXPIRED, this.generation, 0, 0);
      }
      if (timedOut(p, l, now)) {
        reopen(now, p, TransitionCause.PROBE_TIMED_OUT);
        return new Renewal(
            State.OPEN, RenewOutcome.PROBE_TIMED_OUT, this.generation, openUntil, l.renewals());
      }
      long until = now + p.probeLease().toMillis();
      ProbeLeases.Lease renewed = leases.renew(leaseId, owner, until);
      return new Renewal(state, RenewOutcome.RENEWED, this.generation, until, renewed.renewals());
    } finally {
      finish();
    }
  }

  /** The owner of the leases {@link #holdLostProbes} takes. */
  public static final String LOST_PROBES = "(lost)";

  /**
   * reassert.lua for a trip put back half-open when the lost incarnation was half-open: every probe
   * slot held for one {@code probeLeaseSeconds} by a lease of {@link #LOST_PROBES}, since probes
   * granted in the lost incarnation may still run.
   */
  public void holdLostProbes() {
    lock.lock();
    try {
      long now = clock.millis();
      if (settle(now) != State.HALF_OPEN) {
        return;
      }
      long until = now + policy.probeLease().toMillis();
      for (int i = leases.size(); i < policy.halfOpenPermits(); i++) {
        leases.grant(LOST_PROBES, now, until);
      }
    } finally {
      finish();
    }
  }

  private static boolean timedOut(Policy p, ProbeLeases.Lease l, long now) {
    long max = p.maxProbe().toMillis();
    return max > 0 && now - l.grantedAt() >= max;
  }

  /** record.lua/renew.lua backoff(): a failed probe reopens for the last window doubled. */
  private void reopen(long now, Policy p, TransitionCause cause) {
    long base = openMillis > 0 ? openMillis : p.open().toMillis();
    openFor(now, Math.min(base * 2, p.maxOpen().toMillis()), cause);
  }

  /**
   * Records call outcomes, as {@code record.lua} does. A call reported alone ({@code successes} 1,
   * {@code failures} 0) at least {@code slowCallMillis} slow counts as a failure. Every failure and
   * success is added to the totals, counted in the window or not. Then, after time-based changes
   * are recorded:
   *
   * <ul>
   *   <li>with a lease id and no outcome (0 failures, 0 successes): the lease is given back unused,
   *       removed in any state and generation (RELEASED; STALE_LEASE when this owner holds no such
   *       lease);
   *   <li>with a lease id: only a live lease of this owner and generation in HALF_OPEN counts
   *       (STALE_LEASE, LEASE_EXPIRED otherwise); a failure reopens with the open window doubled up
   *       to {@code maxOpenSeconds}, as does any result {@code maxProbeSeconds} or more after the
   *       lease's grant (PROBE_TIMED_OUT); {@code halfOpenPermits} successes close and empty the
   *       window;
   *   <li>a known generation that is not the current one changes nothing (STALE_GENERATION);
   *   <li>in CLOSED, FORCED_CLOSED and METRICS_ONLY outcomes enter the window; only CLOSED with an
   *       enabled policy trips, on {@code failureThreshold} failures or, once {@code minimumCalls}
   *       calls are in the window, on {@code failureRateThreshold}; a trip empties the window;
   *   <li>in any other state nothing is counted in the window (NOT_COUNTED).
   * </ul>
   *
   * @param failures failed calls, at least 0
   * @param successes successful calls, at least 0 (batches allowed)
   * @param durationMillis the duration of the one call reported, negative (-1) for none
   * @param generation the generation the calls were admitted in, -1 when unknown
   * @param leaseId the probe lease the call ran under, null or empty for none
   * @param owner the caller (node id) that acquired the lease
   * @throws IllegalArgumentException for negative counts or a generation below -1
   */
  public Result record(
      long failures,
      long successes,
      long durationMillis,
      long generation,
      String leaseId,
      String owner) {
    if (failures < 0 || successes < 0) {
      throw new IllegalArgumentException(
          "counts must be >= 0 but were failures=" + failures + ", successes=" + successes);
    }
    if (generation < -1) {
      throw new IllegalArgumentException(
          "generation must be >= -1 (-1 unknown) but was " + generation);
    }
    Objects.requireNonNull(owner, "owner");
    lock.lock();
    try {
      long now = clock.millis();
      Policy p = policy;
      if (p.slowCallMillis().isPresent()
          && durationMillis >= p.slowCallMillis().getAsInt()
          && successes > 0
          && failures == 0) {
        successes--;
        failures = 1;
      }
      failuresTotal += failures;
      successesTotal += successes;
      State state = settle(now);
      long current = this.generation;
      boolean accepted = false;
      boolean transitioned = false;
      RecordOutcome reason = RecordOutcome.COUNTED;
      long wf = window.failures();
      long wc = window.calls();
      if (leaseId != null && !leaseId.isEmpty() && failures == 0 && successes == 0) {
        if (leases.expiryOf(leaseId, owner) != null) {
          leases.remove(leaseId, owner);
          accepted = true;
          reason = RecordOutcome.RELEASED;
        } else {
          reason = RecordOutcome.STALE_LEASE;
        }
      } else if (leaseId != null && !leaseId.isEmpty()) {
        ProbeLeases.Lease l =
            state == State.HALF_OPEN && generation == current ? leases.get(leaseId, owner) : null;
        if (l == null) {
          reason = RecordOutcome.STALE_LEASE;
        } else if (l.expiry() <= now) {
          reason = RecordOutcome.LEASE_EXPIRED;
        } else {
          leases.remove(leaseId, owner);
          accepted = true;
          if (timedOut(p, l, now) || failures > 0) {
            reopen(
                now,
                p,
                timedOut(p, l, now)
                    ? TransitionCause.PROBE_TIMED_OUT
                    : TransitionCause.PROBE_FAILED);
            state = State.OPEN;
            transitioned = true;
          } else if (halfOpenSuccesses + 1 >= p.halfOpenPermits()) {
            close(now, p);
            state = State.CLOSED;
            transitioned = true;
            wf = 0;
            wc = 0;
          } else {
            halfOpenSuccesses++;
          }
        }
      } else if (generation != -1 && generation != current) {
        reason = RecordOutcome.STALE_GENERATION;
      } else if (state == State.CLOSED
          || state == State.FORCED_CLOSED
          || state == State.METRICS_ONLY) {
        accepted = true;
        window.count(now, p.window().toMillis(), failures, successes);
        wf = window.failures();
        wc = window.calls();
        if (state == State.CLOSED && p.enabled() && failures > 0) {
          TransitionCause cause = tripCause(p, wf, wc);
          if (cause != null) {
            openFor(now, p.open().toMillis(), cause);
            window.clear(now, p.window().toMillis());
            state = State.OPEN;
            transitioned = true;
          }
        }
      } else {
        reason = RecordOutcome.NOT_COUNTED;
      }
      return new Result(state, wf, wc, transitioned, this.generation, accepted, reason);
    } finally {
      finish();
    }
  }

  /**
   * Sets or updates an operator override, as {@code override.lua} does: FORCED_OPEN rejects every
   * call; FORCED_CLOSED and METRICS_ONLY admit every call and count outcomes in the window but
   * never trip; DISABLED admits every call and counts only the totals. Setting the override already
   * held updates it (OVERRIDE_UPDATED); any other is a new override (OVERRIDE_SET). The machine
   * state underneath (an open window, its backoff) is kept for when the override ends.
   *
   * @param kind FORCED_OPEN, FORCED_CLOSED, DISABLED or METRICS_ONLY
   * @param forOrZero how long it lasts; {@link Duration#ZERO} until cleared
   * @param actor who sets it
   * @param reason why (null reads as empty)
   * @throws IllegalArgumentException for a kind that is not an override or a negative duration
   */
  public OverrideResult override(State kind, Duration forOrZero, String actor, String reason) {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(forOrZero, "forOrZero");
    Objects.requireNonNull(actor, "actor");
    if (!kind.isOverride()) {
      throw new IllegalArgumentException(
          "override must be one of FORCED_OPEN, FORCED_CLOSED, DISABLED, METRICS_ONLY but was "
              + kind);
    }
    if (forOrZero.isNegative()) {
      throw new IllegalArgumentException("override duration must be >= 0 but was " + forOrZero);
    }
    lock.lock();
    try {
      long now = clock.millis();
      State previous = settle(now);
      long duration = forOrZero.toMillis();
      long until = duration > 0 ? now + duration : 0;
      boolean update = override != null && override.kind() == kind;
      override = new ActiveOverride(kind, until, actor, reason == null ? "" : reason, now);
      transition(
          now,
          previous,
          kind,
          update ? TransitionCause.OVERRIDE_UPDATED : TransitionCause.OVERRIDE_SET);
      return new OverrideResult(
          true, kind, update ? OverrideOutcome.UPDATED : OverrideOutcome.SET, generation, previous);
    } finally {
      finish();
    }
  }

  /**
   * Clears the override, as {@code override.lua} does: the machine resumes where it was, except
   * that an open window that ended meanwhile resumes as HALF_OPEN. Without an override nothing
   * changes (NOT_OVERRIDDEN).
   *
   * @param actor who clears it
   * @param reason why (not kept: the machine keeps no audit)
   */
  public OverrideResult clearOverride(String actor, String reason) {
    Objects.requireNonNull(actor, "actor");
    lock.lock();
    try {
      long now = clock.millis();
      State previous = settle(now);
      if (override == null) {
        return new OverrideResult(
            false, previous, OverrideOutcome.NOT_OVERRIDDEN, generation, previous);
      }
      State was = override.kind();
      State to = endOverride(now);
      transition(now, was, to, TransitionCause.OVERRIDE_CLEARED);
      return new OverrideResult(true, to, OverrideOutcome.CLEARED, generation, previous);
    } finally {
      finish();
    }
  }

  /**
   * Takes the fleet's shared state exactly, without recording transitions: the stored state, the
   * open window, the override with its expiry and the generation replace the machine's own. The
   * runtime calls it when this machine starts deciding for a node that lost Redis (seeded from the
   * node's last shared view) and when Redis answers again (reconcile); the caller reports what the
   * node enforces, so no listener hears of a change the fleet did not make. The window counts are
   * kept: they are this node's own outcomes.
   *
   * @param storedState the shared machine state: CLOSED, OPEN or HALF_OPEN
   * @param openUntilMillis the open window's end on this machine's clock (0 for none)
   * @param openMillis the open window's length, the base of the next backoff (0 for the policy's)
   * @param override the override in force, or null for none ({@code untilMillis} on this clock)
   * @param generation the shared generation (at least 0)
   * @throws IllegalArgumentException for an override as the stored state or a negative generation
   */
  public void seed(
      State storedState,
      long openUntilMillis,
      long openMillis,
      ActiveOverride override,
      long generation) {
    Objects.requireNonNull(storedState, "storedState");
    if (storedState.isOverride()) {
      throw new IllegalArgumentException(
          "seeded state must be CLOSED, OPEN or HALF_OPEN but was " + storedState);
    }
    checkSeed(override, generation);
    lock.lock();
    try {
      stored = storedState;
      openUntil = storedState == State.CLOSED ? 0 : openUntilMillis;
      this.openMillis = storedState == State.CLOSED ? 0 : Math.max(0, openMillis);
      this.override = override;
      this.generation = generation;
      halfOpenSuccesses = 0;
      leases.clear();
    } finally {
      finish();
    }
  }

  /**
   * Takes the fleet's CLOSED state at {@code generation} (as {@link #seed} with CLOSED and no
   * override), but only while this machine is itself CLOSED without an override; otherwise changes
   * nothing and answers false. Atomic with respect to {@link #record}: a runtime following a fleet
   * that is CLOSED must not erase a trip this node's own failures made a moment ago, which a check
   * of {@link #storedState()} before {@link #seed} could not rule out (the trip may be under way in
   * another thread between the two).
   *
   * @param generation the shared generation (at least 0)
   * @return whether the machine took it (false: the machine is open on its own count)
   */
  public boolean seedClosed(long generation) {
    if (generation < 0) {
      throw new IllegalArgumentException("generation must be >= 0 but was " + generation);
    }
    lock.lock();
    try {
      if (stored != State.CLOSED || override != null) {
        return false;
      }
      openUntil = 0;
      openMillis = 0;
      this.generation = generation;
      halfOpenSuccesses = 0;
      leases.clear();
      return true;
    } finally {
      finish();
    }
  }

  /**
   * Takes the fleet's CLOSED state at {@code generation} with its {@code override} (as {@link
   * #seed} with CLOSED), but only while this machine's stored state is CLOSED; otherwise changes
   * nothing and answers false. Atomic with respect to {@link #record}, as {@link
   * #seedClosed(long)}: a node seeding its machine as it degrades must not erase a trip its own
   * failures made a moment ago in another thread.
   *
   * @param override the override in force, or null for none
   * @param generation the shared generation (at least 0)
   * @return whether the machine took it (false: the machine is open on its own count)
   */
  public boolean seedClosed(ActiveOverride override, long generation) {
    checkSeed(override, generation);
    lock.lock();
    try {
      if (stored != State.CLOSED) {
        return false;
      }
      openUntil = 0;
      openMillis = 0;
      this.override = override;
      this.generation = generation;
      halfOpenSuccesses = 0;
      leases.clear();
      return true;
    } finally {
      finish();
    }
  }

  private static void checkSeed(ActiveOverride override, long generation) {
    if (generation < 0) {
      throw new IllegalArgumentException("generation must be >= 0 but was " + generation);
    }
    if (override != null && !override.kind().isOverride()) {
      throw new IllegalArgumentException(
          "override must be one of FORCED_OPEN, FORCED_CLOSED, DISABLED, METRICS_ONLY but was "
              + override.kind());
    }
  }

  /**
   * Empties the failure window, as the scripts do when the shared breaker trips or closes: a node
   * following the fleet to a new generation counts its failures afresh from there.
   */
  public void clearWindow() {
    lock.lock();
    try {
      window.clear(clock.millis(), policy.window().toMillis());
    } finally {
      finish();
    }
  }

  /**
   * Records the changes time made on its own (an override expired, an open window ended), as every
   * script does first (prelude {@code settle()}), and returns the effective state. {@code
   * reassert.lua} has no twin here; the in-process store calls this before deciding as it does.
   */
  public State settle() {
    lock.lock();
    try {
      return settle(clock.millis());
    } finally {
      finish();
    }
  }

  /** The effective state at the clock's time (an ended open window reads HALF_OPEN). */
  public State state() {
    View v = view;
    ActiveOverride o = v.override();
    return EffectiveState.of(
        v.state(),
        v.openUntil(),
        o == null ? null : o.kind(),
        o == null ? 0 : o.untilMillis(),
        clock.millis());
  }

  /**
   * The stored machine state, as the script's {@code state} field: CLOSED, OPEN or HALF_OPEN (an
   * override is held beside it; an ended open window reads OPEN until an operation notices it).
   */
  public State storedState() {
    return view.state();
  }

  /** The stored open window's length in ms (the base of the next backoff), 0 when closed. */
  public long openMillis() {
    return view.openMillis();
  }

  /** The override in force at the clock's time, if any. */
  public Optional<ActiveOverride> activeOverride() {
    ActiveOverride o = view.override();
    if (o == null || EffectiveState.overrideExpired(o.untilMillis(), clock.millis())) {
      return Optional.empty();
    }
    return Optional.of(o);
  }

  /** The generation: starts at 0 and grows by one with every transition. */
  public long generation() {
    return view.generation();
  }

  /** The stored open window's end in ms, 0 when none (kept through HALF_OPEN until closed). */
  public long openUntilMillis() {
    return view.openUntil();
  }

  /**
   * Failures in the sliding window as of the last counted outcome (buckets that aged out since are
   * subtracted when the next outcome is counted, as in the script).
   */
  public long windowFailures() {
    lock.lock();
    try {
      return window.failures();
    } finally {
      lock.unlock();
    }
  }

  /** Calls in the sliding window as of the last counted outcome. */
  public long windowCalls() {
    lock.lock();
    try {
      return window.calls();
    } finally {
      lock.unlock();
    }
  }

  /** Every failure ever recorded, counted in the window or not (stale and slow ones included). */
  public long failuresTotal() {
    lock.lock();
    try {
      return failuresTotal;
    } finally {
      lock.unlock();
    }
  }

  /** Every success ever recorded, counted in the window or not. */
  public long successesTotal() {
    lock.lock();
    try {
      return successesTotal;
    } finally {
      lock.unlock();
    }
  }

  // ---- the prelude, under the lock ----

  private State effective(long now) {
    return EffectiveState.of(
        stored,
        openUntil,
        override == null ? null : override.kind(),
        override == null ? 0 : override.untilMillis(),
        now);
  }

  /** prelude settle(): records an expired override or an ended open window. */
  private State settle(long now) {
    if (override != null && EffectiveState.overrideExpired(override.untilMillis(), now)) {
      State was = override.kind();
      State to = endOverride(now);
      transition(now, was, to, TransitionCause.OVERRIDE_EXPIRED);
      return to;
    }
    State eff = effective(now);
    if (eff == State.HALF_OPEN && stored == State.OPEN && override == null) {
      stored = State.HALF_OPEN;
      transition(now, State.OPEN, State.HALF_OPEN, TransitionCause.OPEN_WINDOW_ENDED);
    }
    return eff;
  }

  /** prelude end_override(): drops the override; an ended open window resumes as HALF_OPEN. */
  private State endOverride(long now) {
    override = null;
    State to = effective(now);
    stored = to;
    return to;
  }

  /** prelude transition(): checks, bumps the generation, drops leases and probe successes. */
  private void transition(long now, State from, State to, TransitionCause cause) {
    Transitions.check(from, to, cause);
    generation++;
    halfOpenSuccesses = 0;
    leases.clear();
    pending.add(new LocalTransition(from, to, cause, generation, now, window.failures()));
  }

  /** record.lua open_for(): opens from the current machine state for {@code millis}. */
  private void openFor(long now, long millis, TransitionCause cause) {
    State from = stored;
    stored = State.OPEN;
    openMillis = millis;
    openUntil = now + millis;
    transition(now, from, State.OPEN, cause);
  }

  /** record.lua, probes succeeded: HALF_OPEN to CLOSED, open window forgotten, window emptied. */
  private void close(long now, Policy p) {
    stored = State.CLOSED;
    openMillis = 0;
    openUntil = 0;
    transition(now, State.HALF_OPEN, State.CLOSED, TransitionCause.PROBES_SUCCEEDED);
    window.clear(now, p.window().toMillis());
  }

  private static TransitionCause tripCause(Policy p, long wf, long wc) {
    if (wf >= p.failureThreshold()) {
      return TransitionCause.FAILURE_THRESHOLD;
    }
    if (p.failureRateThreshold().isPresent()
        && wc >= p.minimumCalls()
        && wf * 100.0 >= p.failureRateThreshold().getAsDouble() * wc) {
      return TransitionCause.FAILURE_RATE;
    }
    return null;
  }

  private static Admission closed(long generation) {
    return new Admission(true, State.CLOSED, AdmissionReason.CLOSED, generation, null, 0);
  }

  // ---- publication and delivery ----

  /**
   * Publishes the stored fields and queues the transitions, then releases the lock and delivers.
   */
  private void finish() {
    try {
      View v = view;
      if (v.generation() != generation
          || v.state() != stored
          || v.openUntil() != openUntil
          || v.openMillis() != openMillis
          || v.override() != override) {
        view = new View(stored, openUntil, openMillis, override, generation);
        closedAdmission = stored == State.CLOSED && override == null ? closed(generation) : null;
      }
      if (!pending.isEmpty()) {
        outbox.addAll(pending);
        pending.clear();
      }
    } finally {
      lock.unlock();
    }
    deliver();
  }

  private void deliver() {
    while (!outbox.isEmpty()) {
      if (!delivering.compareAndSet(false, true)) {
        return;
      }
      try {
        LocalTransition t;
        while ((t = outbox.poll()) != null) {
          for (Consumer<LocalTransition> listener : listeners) {
            try {
              listener.accept(t);
            } catch (RuntimeException e) {
              LOG.log(System.Logger.Level.WARNING, "transition listener failed on " + t, e);
            }
          }
        }
      } finally {
        delivering.set(false);
      }
    }
  }
}
