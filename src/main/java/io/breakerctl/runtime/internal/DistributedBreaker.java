package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.BreakerView;
import io.breakerctl.runtime.CallObserver;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.CircuitEvent;
import io.breakerctl.runtime.FailureClassifier;
import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.Permission;
import io.breakerctl.runtime.local.LocalCounts;
import io.breakerctl.runtime.model.BackoffHint;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.FallbackPolicy;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.RateLimitAction;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.StoreFailureMode;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.NodeCallCounts;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * One breaker in any {@link Mode}. LOCAL decides with the local state machine; SHARED asks the
 * acquire script for every call; HYBRID decides from the shared view, asks Redis only for probe
 * leases, records failures off the caller's path and flushes successes in batches. Whenever Redis
 * is unavailable the policy's {@code storeFailureMode} decides, and the local machine, which sees
 * every outcome, is ready to take over.
 *
 * <p>The breaker only composes its parts, each with one job, over the state they share ({@link
 * BreakerState}): the admission strategy of its mode ({@link Admissions}; SHARED and HYBRID wrapped
 * in {@link DegradedAdmission}), built from {@link Decisions}, {@link DegradedDecisions} and {@link
 * Grants}; the view ({@link ViewTracker}) and the way back from a degradation ({@link
 * Reconciliation}); the outcomes ({@link OutcomeRouter}); the probe leases ({@link ProbeLeases});
 * the policy ({@link PolicyAdoption}); the reports ({@link BreakerReports}); the events ({@link
 * BreakerEvents}); the JIT warm-up ({@link BreakerWarmUp}). The parts know each other in one
 * direction only (each takes those below it at construction) and never the breaker; a grant reports
 * to it through {@link GrantOwner}, and the breaker reaches its registry only through {@link
 * BreakerContext}.
 */
final class DistributedBreaker implements CircuitBreaker, GrantOwner {
  private final BreakerState state;
  private final BreakerEvents events;
  private final BreakerReports reports;
  private final ViewTracker tracker;
  private final OutcomeRouter outcomes;
  private final ProbeLeases leases;
  private final Reconciliation reconciliation;
  private final BreakerWarmUp warmUp;
  private final Admission admission;

  /** The decisions while the store is down (null for LOCAL, which never asks the store). */
  private final DegradedDecisions degraded;

  private volatile FailureClassifier classifier = FailureClassifier.DEFAULT;

  DistributedBreaker(BreakerId id, BreakerContext registry) {
    this.state = new BreakerState(id, registry, this, this::countSlow);
    this.events = new BreakerEvents(id);
    this.reports = new BreakerReports(state, registry);
    PolicyAdoption policies = new PolicyAdoption(state, events);
    this.tracker = new ViewTracker(state, events, policies, reports);
    this.outcomes = new OutcomeRouter(state, events, tracker);
    this.leases = new ProbeLeases(state, events, tracker);
    this.reconciliation = new Reconciliation(state, events, tracker, outcomes, policies, reports);
    this.warmUp = new BreakerWarmUp(state, this, tracker, outcomes, reports);
    Grants grants = new Grants(state, events, leases);
    Mode mode = registry.mode();
    this.degraded = mode == Mode.LOCAL ? null : new DegradedDecisions(state, grants);
    Decisions decisions = new Decisions(state, grants, leases, tracker, degraded);
    Admission up = Admissions.of(mode, state, decisions, grants, leases);
    this.admission = degraded == null ? up : new DegradedAdmission(state, degraded, up);
    state.local.onTransition(
        t -> {
          if (mode != Mode.LOCAL
              && !state.guard().up()
              && state.resolved.policy().storeFailureMode() != StoreFailureMode.ALLOW_ALL
              && t.from() == State.CLOSED
              && t.to() == State.OPEN) {
            state.trippedWhileDegraded.set(true);
          }
          boolean own = false;
          if (mode != Mode.LOCAL && state.guard().up()) {
            own =
                (t.from() == State.CLOSED && t.to() == State.OPEN && state.ownTripped())
                    || state.ownTrip;
            if (t.to() == State.CLOSED) {
              state.endOwnTrip();
            }
          }
          if (state.localDecides() || own) {
            events.transition(t.from(), t.to(), t.cause(), CircuitEvent.Source.LOCAL);
          }
        });
  }

