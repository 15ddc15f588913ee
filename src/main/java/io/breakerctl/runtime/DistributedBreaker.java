package io.breakerctl.runtime;

import io.breakerctl.runtime.local.LocalStateMachine;
import io.breakerctl.runtime.model.AdmissionReason;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.StoreFailureMode;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.PolicyEncoding;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One breaker in any {@link Mode}. LOCAL decides with the local state machine; SHARED asks the
 * acquire script for every call; HYBRID decides from the shared view, asks Redis only for probe
 * leases, records failures off the caller's path and flushes successes in batches. Whenever Redis
 * is unavailable the policy's {@code storeFailureMode} decides, and the local machine, which sees
 * every outcome, is ready to take over.
 *
 * <p>The breaker holds the state its parts share, changed under its monitor: the view of the
 * fleet's shared state, the hot path's closed permission, the own trip, the seed of the local
 * machine and the policy in force. Each job is a part of its own: the admission strategy of its
 * mode ({@link Admissions}, {@link DegradedAdmission}, {@link Decisions}), the view ({@link
 * ViewTracker}), the outcomes ({@link OutcomeRouter}), the probe leases ({@link ProbeLeases}), the
 * policy ({@link PolicyAdoption}), the reports ({@link BreakerReports}), the events ({@link
 * BreakerEvents}) and the JIT warm-up ({@link BreakerWarmUp}). It reaches its registry only through
 * {@link BreakerContext}.
 */
final class DistributedBreaker implements CircuitBreaker {
  /** The policy in force, with what the hot path derives from it once. */
  record Resolved(
      Policy policy, String policyId, long version, long slowMillis, String defaultsArg) {
    Resolved(Policy policy, String policyId, long version) {
      this(
          policy,
          policyId,
          version,
          policy.slowCallMillis().isPresent() ? policy.slowCallMillis().getAsInt() : -1,
          PolicyEncoding.toArg(policy));
    }
  }

  final BreakerId id;
  private final BreakerContext registry;
  final LocalStateMachine local;

  /** Successes counted and not yet sent (flushed in batches, or kept while degraded). */
  final LongAdder pendingSuccesses = new LongAdder();

  /** Failures counted while degraded (sent at the reconciliation). */
  final AtomicLong degradedFailures = new AtomicLong();

  final BreakerReports reports;
  final CallTally tally;
  final BreakerEvents events;
  final Decisions decisions;
  final ProbeLeases leases;
  final OutcomeRouter outcomes;
  final ViewTracker tracker;
  final PolicyAdoption policies;
  private final Admission admission;

  /** The decisions while the store is down (null for LOCAL, which never asks the store). */
  final DegradedAdmission whileDown;

  /** Set when the local machine tripped while this node was degraded (published on recovery). */
  final AtomicBoolean trippedWhileDegraded = new AtomicBoolean();

  /**
   * Set while the node's own failures hold its local machine away from CLOSED and the fleet's view
   * is still CLOSED (SHARED or HYBRID, Redis answering or not): the node then decides from its
   * local machine, as a per-process breaker would, until that machine closes again or the fleet's
   * state moves on. Changed under the breaker's monitor, with {@link #closedGrant} (null while it
   * is set).
   */
  volatile boolean ownTrip;

  /**
   * The guard of the shard holding this breaker's keys ({@link BreakerContext#guardFor}): this
   * breaker is degraded while it is down. The registry moves it when a failover or a first connect
   * puts the keys on another shard.
   */
  private volatile StoreGuard guard;

  /** The degradation ({@link StoreGuard#degradations()}) the local machine was seeded for. */
  volatile long seededFor = -1;

  volatile Resolved resolved;
  volatile SharedView view;

  /** The calls running under a policy with slowCallMillis; null without one. */
  private volatile InFlightCalls inFlight;

  /** The permission every call gets while the view is CLOSED without an override (HYBRID). */
  volatile BreakerGrant closedGrant;

  private volatile FailureClassifier classifier = FailureClassifier.DEFAULT;
  final CallObservers observers = new CallObservers();

  DistributedBreaker(BreakerId id, BreakerContext registry) {
    this.id = id;
    this.registry = registry;
    this.guard = registry.guardFor(id);
    this.events = new BreakerEvents(this);
    this.decisions = new Decisions(this, registry);
    this.leases = new ProbeLeases(this, registry);
    this.outcomes = new OutcomeRouter(this, registry);
    this.tracker = new ViewTracker(this, registry);
    this.policies = new PolicyAdoption(this, registry);
    Policy defaults = registry.defaults();
    resolve(new Resolved(defaults, "", 0));
    this.local = new LocalStateMachine(defaults, registry.clock());
    this.reports = new BreakerReports(this, registry, local, pendingSuccesses);
    this.tally = new CallTally(pendingSuccesses);
    Admission up = Admissions.of(registry.mode(), this);
    this.whileDown =
        registry.mode() == Mode.LOCAL ? null : new DegradedAdmission(this, registry, up);
    this.admission = whileDown == null ? up : whileDown;
    local.onTransition(
        t -> {
          if (registry.mode() != Mode.LOCAL
              && !guard().up()
              && resolved.policy().storeFailureMode() != StoreFailureMode.ALLOW_ALL
              && t.from() == State.CLOSED
              && t.to() == State.OPEN) {
            trippedWhileDegraded.set(true);
          }
          boolean own = false;
          if (registry.mode() != Mode.LOCAL && guard().up()) {
            own = (t.from() == State.CLOSED && t.to() == State.OPEN && ownTripped()) || ownTrip;
            if (t.to() == State.CLOSED) {
              endOwnTrip();
            }
          }
          if (localDecides() || own) {
            events.transition(t.from(), t.to(), t.cause(), CircuitEvent.Source.LOCAL);
          }
        });
  }

