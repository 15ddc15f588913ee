package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.local.LocalStateMachine;
import io.breakerctl.runtime.model.AdmissionReason;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.StoreFailureMode;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.PolicyEncoding;
import io.breakerctl.runtime.store.RecordResult;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The state one breaker's parts share ({@link DistributedBreaker} composes them): the view of the
 * fleet's shared state, the hot path's closed permission, the own trip, the seed of the local
 * machine, the policy in force and the counts not yet sent. What must change together changes under
 * this object's monitor (the view with the closed permission, the own trip with both, a seed with
 * the decision that follows it); the rest is volatile or atomic and read without it.
 */
final class BreakerState {

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
  final BreakerContext registry;

  /** The breaker its grants report to. */
  final GrantOwner owner;

  final LocalStateMachine local;

  /** Successes counted and not yet sent (flushed in batches, or kept while degraded). */
  final LongAdder pendingSuccesses = new LongAdder();

  /** Failures counted while degraded (sent at the reconciliation). */
  final AtomicLong degradedFailures = new AtomicLong();

  /** Set when the local machine tripped while this node was degraded (published on recovery). */
  final AtomicBoolean trippedWhileDegraded = new AtomicBoolean();

  /** The calls counted for the fleet view (admitted, rejected, answered by a fallback). */
  final CallTally tally = new CallTally(pendingSuccesses);

  final CallObservers observers = new CallObservers();

  /**
   * Set while the node's own failures hold its local machine away from CLOSED and the fleet's view
   * is still CLOSED (SHARED or HYBRID, Redis answering or not): the node then decides from its
   * local machine, as a per-process breaker would, until that machine closes again or the fleet's
   * state moves on. Changed under this monitor, with {@link #closedGrant} (null while it is set).
   */
  volatile boolean ownTrip;

  /** The degradation ({@link StoreGuard#degradations()}) the local machine was seeded for. */
  volatile long seededFor = -1;

  volatile Resolved resolved;
  volatile SharedView view;

  /**
   * The fleet's failure window as the store last answered an outcome this node sent (a failure, a
   * flush, a probe result): what the shared machine trips on. Null before the first answer.
   */
  volatile BreakerSnapshot.Window fleetWindow;

  /** Keeps the window counts of a record's answer (null: no answer, nothing kept). */
  void windowSeen(RecordResult r) {
    if (r != null) {
      fleetWindow = new BreakerSnapshot.Window(r.windowFailures(), r.windowCalls());
    }
  }

  /** The permission every call gets while the view is CLOSED without an override (HYBRID). */
  volatile BreakerGrant closedGrant;

  /**
   * The guard of the shard holding this breaker's keys ({@link BreakerContext#guardFor}): this
   * breaker is degraded while it is down. The registry moves it when a failover or a first connect
   * puts the keys on another shard.
   */
  private volatile StoreGuard guard;

  /**
   * The calls running under a policy with slowCallMillis; null without one. A field the hot path
   * reads, not an accessor: C2 does not inline a method whose signature names a class not loaded
   * yet, and InFlightCalls is loaded only once a policy has slowCallMillis, so an accessor cost
   * every call a real call (about 5 ns of the HYBRID hot path's 10, {@code scripts/bench runtime}).
   */
  volatile InFlightCalls inFlight;

  private final InFlightCalls.SlowCounter slowCounter;

  BreakerState(
      BreakerId id,
      BreakerContext registry,
      GrantOwner owner,
      InFlightCalls.SlowCounter slowCounter) {
    this.id = id;
    this.registry = registry;
    this.owner = owner;
    this.slowCounter = slowCounter;
    this.guard = registry.guardFor(id);
    Policy defaults = registry.defaults();
    resolve(new Resolved(defaults, "", 0));
    this.local = new LocalStateMachine(defaults, registry.clock());
  }

  /** The guard this breaker's decisions follow (see {@link #guard}). */
  StoreGuard guard() {
    return guard;
  }

  /** Puts this breaker under another shard's guard (the registry, at a failover or a connect). */
  void guard(StoreGuard to) {
    guard = to;
  }

  /** Takes {@code r} as the policy in force; a change of slowCallMillis makes a new tracker. */
  void resolve(Resolved r) {
    resolved = r;
    InFlightCalls calls = inFlight;
    long slow = r.slowMillis();
    if (slow <= 0) {
      inFlight = null;
    } else if (calls == null || calls.slowMillis() != slow) {
      inFlight = new InFlightCalls(registry, slowCounter, slow);
    }
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

  /**
   * The shared permission of the hot path while {@code v} is CLOSED without override, else null.
   */
  BreakerGrant closedGrantFor(SharedView v) {
    return v.stored() == State.CLOSED && v.override() == null
        ? new BreakerGrant(
            owner, true, State.CLOSED, AdmissionReason.CLOSED, v.generation(), "", false, null)
        : null;
  }

  /** Whether the local machine decides: LOCAL, or degraded under LOCAL_ONLY. */
  boolean localDecides() {
    return registry.mode() == Mode.LOCAL
        || (!guard().up() && resolved.policy().storeFailureMode() == StoreFailureMode.LOCAL_ONLY);
  }

  /** The state this node acts on now. */
  State acting() {
    if (localDecides()) {
      return local.state();
    }
    SharedView v = view;
    State shared = v == null ? State.CLOSED : v.effective(now());
    return shared == State.CLOSED && ownTrip ? local.state() : shared;
  }

  String node() {
    return registry.nodeId();
  }

  long now() {
    return registry.clock().millis();
  }

  /** A generation as a number; -1 for none. */
  static long generation(String generation) {
    if (generation == null || generation.isEmpty()) {
      return -1;
    }
    return Long.parseLong(generation);
  }
}
