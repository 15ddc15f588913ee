package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.CircuitEvent;
import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;
import io.breakerctl.runtime.store.AcquireResult;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.BreakerStore;
import io.breakerctl.runtime.store.Reassertion;
import io.breakerctl.runtime.store.RecordResult;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A breaker's view of the fleet's shared state: learnt from script answers, pub/sub messages and
 * full reads, applied unless it is behind (then re-asserted), followed by the local machine while
 * Redis answers ({@link Reconciliation} adopts it after a degradation).
 */
final class ViewTracker {
  private final BreakerState state;
  private final BreakerContext registry;
  private final BreakerEvents events;
  private final PolicyAdoption policies;
  private final BreakerReports reports;
  private final AtomicBoolean reasserting = new AtomicBoolean();

  /** The policy version stored in the hash at the last full read ("" for none). */
  private volatile String warmedVersion = "";

  ViewTracker(
      BreakerState state, BreakerEvents events, PolicyAdoption policies, BreakerReports reports) {
    this.state = state;
    this.registry = state.registry;
    this.events = events;
    this.policies = policies;
    this.reports = reports;
  }

  void learn(AcquireResult r) {
    SharedView v = state.view;
    if (v == null) {
      registry.refreshSoon(state.id);
      return;
    }
    long gen = BreakerState.generation(r.generation());
    if (gen == v.generation() && r.epoch().equals(v.epoch())) {
      return;
    }
    if (gen > v.generation() && r.epoch().equals(v.epoch()) && !r.state().isOverride()) {
      // keep the last answer until the full read arrives (what a stall then decides from)
      long until = r.state() == State.OPEN ? r.untilMillis() : v.openUntil();
      if (v.override() == null) {
        apply(
            v.withStored(r.state(), until, v.openMillis(), gen, r.epoch(), state.now()),
            null,
            CircuitEvent.Source.ANSWER);
      }
    }
    registry.refreshSoon(state.id);
  }

  void learn(RecordResult r) {
    SharedView v = state.view;
    long gen = BreakerState.generation(r.generation());
    if (v != null && r.epoch().equals(v.epoch()) && gen <= v.generation()) {
      return;
    }
    State stored = r.state().isOverride() ? (v == null ? State.CLOSED : v.stored()) : r.state();
    State override = r.state().isOverride() ? r.state() : null;
    long offset = v == null ? 0 : v.offsetMillis();
    apply(
        new SharedView(
            stored,
            r.openUntilMillis(),
            v == null ? 0 : v.openMillis(),
            override,
            v == null ? 0 : v.overrideUntil(),
            v == null ? SharedView.OverrideOrigin.UNKNOWN : v.origin(),
            null,
            gen,
            r.epoch(),
            offset,
            state.now()),
        r.transitioned() ? wonCause(v, r) : null,
        r.transitioned() ? CircuitEvent.Source.WON : CircuitEvent.Source.ANSWER);
    if (r.transitioned()) {
      registry.transitionWon(state.id);
    }
    registry.refreshSoon(state.id);
  }

  /** Applies a pub/sub transition message about this breaker (already parsed). */
  void onTransitionMessage(FleetMessage m) {
    SharedView v = state.view;
    long offset = v == null ? 0 : v.offsetMillis();
    State stored = v == null ? State.CLOSED : v.stored();
    State override = v == null ? null : v.override();
    long overrideUntil = v == null ? 0 : v.overrideUntil();
    SharedView.OverrideOrigin origin = v == null ? SharedView.OverrideOrigin.UNKNOWN : v.origin();
    long openUntil = v == null ? 0 : v.openUntil();
    long openMillis = v == null ? 0 : v.openMillis();
    if (m.to().isOverride()) {
      override = m.to();
      overrideUntil = m.until();
      origin = new SharedView.OverrideOrigin(m.actor(), m.reason(), m.correlationId());
    } else {
      override = null;
      overrideUntil = 0;
      origin = SharedView.OverrideOrigin.UNKNOWN;
      stored = m.to();
      if (m.to() == State.OPEN) {
        openUntil = m.until();
        openMillis = m.openMillis() > 0 ? m.openMillis() : openMillis;
      } else if (m.to() == State.CLOSED) {
        openUntil = 0;
        openMillis = 0;
      }
    }
    apply(
        new SharedView(
            stored,
            openUntil,
            openMillis,
            override,
            overrideUntil,
            origin,
            m.cause(),
            m.generation(),
            m.epoch(),
            offset,
            state.now()),
        m.cause(),
        CircuitEvent.Source.PUSH);
    registry.refreshAfterPush(state.id);
  }