  @Override
  public BreakerId id() {
    return id;
  }

  /** The guard this breaker's decisions follow (see {@link #guard}). */
  StoreGuard guard() {
    return guard;
  }

  /** Puts this breaker under another shard's guard (the registry, at a failover or a connect). */
  void guard(StoreGuard to) {
    guard = to;
  }

  /** Whether this node has not read the breaker's shared state yet (no view). */
  boolean neverRead() {
    return view == null;
  }

  /** The policy in force. */
  Policy policy() {
    return resolved.policy();
  }

  /**
   * Marks the local machine's own trip (SHARED, HYBRID) while the fleet's view is CLOSED without
   * override: the hot path's closed permission goes, and calls decide from the local machine. True
   * when the trip is (now or already) in force.
   */
  boolean ownTripped() {
    synchronized (this) {
      SharedView v = view;
      if (v != null && (v.stored() != State.CLOSED || v.override() != null)) {
        return false; // the fleet's state decides (open, half-open or overridden)
      }
      ownTrip = true;
      closedGrant = null;
      return true;
    }
  }

  /**
   * Ends the own trip once the local machine is closed again. The machine is read here, under the
   * monitor, not taken from the caller: a caller that saw it closed (an admission without a lease)
   * may be overtaken by another thread's trip, and ending the trip then re-opened the hot path over
   * an open machine (CoordinatorFaultIT: 27 calls where 3 to 6 may pass; 3 of 300 rounds of four
   * callers on a quiet machine). A trip always calls {@link #ownTripped} after it, so a trip after
   * this check marks itself again.
   */
  void endOwnTrip() {
    synchronized (this) {
      if (ownTrip && local.storedState() == State.CLOSED) {
        ownTrip = false;
        SharedView v = view;
        closedGrant = v == null ? null : closedGrantFor(v);
      }
    }
  }

  private boolean localDecides() {
    return registry.mode() == Mode.LOCAL
        || (!guard().up() && resolved.policy().storeFailureMode() == StoreFailureMode.LOCAL_ONLY);
  }

  String node() {
    return registry.nodeId();
  }

  long now() {
    return registry.clock().millis();
  }

  // ---- calls -------------------------------------------------------------------------------

  @Override
  public <T> T callChecked(Callable<T> call) throws Exception {
    return BreakerCalls.sync(this, call);
  }

  @Override
  public <T> T call(Supplier<T> call) {
    try {
      return callChecked(call::get);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("a Supplier threw a checked exception", e);
    }
  }

  boolean rejectionStackTraces() {
    return registry.rejectionStackTraces();
  }

  @Override
  public FailureClassifier classifier() {
    return classifier;
  }

  @Override
  public void classifier(FailureClassifier classifier) {
    this.classifier = java.util.Objects.requireNonNull(classifier, "classifier");
  }

  @Override
  public AutoCloseable observe(CallObserver observer) {
    return observers.add(observer);
  }

  @Override
  public CallObserver observer() {
    return observers.current();
  }

  @Override
  public void fallbackServed() {
    tally.fallbackServed();
  }

  /** {@code n} calls ended, or successes taken from the pending count (CallTally). */
  void countCompleted(long n) {
    tally.completed(n);
  }

  /** The calls counted since the previous beat took them (the liveness beat only). */
  io.breakerctl.runtime.store.NodeCallCounts.Counts takeCallCounts() {
    return tally.take();
  }

  @Override
  public Permission tryAcquire() {
    Permission p = admission.decide();
    if (!p.allowed()) {
      tally.rejected(); // admitted calls are counted as they end (CallTally)
    }
    InFlightCalls calls = inFlight;
    return calls == null ? p : calls.track(p);
  }

  /**
   * Counts {@code calls} calls admitted by {@code g} as slow: they have run slowCallMillis and
   * still run ({@link InFlightCalls}); each counts as one failure would.
   */
  private void countSlow(BreakerGrant g, long calls) {
    long nanos = resolved.slowMillis() * 1_000_000;
    for (long i = 0; i < calls; i++) {
      outcomes.complete(g, true, nanos);
    }
  }