  @Override
  public BreakerId id() {
    return state.id;
  }

  /** The guard this breaker's decisions follow (see {@link BreakerState#guard()}). */
  StoreGuard guard() {
    return state.guard();
  }

  /** Puts this breaker under another shard's guard (the registry, at a failover or a connect). */
  void guard(StoreGuard to) {
    state.guard(to);
  }

  /** Whether this node has not read the breaker's shared state yet (no view). */
  boolean neverRead() {
    return state.view == null;
  }

  /** The policy in force. */
  Policy policy() {
    return state.resolved.policy();
  }

  // ---- calls -------------------------------------------------------------------------------

  @Override
  public boolean rejectionStackTraces() {
    return state.registry.rejectionStackTraces();
  }

  @Override
  public FailureClassifier classifier() {
    return classifier;
  }

  @Override
  public void classifier(FailureClassifier classifier) {
    this.classifier = Objects.requireNonNull(classifier, "classifier");
  }

  @Override
  public AutoCloseable observe(CallObserver observer) {
    return state.observers.add(observer);
  }

  @Override
  public CallObserver observer() {
    return state.observers.current();
  }

  @Override
  public void fallbackServed() {
    state.tally.fallbackServed();
  }

  /** {@code n} calls ended, or successes taken from the pending count (CallTally). */
  void countCompleted(long n) {
    state.tally.completed(n);
  }

  /** The calls counted since the previous beat took them (the liveness beat only). */
  NodeCallCounts.Counts takeCallCounts() {
    return state.tally.take();
  }

  @Override
  public Permission tryAcquire() {
    Permission p = admission.decide();
    if (!p.allowed()) {
      state.tally.rejected(); // admitted calls are counted as they end (CallTally)
    }
    InFlightCalls calls = state.inFlight;
    return calls == null ? p : calls.track(p);
  }

  /**
   * Counts {@code calls} calls admitted by {@code g} as slow: they have run slowCallMillis and
   * still run ({@link InFlightCalls}); each counts as one failure would.
   */
  private void countSlow(BreakerGrant g, long calls) {
    long nanos = state.resolved.slowMillis() * 1_000_000;
    for (long i = 0; i < calls; i++) {
      outcomes.complete(g, true, nanos, null);
    }
  }

  // ---- the grants' and the registry's entry points (each a part's job) ---------------------

  /** Gives a shared probe lease back unused (see {@link ProbeLeases#release}). */
  @Override
  public void release(String lease) {
    leases.release(lease);
  }

  /** A granted call ended (see {@link OutcomeRouter#complete}). */
  @Override
  public void complete(BreakerGrant g, boolean failure, long nanos, BackoffHint hint) {
    outcomes.complete(g, failure, nanos, hint);
  }

  /** A rate-limit answer backs the fleet off (see {@link OutcomeRouter#backoff}). */
  @Override
  public void backoff(BreakerGrant g, BackoffHint hint) {
    outcomes.backoff(g, hint);
  }

  @Override
  public BackoffHint hintOf(Object errorOrResult) {
    return classifier.backoffHint(errorOrResult, state.registry.clock()).orElse(null);
  }

  @Override
  public RateLimitAction rateLimited() {
    return state.resolved.policy().rateLimited();
  }

  @Override
  public boolean isSlow(long millis) {
    return outcomes.isSlow(millis);
  }

  /** Applies a pub/sub transition message about this breaker (already parsed). */
  void onTransitionMessage(FleetMessage m) {
    tracker.onTransitionMessage(m);
  }

  /** A warmed policy or another change that needs a full read. */
  void onOtherMessage() {
    tracker.onOtherMessage();
  }

  /** Applies a full read of the breaker's hash (refresh, first read). */
  void onSnapshot(BreakerSnapshot s) {
    tracker.onSnapshot(s);
  }