  /** A warmed policy or another change that needs a full read. */
  void onOtherMessage() {
    registry.refreshSoon(state.id);
  }

  /**
   * The change stamp of what this node holds ({@link BreakerStore#stamps}): when the store's
   * differs, the node missed something and reads the breaker in full.
   */
  String stamp() {
    SharedView v = state.view;
    return v == null
        ? ""
        : BreakerStore.stamp(Long.toString(v.generation()), v.epoch(), warmedVersion);
  }

  /**
   * Whether this node's view holds the breaker away from CLOSED (an open or half-open window, an
   * override): state whose loss would read as CLOSED, so the periodic check compares its stamp.
   */
  boolean holdsState() {
    SharedView v = state.view;
    return v != null && (v.stored() != State.CLOSED || v.override() != null);
  }

  /** Applies a full read of the breaker's hash (refresh, first read). */
  void onSnapshot(BreakerSnapshot s) {
    warmedVersion = s.policyVersionText();
    apply(SharedView.of(s, state.now()), null, CircuitEvent.Source.READ);
    policies.adoptPolicy(s);
  }

  /**
   * Replaces the view with {@code next} unless {@code next} is behind it: the same incarnation at
   * an older generation (a read overtaken by a message, or a Redis that lost writes) is ignored,
   * and when it lost a live override or a running open window this node enforces, the node keeps
   * its view and re-asserts it through a script.
   */
  void apply(SharedView next, TransitionCause cause, CircuitEvent.Source source) {
    State before;
    State lost = null;
    SharedView kept = null;
    synchronized (state) {
      SharedView v = state.view;
      if (v != null && (v.newerThan(next) || !v.epoch().equals(next.epoch()))) {
        lost = v.lostIn(next, state.now());
        if (lost != null || v.newerThan(next)) {
          kept = v;
        }
      }
      if (kept == null) {
        before = v == null ? State.CLOSED : state.acting();
        if (state.closedGrantFor(next) == null) {
          // before the view: a caller that sees the new view (an override, a trip) must not then
          // be admitted by the CLOSED grant of the old one (FallbackIT saw a call admitted under
          // a FORCED_OPEN that view() already showed, at load 49: this thread was preempted
          // between writing the view and the grant)
          state.closedGrant = null;
        }
        state.view = next;
        if (v != null && !v.epoch().equals(next.epoch())) {
          // another incarnation (a FLUSHALL, a failover to an empty replica, an expiry), however
          // this node learnt it (a read, a message, a script's answer): what it reported went
          // with the old keys, so it reports again at the next flush tick instead of within ten
          // heartbeat intervals (the fleet view showed NODES 0 for minutes; a node that learnt
          // the new epoch from another node's re-assertion did not report again at all)
          reports.resend();
        }
        if (registry.mode() != Mode.LOCAL
            && state.guard().up()
            && (v == null
                || v.generation() != next.generation()
                || !v.epoch().equals(next.epoch()))) {
          // a new generation of the same incarnation: the scripts emptied the fleet's window (a
          // trip or a close). A new incarnation (the key created, flushed, a failover) lost the
          // fleet's counts, not this node's: what it counted stays.
          follow(
              v,
              next,
              v != null && v.epoch().equals(next.epoch()) && next.generation() > v.generation());
        }
        state.closedGrant = state.ownTrip ? null : state.closedGrantFor(next);
      } else {
        before = null;
      }
    }
    if (lost != null) {
      reassertSoon(kept, lost);
      return;
    }
    if (before == null) {
      return;
    }
    State after = next.effective(state.now());
    if (after != before && state.guard().up() && registry.mode() != Mode.LOCAL) {
      events.transition(before, after, cause, source);
    }
  }

