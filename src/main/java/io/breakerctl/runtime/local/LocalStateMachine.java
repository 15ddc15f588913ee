package io.breakerctl.runtime.local;

import io.breakerctl.runtime.model.AdmissionReason;
import io.breakerctl.runtime.model.BackoffHint;
import io.breakerctl.runtime.model.EffectiveState;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.RecordOutcome;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;
import io.breakerctl.runtime.model.Transitions;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;

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
 *
 * <p>The machine keeps the script's hash fields, the call path ({@link #tryAcquire}, {@link
 * #record}), the prelude and the publication of its fields. The rarer operations are reached
 * through it and run under its lock: {@link #overrides()} ({@code override.lua}), {@link #probes()}
 * (renewals, a lost incarnation's probes), {@link #seeding()} (the fleet's state taken over).
 */
public final class LocalStateMachine {

  /** The stored fields readers need, published after every change. */
  private record View(
      State state, long openUntil, long openMillis, ActiveOverride override, long generation) {}

  private final Clock clock;
  private final ReentrantLock lock = new ReentrantLock();
  private final Queue<LocalTransition> outbox = new ConcurrentLinkedQueue<>();
  private final TransitionDelivery delivery = new TransitionDelivery();

  private volatile Policy policy;
  private volatile View view;
  // Non-null exactly when the stored state is CLOSED and no override is held: the fast path.
  private volatile LocalAdmission closedAdmission;

  // Guarded by lock: the script's hash fields (package-private for the operations named above).
  State stored = State.CLOSED;
  long openUntil;
  long openMillis;
  ActiveOverride override;
  long generation;
  long halfOpenSuccesses;
  private long failuresTotal;
  private long successesTotal;
  final ProbeLeases leases = new ProbeLeases();
  final SlidingWindow window = new SlidingWindow();
  private final WarmedVersion warmed = new WarmedVersion();
  private final List<LocalTransition> pending = new ArrayList<>();

  private final LocalOverrides overrides = new LocalOverrides(this);
  private final HalfOpenProbes probes = new HalfOpenProbes(this);
  private final FleetSeeding seeding = new FleetSeeding(this);
  final BackoffHints hints = new BackoffHints(this);

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
  public LocalWarmResult warm(String policyId, long version, Policy policy) {
    Objects.requireNonNull(policyId, "policyId");
    Objects.requireNonNull(policy, "policy");
    if (version < 1) {
      throw new IllegalArgumentException("version must be >= 1 but was " + version);
    }
    lock.lock();
    try {
      LocalWarmResult w = warmed.offer(policyId, version);
      if (w.written()) {
        this.policy = policy;
      }
      return w;
    } finally {
      lock.unlock();
    }
  }

  /** The policy in force. */
  public Policy policy() {
    return policy;
  }

  /** Operator overrides on this machine: set, update, clear. */
  public LocalOverrides overrides() {
    return overrides;
  }

  /**
   * The admitted probes of the half-open window: renewals, and the probes of a lost incarnation.
   */
  public HalfOpenProbes probes() {
    return probes;
  }

  /** The fleet's shared state taken over by this machine (a node degrading or reconciling). */
  public FleetSeeding seeding() {
    return seeding;
  }

  /** The back-off hints this machine took ({@link #record} with a hint). */
  public BackoffHints hints() {
    return hints;
  }

  /**
   * Registers a listener for every transition recorded from now on. Listeners run after the
   * machine's lock is released, one transition at a time, in generation order; an exception thrown
   * by a listener is logged and does not reach the caller.
   */
  public void onTransition(Consumer<LocalTransition> listener) {
    delivery.add(listener);
  }

  /**
   * Asks whether a call may run, as {@code acquire.lua} does. CLOSED without an override admits at
   * once. Otherwise time-based changes are recorded first; in HALF_OPEN expired leases are dropped
   * and a lease is granted while live leases plus probes already succeeded stay below {@code
   * halfOpenPermits}.
   *
   * @param owner the caller (node id); a probe result must name the same owner
   */
  public LocalAdmission tryAcquire(String owner) {
    Objects.requireNonNull(owner, "owner");
    LocalAdmission fast = closedAdmission;
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
          return new LocalAdmission(
              false, state, AdmissionReason.FORCED_OPEN, generation, null, override.untilMillis());
        case FORCED_CLOSED:
        case DISABLED:
        case METRICS_ONLY:
        case CLOSED:
          return new LocalAdmission(true, state, AdmissionReason.of(state), generation, null, 0);
        default:
          break;
      }
      if (!p.enabled()) {
        return new LocalAdmission(
            true, state, AdmissionReason.POLICY_DISABLED, generation, null, 0);
      }
      if (state == State.OPEN) {
        return new LocalAdmission(false, state, AdmissionReason.OPEN, generation, null, openUntil);
      }
      leases.removeExpired(now);
      if (leases.size() + halfOpenSuccesses < p.halfOpenPermits()) {
        long until = now + p.probeLease().toMillis();
        String id = leases.grant(owner, now, until);
        return new LocalAdmission(true, state, AdmissionReason.PROBE, generation, id, until);
      }
      return new LocalAdmission(
          false, state, AdmissionReason.PROBES_BUSY, generation, null, leases.earliestExpiry());
    } finally {
      finish();
    }
  }

  /** {@link #record(long, long, long, long, String, String, BackoffHint)} without a hint. */
  public LocalRecordResult record(
      long failures, long successes, long durationMillis, long gen, String leaseId, String owner) {
    return record(failures, successes, durationMillis, gen, leaseId, owner, null);
  }

  /**
   * Records call outcomes, as {@code record.lua} does. A call reported alone ({@code successes} 1,
   * {@code failures} 0) at least {@code slowCallMillis} slow counts as a failure. Every failure and
   * success is added to the totals, counted in the window or not. Then, after time-based changes
   * are recorded:
   *
   * <ul>
   *   <li>with a lease id: a lease given back unused (no outcome), or a probe's result ({@link
   *       HalfOpenProbes}: a failure reopens with backoff, {@code halfOpenPermits} successes
   *       close);
   *   <li>a known generation that is not the current one changes nothing (STALE_GENERATION);
   *   <li>in CLOSED, FORCED_CLOSED and METRICS_ONLY outcomes enter the window; only CLOSED with an
   *       enabled policy trips, on {@code failureThreshold} failures or, once {@code minimumCalls}
   *       calls are in the window, on {@code failureRateThreshold}; a trip empties the window;
   *   <li>in any other state nothing is counted in the window (NOT_COUNTED);
   *   <li>then a back-off {@code hint} (null: none) opens or lengthens the window ({@link
   *       BackoffHints}).
   * </ul>
   *
   * @param failures failed calls, at least 0
   * @param successes successful calls, at least 0 (batches allowed)
   * @param durationMillis the duration of the one call reported, negative (-1) for none
   * @param generation the generation the calls were admitted in, -1 when unknown
   * @param leaseId the probe lease the call ran under, null or empty for none
   * @param owner the caller (node id) that acquired the lease
   * @param hint the dependency's back-off hint, null for none
   * @throws IllegalArgumentException for negative counts or a generation below -1
   */
  public LocalRecordResult record(
      long failures,
      long successes,
      long durationMillis,
      long generation,
      String leaseId,
      String owner,
      BackoffHint hint) {
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
      if (leaseId != null && !leaseId.isEmpty()) {
        LocalRecordResult r =
            HalfOpenProbes.result(
                this, now, p, state, failures, successes, generation, leaseId, owner, hint);
        return hints.after(now, p, hint, r);
      }
      long current = this.generation;
      boolean accepted = false;
      boolean transitioned = false;
      RecordOutcome reason = RecordOutcome.COUNTED;
      long wf = window.failures();
      long wc = window.calls();
      if (generation != -1 && generation != current) {
        reason = RecordOutcome.STALE_GENERATION;
      } else if (state == State.CLOSED
          || state == State.FORCED_CLOSED
          || state == State.METRICS_ONLY) {
        accepted = true;
        window.count(now, p.window().toMillis(), failures, successes);
        wf = window.failures();
        wc = window.calls();
        if (state == State.CLOSED && p.enabled() && failures > 0) {
          TransitionCause cause = window.tripCause(p);
          if (cause != null) {
            openFor(now, hints.window(now, p, hint, p.open().toMillis()), cause);
            window.clear(now, p.window().toMillis());
            state = State.OPEN;
            transitioned = true;
          }
        }
      } else {
        reason = RecordOutcome.NOT_COUNTED;
      }
      LocalRecordResult r =
          new LocalRecordResult(state, wf, wc, transitioned, this.generation, accepted, reason);
      return hints.after(now, p, hint, r);
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
    return locked(this::settle);
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
   * The counts of the script's hash, read together: the sliding window as of the last counted
   * outcome (buckets that aged out since are subtracted when the next outcome is counted, as in the
   * script) and the totals of every outcome ever recorded.
   */
  public LocalCounts counts() {
    lock.lock();
    try {
      return new LocalCounts(window.failures(), window.calls(), failuresTotal, successesTotal);
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
  State settle(long now) {
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
  State endOverride(long now) {
    override = null;
    State to = effective(now);
    stored = to;
    return to;
  }

  /** prelude transition(): checks, bumps the generation, drops leases and probe successes. */
  void transition(long now, State from, State to, TransitionCause cause) {
    Transitions.check(from, to, cause);
    generation++;
    halfOpenSuccesses = 0;
    leases.clear();
    pending.add(new LocalTransition(from, to, cause, generation, now, window.failures()));
  }

  /** record.lua open_for(): opens from the current machine state for {@code millis}. */
  void openFor(long now, long millis, TransitionCause cause) {
    State from = stored;
    stored = State.OPEN;
    openMillis = millis;
    openUntil = now + millis;
    transition(now, from, State.OPEN, cause);
  }

  private static LocalAdmission closed(long generation) {
    return new LocalAdmission(true, State.CLOSED, AdmissionReason.CLOSED, generation, null, 0);
  }

  // ---- locking, publication and delivery ----

  /** Runs a rarer operation at the clock's time under the lock, then publishes and delivers. */
  <T> T locked(LongFunction<T> operation) {
    lock.lock();
    try {
      return operation.apply(clock.millis());
    } finally {
      finish();
    }
  }

  /** {@link #locked} for an operation without an answer. */
  void update(LongConsumer operation) {
    locked(
        now -> {
          operation.accept(now);
          return null;
        });
  }

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
    if (!outbox.isEmpty()) {
      delivery.deliver(outbox);
    }
  }
}