  /** Takes {@code r} as the policy in force; a change of slowCallMillis makes a new tracker. */
  void resolve(Resolved r) {
    resolved = r;
    InFlightCalls calls = inFlight;
    long slow = r.slowMillis();
    if (slow <= 0) {
      inFlight = null;
    } else if (calls == null || calls.slowMillis() != slow) {
      inFlight = new InFlightCalls(registry, this::countSlow, slow);
    }
  }

  // ---- the registry's and the grants' entry points (each a part's job) ---------------------

  /** Gives a shared probe lease back unused (see {@link ProbeLeases#release}). */
  void release(String lease) {
    leases.release(lease);
  }

  /** A granted call ended (see {@link OutcomeRouter#complete}). */
  void complete(BreakerGrant g, boolean failure, long nanos) {
    outcomes.complete(g, failure, nanos);
  }

  /** Whether a call of {@code millis} counts as slow under the policy in force. */
  boolean isSlow(long millis) {
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

  /** Reconciles after Redis answered again (see {@link ViewTracker#reconcile}). */
  void reconcile(BreakerSnapshot shared) {
    tracker.reconcile(shared);
  }

  /** Runs a message through the view update only (see {@link BreakerWarmUp#warmUp}). */
  void warmUp(FleetMessage m) {
    new BreakerWarmUp(this).warmUp(m);
  }

  /** The warm-up of the call path (see {@link BreakerWarmUp#warmUpCallPath}). */
  void warmUpCallPath(int rejections) {
    new BreakerWarmUp(this).warmUpCallPath(rejections);
  }

  // ---- background work driven by the registry ----------------------------------------------

  /** The registry's flush tick (see {@link BreakerReports#flushIfDue}). */
  void flushIfDue() {
    reports.flushIfDue();
  }

  /** At close: the pending successes, if any (see {@link BreakerReports#flushAtClose}). */
  java.util.concurrent.CompletableFuture<?> flushAtClose() {
    return reports.flushAtClose();
  }

  /**
   * Outcomes this node counted and Redis has not got (successes not yet flushed, failures counted
   * while degraded): what {@code close()} reports as lost when it cannot send them.
   */
  long unsentOutcomes() {
    return pendingSuccesses.sum() + degradedFailures.get();
  }

  /** Flushes every pending success with this node's heartbeat now (tests). */
  void flush() {
    reports.flush();
  }

  @Override
  public void fallbacksRegistered(java.util.Set<io.breakerctl.runtime.model.FallbackPolicy> kinds) {
    reports.fallbacksRegistered(kinds);
  }

  /**
   * The shared permission of the hot path while {@code v} is CLOSED without override, else null.
   */
  BreakerGrant closedGrantFor(SharedView v) {
    return v.stored() == State.CLOSED && v.override() == null
        ? new BreakerGrant(
            this, true, State.CLOSED, AdmissionReason.CLOSED, v.generation(), "", false, null)
        : null;
  }

  /**
   * Announces the degradation, stamped with the time it began ({@link StoreGuard#downAtMillis}).
   */
  void degraded() {
    if (whileDown != null) {
      whileDown.seedIfNeeded();
    }
    State s = acting();
    if (events.listened()) {
      events.emitEvent(
          new CircuitEvent(
              id,
              CircuitEvent.Type.DEGRADED,
              s,
              s,
              resolved.policy().storeFailureMode().name() + " " + guard().reason().code(),
              guard().downAtMillis()));
    }
  }

  void recovered() {
    State s = acting();
    events.emit(CircuitEvent.Type.RECOVERED, s, s, "");
  }

  // ---- views and events --------------------------------------------------------------------

  /** The state this node acts on now. */
  State acting() {
    if (localDecides()) {
      return local.state();
    }
    SharedView v = view;
    State shared = v == null ? State.CLOSED : v.effective(now());
    return shared == State.CLOSED && ownTrip ? local.state() : shared;
  }

  @Override
  public BreakerView view() {
    SharedView v = view;
    Resolved r = resolved;
    State shared =
        registry.mode() == Mode.LOCAL
            ? local.state()
            : v == null ? State.CLOSED : v.effective(now());
    String gen =
        registry.mode() == Mode.LOCAL
            ? Long.toString(local.generation())
            : v == null ? "" : Long.toString(v.generation());
    return new BreakerView(
        id,
        registry.mode(),
        acting(),
        shared,
        gen,
        r.policy(),
        r.policyId(),
        r.version(),
        !guard().up(),
        pendingSuccesses.sum());
  }

  @Override
  public AutoCloseable onEvent(Consumer<CircuitEvent> listener) {
    return events.add(listener);
  }

  @Override
  public void probe(Callable<Boolean> healthCheck) {
    leases.probe(healthCheck);
  }

  /** A generation as a number; -1 for none. */
  static long parse(String generation) {
    if (generation == null || generation.isEmpty()) {
      return -1;
    }
    return Long.parseLong(generation);
  }
}