  /** The change stamp of what this node holds (see {@link ViewTracker#stamp}). */
  String stamp() {
    return tracker.stamp();
  }

  /** Whether the view holds the breaker away from CLOSED (see {@link ViewTracker#holdsState}). */
  boolean holdsState() {
    return tracker.holdsState();
  }

  /** Reconciles after Redis answered again (see {@link Reconciliation#reconcile}). */
  void reconcile(BreakerSnapshot shared) {
    reconciliation.reconcile(shared);
  }

  /** Runs a message through the view update only (see {@link BreakerWarmUp#warmUp}). */
  void warmUp(FleetMessage m) {
    warmUp.warmUp(m);
  }

  /** The warm-up of the call path (see {@link BreakerWarmUp#warmUpCallPath}). */
  void warmUpCallPath(int rejections) {
    warmUp.warmUpCallPath(rejections);
  }

  /** The registry's flush tick (see {@link BreakerReports#flushIfDue}). */
  void flushIfDue() {
    reports.flushIfDue();
  }

  /** At close: the pending successes, if any (see {@link BreakerReports#flushAtClose}). */
  CompletableFuture<?> flushAtClose() {
    return reports.flushAtClose();
  }

  /**
   * Outcomes this node counted and Redis has not got (successes not yet flushed, failures counted
   * while degraded): what {@code close()} reports as lost when it cannot send them.
   */
  long unsentOutcomes() {
    return state.pendingSuccesses.sum() + state.degradedFailures.get();
  }

  /** Flushes every pending success with this node's heartbeat now (tests). */
  void flush() {
    reports.flush();
  }

  @Override
  public void fallbacksRegistered(Set<FallbackPolicy> kinds) {
    reports.fallbacksRegistered(kinds);
  }

  @Override
  public Runnable callSiteAccepts(Set<FallbackPolicy> kinds) {
    return reports.callSite(kinds);
  }

  /**
   * Announces the degradation, stamped with the time it began ({@link StoreGuard#downAtMillis}).
   */
  void degraded() {
    if (degraded != null) {
      degraded.seedIfNeeded();
    }
    State s = state.acting();
    if (events.listened()) {
      events.emitEvent(
          new CircuitEvent(
              state.id,
              CircuitEvent.Type.DEGRADED,
              s,
              s,
              state.resolved.policy().storeFailureMode().name()
                  + " "
                  + state.guard().reason().code(),
              state.guard().downAtMillis()));
    }
  }

  /** Announces the recovery. */
  void recovered() {
    State s = state.acting();
    events.emit(CircuitEvent.Type.RECOVERED, s, s, "");
  }

  // ---- views and events --------------------------------------------------------------------

  /** The state this node acts on now. */
  State acting() {
    return state.acting();
  }

  @Override
  public BreakerView view() {
    SharedView v = state.view;
    BreakerState.Resolved r = state.resolved;
    Mode mode = state.registry.mode();
    State shared =
        mode == Mode.LOCAL
            ? state.local.state()
            : v == null ? State.CLOSED : v.effective(state.now());
    String gen =
        mode == Mode.LOCAL
            ? Long.toString(state.local.generation())
            : v == null ? "" : Long.toString(v.generation());
    BreakerSnapshot.Window window = state.fleetWindow;
    if (mode == Mode.LOCAL || window == null || !state.guard().up()) {
      // what this node decides on: its own machine (LOCAL, degraded, or no fleet answer yet)
      LocalCounts c = state.local.counts();
      window = new BreakerSnapshot.Window(c.windowFailures(), c.windowCalls());
    }
    return new BreakerView(
        state.id,
        mode,
        state.acting(),
        shared,
        gen,
        r.policy(),
        r.policyId(),
        r.version(),
        !state.guard().up(),
        state.pendingSuccesses.sum(),
        window.failures(),
        window.calls());
  }

  @Override
  public AutoCloseable onEvent(Consumer<CircuitEvent> listener) {
    return events.add(listener);
  }

  @Override
  public void probe(Callable<Boolean> healthCheck) {
    leases.probe(healthCheck);
  }
}