  /**
   * Keeps a SHARED or HYBRID node's local machine in step with the fleet's state while Redis
   * answers, so that it counts this node's failures against the fleet's current generation from the
   * first one: a fleet CLOSED at a new generation of the same incarnation starts the local count
   * afresh (unless the node's own trip is in force; a new incarnation keeps the count: its key was
   * created or lost, and this node's failures are still this node's), a fleet away from CLOSED ends
   * the own trip and leaves the local machine open from now (never a copy of a half-open window
   * another node probes: the same rule as {@link DegradedDecisions#seedIfNeeded}). Called under the
   * breaker's monitor.
   */
  private void follow(SharedView previous, SharedView next, boolean afresh) {
    long now = state.now();
    if (next.stored() == State.CLOSED) {
      if (!state.ownTrip) {
        long gen = Math.max(0, next.generation());
        if (previous == null
            || (previous.stored() == State.CLOSED && previous.override() == null)) {
          // the fleet was CLOSED: a machine that is not is open on this node's own failures, and
          // the thread whose failure tripped it has not marked it yet (ownTripped() follows every
          // trip); seeding CLOSED over it would erase that trip and its emptied window (9 calls
          // where at most 6 may pass, 2 of 600 rounds). seedClosed decides under the machine's
          // lock, so a trip under way in another thread is never overtaken.
          if (!state.local.seeding().seedClosed(gen)) {
            state.ownTrip = true;
            return;
          }
        } else {
          state.local.seeding().seed(State.CLOSED, 0, 0, null, gen);
        }
        if (afresh) {
          state
              .local
              .seeding()
              .clearWindow(); // (the first read keeps what the node counted before it)
        }
      }
      return;
    }
    state.ownTrip = false;
    long length =
        next.openMillis() > 0 ? next.openMillis() : state.resolved.policy().open().toMillis();
    state
        .local
        .seeding()
        .seed(State.OPEN, now + length, length, null, Math.max(0, next.generation()));
    state.local.seeding().clearWindow();
  }

  /** Re-asserts what {@code v} enforces and Redis lost (one script call at a time). */
  void reassertSoon(SharedView v, State lost) {
    if (!reasserting.compareAndSet(false, true)) {
      return;
    }
    BreakerStore store = registry.store();
    if (store == null) {
      reasserting.set(false);
      return;
    }
    Reassertion r = reassertion(v, lost);
    store
        .reassert(state.id, state.node(), r, state.resolved.policy())
        .whenComplete(
            (res, e) -> {
              reasserting.set(false);
              if (e != null) {
                state.guard().failure(e);
                return;
              }
              state.guard().success();
              // Redis was behind this node: the report it held may be gone with the lost writes
              // (a failover to a replica that missed them), so it goes again at the next tick
              reports.resend();
              if (res.written()) {
                events.emitEvent(
                    new CircuitEvent(
                        state.id,
                        CircuitEvent.Type.REASSERTED,
                        v.effective(state.now()),
                        res.state(),
                        lost.name(),
                        System.currentTimeMillis(),
                        TransitionCause.REASSERTED,
                        null));
              }
              registry.refreshSoon(state.id); // take what Redis holds once it is no longer behind
            });
  }

  /**
   * The cause of a transition this node's own outcome made, from what the record script answered: a
   * trip (threshold or rate, by the count that tripped), a failed probe, probes that closed.
   */
  private TransitionCause wonCause(SharedView before, RecordResult r) {
    State from = before == null ? State.CLOSED : before.effective(state.now());
    if (r.state() == State.CLOSED) {
      return TransitionCause.PROBES_SUCCEEDED;
    }
    if (from == State.HALF_OPEN) {
      return TransitionCause.PROBE_FAILED;
    }
    return r.windowFailures() >= state.resolved.policy().failureThreshold()
        ? TransitionCause.FAILURE_THRESHOLD
        : TransitionCause.FAILURE_RATE;
  }

  /**
   * Takes {@code next} as the view and seeds the local machine from it exactly. That copy is for a
   * node that Redis answers; a degraded decision made before the guard recovers seeds afresh
   * ({@code DegradedAdmission.seededAcquire}).
   */
  void install(SharedView next) {
    synchronized (state) {
      state.closedGrant = state.closedGrantFor(next); // first: see apply
      state.view = next;
      state.ownTrip = false;
      state.seededFor = -1;
      long now = state.now();
      state
          .local
          .seeding()
          .seed(
              next.stored(),
              next.stored() == State.CLOSED ? 0 : next.openUntil() - next.offsetMillis(),
              next.openMillis(),
              DegradedDecisions.localOverride(next, now),
              Math.max(0, next.generation()));
    }
  }

  static Reassertion reassertion(SharedView v, State lost) {
    return new Reassertion(
        Reassertion.Mode.REASSERT,
        lost,
        v.epoch(),
        v.generation(),
        lost == State.OPEN ? v.openUntil() : v.overrideUntil(),
        v.openMillis(),
        v.cause(),
        -1,
        v.origin().actor(),
        v.origin().reason(),
        v.origin().correlationId(),
        lost == State.OPEN && v.stored() == State.HALF_OPEN);
  }

  /** Whether {@code v} (null: none) is of the same incarnation as {@code next}. */
  static boolean sameIncarnation(SharedView v, SharedView next) {
    return v == null || v.epoch().equals(next.epoch());
  }
}
