package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.CircuitEvent;
import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.local.LocalRecordResult;
import io.breakerctl.runtime.model.BackoffHint;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.RecordResult;

/**
 * Where a call's outcome goes: into the local machine, counted in the pending batch of successes,
 * or to the store at once (a failure, a slow call, a probe under a shared lease), and what the
 * store's answer does (the view learns it; a failed send is kept for the reconciliation). A
 * failure's back-off hint goes with it to the local machine and the store; while the node is
 * degraded the hint backs off this node only (the reconciliation sends counts, not hints).
 */
final class OutcomeRouter {
  private final BreakerState state;
  private final BreakerContext registry;
  private final BreakerEvents events;
  private final ViewTracker tracker;

  OutcomeRouter(BreakerState state, BreakerEvents events, ViewTracker tracker) {
    this.state = state;
    this.registry = state.registry;
    this.events = events;
    this.tracker = tracker;
  }

  /** Loads the class that handles a record's answer (the JIT warm-up, {@link BreakerWarmUp}). */
  void warmUp() {
    new Recorded(null, null, State.OPEN);
  }

  void complete(BreakerGrant g, boolean failure, long nanos, BackoffHint hint) {
    long millis = nanos / 1_000_000;
    Mode mode = registry.mode();
    if (g.own && state.guard().up()) {
      // the own trip's probe: the local machine decides on it, the fleet counts it as any call
      State before = state.local.state();
      state.local.record(
          failure ? 1 : 0, failure ? 0 : 1, millis, g.generation, g.lease, state.node(), hint);
      events.emit(
          failure ? CircuitEvent.Type.PROBE_FAILED : CircuitEvent.Type.PROBE_SUCCEEDED,
          before,
          state.local.state(),
          "LOCAL");
      boolean counted = failure || isSlow(millis);
      state.tally.completed(1);
      record(
          new Outcome(state.node(), counted ? 1 : 0, counted ? 0 : 1, millis, "", "", hint), null);
      return;
    }
    if (mode != Mode.LOCAL && !g.local && g.lease.isEmpty() && state.guard().up()) {
      long slow = state.resolved.slowMillis();
      if (!failure && (slow < 0 || millis < slow)) {
        state.pendingSuccesses
            .increment(); // flushed in batches; the local machine learns them then
        return;
      }
      long taken = state.pendingSuccesses.sumThenReset();
      state.tally.completed(taken + 1);
      long successes = taken + (failure ? 0 : 1);
      long failures = failure ? 1 : 0;
      LocalRecordResult counted =
          state.local.record(failures, successes, millis, -1, null, state.node(), hint);
      if (counted.state() == State.OPEN && (counted.transitioned() || !state.ownTrip)) {
        // at once, on the caller's thread: the next call already sees it. Not only the thread
        // whose failure tripped the machine: that thread may be descheduled between the trip and
        // its mark while the other callers' failures find the machine open (NOT_COUNTED) and the
        // hot path still admits (9 calls of one thread in such a gap, a quiet 2-core machine)
        state.ownTripped();
      }
      String gen = g.generation < 0 ? "" : Long.toString(g.generation);
      record(new Outcome(state.node(), failures, successes, millis, gen, "", hint), null);
      return;
    }
    boolean localLease = g.local && !g.lease.isEmpty();
    boolean pendingSuccess =
        mode != Mode.LOCAL && (g.local || !state.guard().up()) && !failure && !isSlow(millis);
    if (!pendingSuccess) {
      state.tally.completed(1); // (a success kept pending is counted as it is taken)
    }
    State before = state.local.state();
    state.local.record(
        failure ? 1 : 0,
        failure ? 0 : 1,
        millis,
        g.local ? g.generation : -1,
        localLease ? g.lease : null,
        state.node(),
        hint);
    if (localLease) {
      events.emit(
          failure ? CircuitEvent.Type.PROBE_FAILED : CircuitEvent.Type.PROBE_SUCCEEDED,
          before,
          state.local.state(),
          "LOCAL");
    }
    if (mode == Mode.LOCAL) {
      return;
    }
    if (g.local || !state.guard().up()) {
      // decided or reported while degraded: counted for the reconciliation on recovery
      if (failure || isSlow(millis)) {
        state.degradedFailures.incrementAndGet();
      } else {
        state.pendingSuccesses.increment();
      }
      return;
    }
    // a probe run under a shared lease: its result goes to Redis at once
    String gen = g.generation < 0 ? "" : Long.toString(g.generation);
    // a probe that took slowCallMillis or more failed, as the local machine counts it
    boolean failed = failure || isSlow(millis);
    record(
        Outcome.probe(state.node(), gen, g.lease, !failed).withHint(failed ? hint : null),
        failed ? CircuitEvent.Type.PROBE_FAILED : CircuitEvent.Type.PROBE_SUCCEEDED);
  }

  /**
   * A rate-limit answer the policy backs off on without counting ({@code rateLimited: BACKOFF}):
   * the local machine and the store take the hint alone, and a probe's lease goes back with it (the
   * store reopens for the hint: the dependency answered, and said when).
   */
  void backoff(BreakerGrant g, BackoffHint hint) {
    boolean localLease = (g.own || g.local) && !g.lease.isEmpty();
    LocalRecordResult r =
        state.local.record(
            0,
            0,
            -1,
            localLease ? g.generation : -1,
            localLease ? g.lease : null,
            state.node(),
            hint);
    if (registry.mode() == Mode.LOCAL || (g.local && !g.own) || !state.guard().up()) {
      return; // decided locally or degraded: this node backs off alone
    }
    if (r.state() == State.OPEN && r.transitioned()) {
      state.ownTripped(); // at once, as a failure's trip: the next call here already sees it
    }
    String gen = g.own || g.generation < 0 ? "" : Long.toString(g.generation);
    record(Outcome.backoff(state.node(), gen, g.own ? "" : g.lease, hint), null);
  }

  boolean isSlow(long millis) {
    long slow = state.resolved.slowMillis();
    return slow >= 0 && millis >= slow;
  }

  void record(Outcome o, CircuitEvent.Type probeEvent) {
    registry
        .store()
        .record(state.id, o, state.resolved.policy())
        .whenComplete(new Recorded(o, probeEvent, state.acting()));
  }

  /**
   * What the answer to an outcome sent at once (a failure, a slow call, a probe) does. A class, not
   * a lambda: a lambda's call site is linked when it first runs, and in a fresh JVM that took
   * milliseconds of method-handle set-up on the caller's thread before the first failure's record
   * could leave, on the path of the fleet's first trip.
   */
  private final class Recorded implements java.util.function.BiConsumer<RecordResult, Throwable> {
    private final Outcome o;
    private final CircuitEvent.Type probeEvent;
    private final State before;

    Recorded(Outcome o, CircuitEvent.Type probeEvent, State before) {
      this.o = o;
      this.probeEvent = probeEvent;
      this.before = before;
    }

    @Override
    public void accept(RecordResult r, Throwable e) {
      if (e != null) {
        state.guard().failure(e);
        if (o.failures() > 0) {
          state.degradedFailures.addAndGet(o.failures());
        }
        state.pendingSuccesses.add(o.successes());
        state.tally.completed(-o.successes()); // counted again as they are taken again
        return;
      }
      state.guard().success();
      state.windowSeen(r);
      if (probeEvent != null) {
        events.emit(probeEvent, before, r.state(), r.reason().code());
      }
      tracker.learn(r);
    }
  }
}
