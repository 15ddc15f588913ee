package io.breakerctl.runtime;

import io.breakerctl.runtime.local.ActiveOverride;
import io.breakerctl.runtime.local.LocalAdmission;
import io.breakerctl.runtime.local.LocalRecordResult;
import io.breakerctl.runtime.local.LocalRenewal;
import io.breakerctl.runtime.local.LocalStateMachine;
import io.breakerctl.runtime.model.AdmissionReason;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.RenewOutcome;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.StoreFailureMode;
import io.breakerctl.runtime.model.TransitionCause;
import io.breakerctl.runtime.store.AcquireResult;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.BreakerStore;
import io.breakerctl.runtime.store.NodeHeartbeat;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.PolicyEncoding;
import io.breakerctl.runtime.store.PolicyEncoding.WarmedPolicy;
import io.breakerctl.runtime.store.Reassertion;
import io.breakerctl.runtime.store.RecordResult;
import io.breakerctl.runtime.store.RenewResult;
import io.breakerctl.runtime.store.StoreException;
import io.breakerctl.runtime.store.StoreFutures;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
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
 */
final class DistributedBreaker implements CircuitBreaker {
  private record Resolved(
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

  private final BreakerId id;
  private final BreakerContext registry;
  private final LocalStateMachine local;
  private final LongAdder pendingSuccesses = new LongAdder();
  private final AtomicLong degradedFailures = new AtomicLong();
  private final List<Consumer<CircuitEvent>> listeners = new CopyOnWriteArrayList<>();
  private final AtomicBoolean probing = new AtomicBoolean();
  private final AtomicLong leaseNames = new AtomicLong();
  private final BreakerReports reports;
  private final CallTally tally;

  /** This process's prefix of the lease names its nodes propose (see {@link #nextLeaseName}). */
  private static final String LEASE_PREFIX =
      Long.toString(java.util.concurrent.ThreadLocalRandom.current().nextLong() & 0xFFFFFFFFFFL, 36)
          + "-";

  private final AtomicBoolean reasserting = new AtomicBoolean();

  /** Set when the local machine tripped while this node was degraded (published on recovery). */
  private final AtomicBoolean trippedWhileDegraded = new AtomicBoolean();

  /**
   * Set while the node's own failures hold its local machine away from CLOSED and the fleet's view
   * is still CLOSED (SHARED or HYBRID, Redis answering or not): the node then decides from its
   * local machine, as a per-process breaker would, until that machine closes again or the fleet's
   * state moves on. Changed under the breaker's monitor, with {@link #closedGrant} (null while it
   * is set).
   */
  private volatile boolean ownTrip;

  /**
   * The guard of the shard holding this breaker's keys ({@link BreakerContext#guardFor}): this
   * breaker is degraded while it is down. The registry moves it when a failover or a first connect
   * puts the keys on another shard.
   */
  private volatile StoreGuard guard;

  /** The degradation ({@link StoreGuard#degradations()}) the local machine was seeded for. */
  private volatile long seededFor = -1;

  private volatile Resolved resolved;
  private volatile SharedView view;

  /** The calls running under a policy with slowCallMillis; null without one. */
  private volatile InFlightCalls inFlight;

  /** The permission every call gets while the view is CLOSED without an override (HYBRID). */
  private volatile BreakerGrant closedGrant;

  private volatile Callable<Boolean> probe;

  /** The policy version stored in the hash at the last full read ("" for none). */
  private volatile String warmedVersion = "";

  private volatile long lastPolicyLookup;
  private volatile FailureClassifier classifier = FailureClassifier.DEFAULT;
  private final CallObservers observers = new CallObservers();

  DistributedBreaker(BreakerId id, BreakerContext registry) {
    this.id = id;
    this.registry = registry;
    this.guard = registry.guardFor(id);
    Policy defaults = registry.defaults();
    resolve(new Resolved(defaults, "", 0));
    this.local = new LocalStateMachine(defaults, registry.clock());
    this.reports = new BreakerReports(this, registry, local, pendingSuccesses);
    this.tally = new CallTally(pendingSuccesses);
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
            transition(t.from(), t.to(), t.cause(), CircuitEvent.Source.LOCAL);
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

  Policy policy() {
    return resolved.policy();
  }

  /**
   * Marks the local machine's own trip (SHARED, HYBRID) while the fleet's view is CLOSED without
   * override: the hot path's closed permission goes, and calls decide from the local machine. True
   * when the trip is (now or already) in force.
   */
  private boolean ownTripped() {
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
  private void endOwnTrip() {
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

  private String node() {
    return registry.nodeId();
  }

  private long now() {
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
    Permission p = decide();
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
      complete(g, true, nanos);
    }
  }

  /** Takes {@code r} as the policy in force; a change of slowCallMillis makes a new tracker. */
  private void resolve(Resolved r) {
    resolved = r;
    InFlightCalls calls = inFlight;
    long slow = r.slowMillis();
    if (slow <= 0) {
      inFlight = null;
    } else if (calls == null || calls.slowMillis() != slow) {
      inFlight = new InFlightCalls(registry, this::countSlow, slow);
    }
  }

  private Permission decide() {
    Mode mode = registry.mode();
    if (mode == Mode.LOCAL) {
      return fromLocal(local.tryAcquire(node()));
    }
    if (!guard().up()) {
      return degradedAcquire();
    }
    if (mode == Mode.SHARED) {
      if (ownTrip) {
        SharedView v = view;
        if (v == null || v.effective(now()) == State.CLOSED) {
          return ownAcquire(v == null ? -1 : v.generation());
        }
      }
      return sharedAcquire();
    }
    BreakerGrant closed = closedGrant;
    if (closed != null) {
      return closed; // the hot path: no clock, no allocation, no network
    }
    // the own trip before the view: apply() writes the view and then ends the own trip when the
    // fleet trips (follow), so a view read first could be the CLOSED one from before that trip,
    // paired with the own trip that trip ended, and grant a call both the fleet and this node
    // reject (7 calls where at most 6 may pass, CoordinatorFaultIT, about 1 round in 1,000 of four
    // callers; ownTripReadBeforeTheView makes it happen every time). Read in this order, an own
    // trip seen ended comes with the view that ended it, and one seen in force asks the local
    // machine, which that view left open.
    boolean own = ownTrip;
    SharedView v = view;
    State s = v == null ? State.CLOSED : v.effective(now());
    long gen = v == null ? -1 : v.generation();
    switch (s) {
      case CLOSED, FORCED_CLOSED, DISABLED, METRICS_ONLY:
        if (s == State.CLOSED && own) {
          return ownAcquire(gen);
        }
        return new BreakerGrant(this, true, s, AdmissionReason.of(s), gen, "", false);
      case OPEN, FORCED_OPEN:
        return reject(s, AdmissionReason.of(s));
      default:
        if (!resolved.policy().enabled()) {
          return new BreakerGrant(this, true, s, AdmissionReason.POLICY_DISABLED, gen, "", false);
        }
        if (probe != null) {
          triggerProbe();
          return reject(State.HALF_OPEN, AdmissionReason.PROBE_PENDING);
        }
        return sharedAcquire();
    }
  }

  /**
   * Decides from the local machine while its own trip is in force and the fleet's view is CLOSED
   * (SHARED or HYBRID, Redis answering): open rejects ({@link AdmissionReason#LOCAL_TRIP}),
   * half-open grants the local machine's probes, closed ends the own trip.
   */
  private Permission ownAcquire(long gen) {
    LocalAdmission a = local.tryAcquire(node());
    if (!a.allowed()) {
      return reject(a.state(), a.state() == State.OPEN ? AdmissionReason.LOCAL_TRIP : a.reason());
    }
    if (a.leaseId() == null || a.leaseId().isEmpty()) {
      endOwnTrip();
      return new BreakerGrant(this, true, State.CLOSED, AdmissionReason.CLOSED, gen, "", false);
    }
    return renewing(
        new BreakerGrant(
            this,
            true,
            a.state(),
            a.reason(),
            a.generation(),
            a.leaseId(),
            true,
            new AtomicBoolean(),
            true));
  }

  private Permission sharedAcquire() {
    BreakerStore store = registry.store();
    if (store == null) {
      guard().trip(io.breakerctl.runtime.store.StoreFault.UNREACHABLE);
      return degradedAcquire();
    }
    AcquireResult r;
    String lease = nextLeaseName();
    CompletableFuture<AcquireResult> pending = null;
    try {
      pending = store.acquire(id, node(), resolved.policy(), lease);
      r = StoreFutures.await(pending, registry.commandTimeout());
      guard().success();
    } catch (StoreException e) {
      if (pending != null) {
        pending.whenComplete(new GiveBack(lease));
      }
      guard().failure(e);
      return guard().up() ? fromView() : degradedAcquire();
    }
    if (behind(r)) {
      return fromView(); // Redis lost what this node knows: decide from it, re-assert it
    }
    learn(r);
    if (!r.allowed()) {
      return reject(r.state(), r.reason());
    }
    return renewing(
        new BreakerGrant(
            this, true, r.state(), r.reason(), parse(r.generation()), r.leaseId(), false));
  }

  /**
   * A name for the next probe lease this node asks for: unique per breaker and process (a random
   * prefix, then a counter), without {@code '|'}. Named by the node, a lease can be given back when
   * the acquire's answer is lost.
   */
  private String nextLeaseName() {
    return LEASE_PREFIX + Long.toString(leaseNames.incrementAndGet(), 36);
  }

  /**
   * Gives back the lease an abandoned acquire may have been granted. The acquire timed out for this
   * node, but Redis may still have run it (a stall, a busy machine) and granted the lease: then no
   * node holds it, and the fleet would wait the lease's expiry (probeLeaseMillis, 10 s by default)
   * for its next probe. Once the acquire's future completes (its answer, or the client's own
   * timeout), the release goes out on the same connection and so runs after the acquire; a release
   * of a lease never granted changes nothing.
   */
  private final class GiveBack implements java.util.function.BiConsumer<AcquireResult, Throwable> {
    private final String lease;

    GiveBack(String lease) {
      this.lease = lease;
    }

    @Override
    public void accept(AcquireResult late, Throwable e) {
      if (e == null && (!late.allowed() || late.leaseId().isEmpty())) {
        return; // answered late without a lease: nothing to give back
      }
      release(e == null ? late.leaseId() : lease);
    }
  }

  /**
   * Gives a shared probe lease back unused. Fire and forget: a release that fails leaves the lease
   * to its expiry, as before, and never fails the caller (it may run on a caller's thread).
   */
  void release(String lease) {
    BreakerStore store = registry.store();
    if (store != null) {
      try {
        store.record(id, Outcome.release(node(), lease), resolved.policy());
      } catch (RuntimeException e) {
        // the lease expires after probeLeaseSeconds
      }
    }
  }

  /**
   * Decides from the last shared state this node holds, without Redis: a command failed or timed
   * out and the node is not (yet) degraded. OPEN stays OPEN until its window ends, a live override
   * stays in force, and a half-open breaker without a lease from Redis rejects (no lease, no
   * probe); only a view of CLOSED admits. A node that never read the shared state (started while
   * Redis was down) cannot know it and decides per process.
   */
  private Permission fromView() {
    SharedView v = view;
    if (v == null) {
      return fromLocal(local.tryAcquire(node()));
    }
    State s = v.effective(now());
    switch (s) {
      case CLOSED, FORCED_CLOSED, DISABLED, METRICS_ONLY:
        return new BreakerGrant(this, true, s, AdmissionReason.of(s), v.generation(), "", false);
      case OPEN, FORCED_OPEN:
        return reject(s, AdmissionReason.of(s));
      default:
        if (!resolved.policy().enabled()) {
          return new BreakerGrant(
              this, true, s, AdmissionReason.POLICY_DISABLED, v.generation(), "", false);
        }
        return reject(State.HALF_OPEN, AdmissionReason.NO_LEASE);
    }
  }

  /**
   * Decides while the node is degraded. The local machine, seeded from the last shared view when
   * the node was declared degraded, holds the override the node has seen, which stays in force in
   * every storeFailureMode until its expiry or clear. Then LOCAL_ONLY decides per process from the
   * seeded machine; LAST_KNOWN decides from the shared view for the registry's {@code lastKnownFor}
   * after its last read (half-open rejects: no lease, no probe), then as LOCAL_ONLY; ALLOW_ALL
   * admits.
   */
  private Permission degradedAcquire() {
    LocalAdmission overridden = null;
    synchronized (this) {
      seedIfNeeded();
      if (local.activeOverride().isPresent()) {
        overridden = local.tryAcquire(node());
      }
    }
    if (overridden != null) {
      return fromLocal(overridden);
    }
    StoreFailureMode m = resolved.policy().storeFailureMode();
    SharedView v = view;
    if (m == StoreFailureMode.ALLOW_ALL) {
      return new BreakerGrant(
          this,
          true,
          v == null ? State.CLOSED : v.effective(now()),
          AdmissionReason.DEGRADED_ALLOW,
          -1,
          "",
          true);
    }
    if (m == StoreFailureMode.LAST_KNOWN
        && v != null
        && now() - v.readAtMillis() < registry.lastKnownMillis()) {
      State s = v.effective(now());
      if (s.rejects()) {
        return reject(s, AdmissionReason.of(s));
      }
      if (s == State.HALF_OPEN) {
        return reject(s, AdmissionReason.NO_LEASE);
      }
      if (s == State.CLOSED && local.storedState() != State.CLOSED) {
        // the node's own failures tripped its local machine: never worse than LOCAL
        return fromLocal(seededAcquire());
      }
      return new BreakerGrant(this, true, s, AdmissionReason.LAST_KNOWN, -1, "", true);
    }
    return fromLocal(seededAcquire());
  }

  /**
   * The seeded local machine's decision while degraded. The seed check and the decision hold the
   * breaker's monitor, as {@link #install} does: a recovery installs the exact shared state (a
   * half-open breaker whose lease another node holds, or an open window that just ended) into the
   * local machine while this node is still degraded, and a decision between that and the guard's
   * recovery must come from a fresh seed (which rejects), never from the installed copy (which
   * would grant a local probe beside the fleet's: two calls at a recovering dependency).
   */
  private synchronized LocalAdmission seededAcquire() {
    seedIfNeeded();
    return local.tryAcquire(node());
  }

  /**
   * Seeds the local machine from the last shared view once per degradation, before it decides
   * anything: stored state, open window, override and its expiry (converted with the measured
   * Redis-time offset), generation. A view that is open or half-open becomes a fresh local open
   * window from now (at least one more open window before this node probes on its own), so a short
   * stall at the moment of recovery never turns into one probe per node.
   */
  private void seedIfNeeded() {
    long degradation = guard().degradations();
    if (seededFor == degradation) {
      return;
    }
    synchronized (this) {
      if (seededFor == degradation) {
        return;
      }
      SharedView v = view;
      if (v != null) {
        long now = now();
        long length = v.openMillis() > 0 ? v.openMillis() : resolved.policy().open().toMillis();
        if (v.stored() == State.CLOSED) {
          // seedClosed decides under the machine's lock: a check of the machine's state before a
          // seed could be overtaken by another caller's failure tripping it, and the seed would
          // erase that trip and its emptied window (7 calls where at most 6 may pass,
          // CoordinatorFaultIT in a run with both cores busy)
          ActiveOverride o = localOverride(v, now);
          if (!local.seeding().seedClosed(o, v.generation())) {
            // the node's own trip (its failures the fleet may not have heard of): kept, and
            // published at recovery as a trip made while degraded
            local
                .seeding()
                .seed(
                    local.storedState(),
                    local.openUntilMillis(),
                    local.openMillis(),
                    o,
                    v.generation());
            if (resolved.policy().storeFailureMode() != StoreFailureMode.ALLOW_ALL) {
              trippedWhileDegraded.set(true);
            }
          }
        } else {
          local
              .seeding()
              .seed(State.OPEN, now + length, length, localOverride(v, now), v.generation());
        }
      }
      seededFor = degradation;
    }
  }

  /** The view's override in force on the local clock, or null. */
  private static ActiveOverride localOverride(SharedView v, long now) {
    if (!v.overrideLive(now)) {
      return null;
    }
    long until = v.overrideUntil() == 0 ? 0 : v.overrideUntil() - v.offsetMillis();
    return new ActiveOverride(v.override(), until, v.origin().actor(), v.origin().reason(), now);
  }

  /**
   * Whether an acquire answer comes from a Redis that lost what this node's view enforces (a
   * failover to a replica that missed the write, a flush); then the node re-asserts it.
   */
  private boolean behind(AcquireResult r) {
    SharedView v = view;
    if (v == null) {
      return false;
    }
    State stored = r.state().isOverride() ? State.CLOSED : r.state();
    SharedView answer =
        new SharedView(
            stored,
            // untilMillis is the window's end only when OPEN (half-open: a lease's expiry; the
            // window ended by now)
            stored == State.OPEN ? r.untilMillis() : 0,
            0,
            r.state().isOverride() ? r.state() : null,
            0,
            SharedView.OverrideOrigin.UNKNOWN,
            null,
            parse(r.generation()),
            r.epoch(),
            v.offsetMillis(),
            now());
    State lost = v.lostIn(answer, now());
    if (lost == null) {
      return false;
    }
    reassertSoon(v, lost);
    return true;
  }

  private Permission fromLocal(LocalAdmission a) {
    if (!a.allowed()) {
      return reject(a.state(), a.reason());
    }
    return renewing(
        new BreakerGrant(
            this,
            true,
            a.state(),
            a.reason(),
            a.generation(),
            a.leaseId() == null ? "" : a.leaseId(),
            true));
  }

  /**
   * Keeps a granted probe's lease alive while its call runs, and ends the probe as failed at {@code
   * maxProbeSeconds} ({@link ProbeRenewal}): in Redis for a shared lease, in the local machine for
   * one it granted. A grant without a lease is returned as it is.
   */
  private BreakerGrant renewing(BreakerGrant g) {
    if (g.lease.isEmpty()) {
      return g;
    }
    g.renewing(renewal(g.lease, g.generation, g.local));
    return g;
  }

  private ProbeRenewal renewal(String lease, long generation, boolean localMachine) {
    Policy p = localMachine ? local.policy() : resolved.policy();
    ProbeRenewal.Renewer renewer =
        localMachine
            ? () -> CompletableFuture.completedFuture(renewLocal(lease, generation))
            : () -> renewShared(lease, Long.toString(generation));
    return ProbeRenewal.start(
        registry,
        renewer,
        r -> renewed(r, localMachine),
        p.probeLease().toMillis(),
        p.maxProbe().toMillis());
  }

  private CompletableFuture<RenewResult> renewShared(String lease, String generation) {
    BreakerStore store = registry.store();
    if (store == null) {
      return CompletableFuture.failedFuture(
          new io.breakerctl.runtime.store.StoreUnavailableException("not connected", null));
    }
    return store
        .renew(id, node(), resolved.policy(), lease, generation)
        .whenComplete(
            (r, e) -> {
              if (e != null) {
                guard().failure(e);
              } else {
                guard().success();
              }
            });
  }

  private RenewResult renewLocal(String lease, long generation) {
    LocalRenewal r = local.probes().renew(lease, node(), generation);
    return new RenewResult(
        r.state(), r.reason(), Long.toString(r.generation()), r.untilMillis(), "", r.renewals());
  }

  /** What a renewal's answer does: events, and the reopened breaker learned at once. */
  private void renewed(RenewResult r, boolean localMachine) {
    String detail = localMachine ? "LOCAL" : "";
    if (r.outcome() == RenewOutcome.RENEWED) {
      emit(CircuitEvent.Type.PROBE_RENEWED, State.HALF_OPEN, State.HALF_OPEN, detail);
    } else if (r.outcome() == RenewOutcome.PROBE_TIMED_OUT) {
      emit(CircuitEvent.Type.PROBE_TIMED_OUT, State.HALF_OPEN, State.OPEN, detail);
      if (!localMachine) {
        learnTimedOut(r);
      }
    }
  }

  /** The shared breaker reopened because this node's probe ran past maxProbeSeconds. */
  private void learnTimedOut(RenewResult r) {
    SharedView v = view;
    long gen = parse(r.generation());
    if (v != null && r.epoch().equals(v.epoch()) && gen <= v.generation()) {
      return;
    }
    apply(
        new SharedView(
            State.OPEN,
            r.untilMillis(),
            v == null ? 0 : v.openMillis(),
            null,
            0,
            SharedView.OverrideOrigin.UNKNOWN,
            null,
            gen,
            r.epoch(),
            v == null ? 0 : v.offsetMillis(),
            now()),
        TransitionCause.PROBE_TIMED_OUT,
        CircuitEvent.Source.WON);
    registry.transitionWon(id);
    registry.refreshSoon(this);
  }

  private Permission reject(State s, AdmissionReason reason) {
    observers.current().rejected(s, reason.code());
    emit(CircuitEvent.Type.REJECTED, s, s, reason.code());
    return new BreakerGrant(this, false, s, reason, -1, "", false);
  }

  void complete(BreakerGrant g, boolean failure, long nanos) {
    long millis = nanos / 1_000_000;
    Mode mode = registry.mode();
    if (g.own && guard().up()) {
      // the own trip's probe: the local machine decides on it, the fleet counts it as any call
      State before = local.state();
      local.record(failure ? 1 : 0, failure ? 0 : 1, millis, g.generation, g.lease, node());
      emit(
          failure ? CircuitEvent.Type.PROBE_FAILED : CircuitEvent.Type.PROBE_SUCCEEDED,
          before,
          local.state(),
          "LOCAL");
      boolean counted = failure || isSlow(millis);
      tally.completed(1);
      record(new Outcome(node(), counted ? 1 : 0, counted ? 0 : 1, millis, "", ""), null);
      return;
    }
    if (mode != Mode.LOCAL && !g.local && g.lease.isEmpty() && guard().up()) {
      long slow = resolved.slowMillis();
      if (!failure && (slow < 0 || millis < slow)) {
        pendingSuccesses.increment(); // flushed in batches; the local machine learns them then
        return;
      }
      long taken = pendingSuccesses.sumThenReset();
      tally.completed(taken + 1);
      long successes = taken + (failure ? 0 : 1);
      long failures = failure ? 1 : 0;
      LocalRecordResult counted = local.record(failures, successes, millis, -1, null, node());
      if (counted.state() == State.OPEN && (counted.transitioned() || !ownTrip)) {
        // at once, on the caller's thread: the next call already sees it. Not only the thread
        // whose failure tripped the machine: that thread may be descheduled between the trip and
        // its mark while the other callers' failures find the machine open (NOT_COUNTED) and the
        // hot path still admits (9 calls of one thread in such a gap, a quiet 2-core machine)
        ownTripped();
      }
      String gen = g.generation < 0 ? "" : Long.toString(g.generation);
      record(new Outcome(node(), failures, successes, millis, gen, ""), null);
      return;
    }
    boolean localLease = g.local && !g.lease.isEmpty();
    boolean pendingSuccess =
        mode != Mode.LOCAL && (g.local || !guard().up()) && !failure && !isSlow(millis);
    if (!pendingSuccess) {
      tally.completed(1); // (a success kept pending is counted as it is taken)
    }
    State before = local.state();
    local.record(
        failure ? 1 : 0,
        failure ? 0 : 1,
        millis,
        g.local ? g.generation : -1,
        localLease ? g.lease : null,
        node());
    if (localLease) {
      emit(
          failure ? CircuitEvent.Type.PROBE_FAILED : CircuitEvent.Type.PROBE_SUCCEEDED,
          before,
          local.state(),
          "LOCAL");
    }
    if (mode == Mode.LOCAL) {
      return;
    }
    if (g.local || !guard().up()) {
      // decided or reported while degraded: counted for the reconciliation on recovery
      if (failure || isSlow(millis)) {
        degradedFailures.incrementAndGet();
      } else {
        pendingSuccesses.increment();
      }
      return;
    }
    // a probe run under a shared lease: its result goes to Redis at once
    String gen = g.generation < 0 ? "" : Long.toString(g.generation);
    // a probe that took slowCallMillis or more failed, as the local machine counts it
    boolean failed = failure || isSlow(millis);
    record(
        Outcome.probe(node(), gen, g.lease, !failed),
        failed ? CircuitEvent.Type.PROBE_FAILED : CircuitEvent.Type.PROBE_SUCCEEDED);
  }

  boolean isSlow(long millis) {
    long slow = resolved.slowMillis();
    return slow >= 0 && millis >= slow;
  }

  private void record(Outcome o, CircuitEvent.Type probeEvent) {
    registry
        .store()
        .record(id, o, resolved.policy())
        .whenComplete(new Recorded(o, probeEvent, acting()));
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
        guard().failure(e);
        if (o.failures() > 0) {
          degradedFailures.addAndGet(o.failures());
        }
        pendingSuccesses.add(o.successes());
        tally.completed(-o.successes()); // counted again as they are taken again
        return;
      }
      guard().success();
      if (probeEvent != null) {
        emit(probeEvent, before, r.state(), r.reason().code());
      }
      learn(r);
    }
  }

  // ---- learning the shared state ------------------------------------------------------------

  private void learn(AcquireResult r) {
    SharedView v = view;
    if (v == null) {
      registry.refreshSoon(this);
      return;
    }
    long gen = parse(r.generation());
    if (gen == v.generation() && r.epoch().equals(v.epoch())) {
      return;
    }
    if (gen > v.generation() && r.epoch().equals(v.epoch()) && !r.state().isOverride()) {
      // keep the last answer until the full read arrives (what a stall then decides from)
      long until = r.state() == State.OPEN ? r.untilMillis() : v.openUntil();
      if (v.override() == null) {
        apply(
            v.withStored(r.state(), until, v.openMillis(), gen, r.epoch(), now()),
            null,
            CircuitEvent.Source.ANSWER);
      }
    }
    registry.refreshSoon(this);
  }

  private void learn(RecordResult r) {
    SharedView v = view;
    long gen = parse(r.generation());
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
            now()),
        r.transitioned() ? wonCause(v, r) : null,
        r.transitioned() ? CircuitEvent.Source.WON : CircuitEvent.Source.ANSWER);
    if (r.transitioned()) {
      registry.transitionWon(id);
    }
    registry.refreshSoon(this);
  }

  /** Applies a pub/sub transition message about this breaker (already parsed). */
  void onTransitionMessage(FleetMessage m) {
    SharedView v = view;
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
            now()),
        m.cause(),
        CircuitEvent.Source.PUSH);
    registry.refreshAfterPush(this);
  }

  /** Runs a message through the view update only (the registry's warm-up; no reads follow). */
  void warmUp(FleetMessage m) {
    apply(
        new SharedView(
            m.to(),
            m.until(),
            m.openMillis(),
            null,
            0,
            SharedView.OverrideOrigin.UNKNOWN,
            m.cause(),
            m.generation(),
            m.epoch(),
            0,
            now()),
        m.cause(),
        CircuitEvent.Source.PUSH);
    view().state();
  }

  /**
   * The registry's warm-up of the call path, on its scratch breaker whose view is open: {@code
   * rejections} calls rejected by the view (nothing is sent), so a node's first real rejection runs
   * compiled code and does not load the view switch's classes; the class that handles a record's
   * answer, which the first failure would load on the caller's thread; and the flush tick's report
   * (built, compared with the last one and encoded; not sent), which the node's first tick, 1 s
   * after its start, would otherwise do cold while the fleet may be tripping.
   */
  void warmUpCallPath(int rejections) {
    SharedView v = view;
    if (v == null || v.effective(now()) != State.OPEN) {
      return; // only a view that rejects by itself may run calls here
    }
    for (int i = 0; i < rejections; i++) {
      try {
        call(WARM_UP_CALL);
      } catch (CallNotPermittedException expected) {
        // what an open view does
      }
    }
    new Recorded(null, null, State.OPEN);
    // the report as the flush tick compares and encodes it; nothing is sent
    reports.warmUp();
  }

  private static final Supplier<Object> WARM_UP_CALL = () -> null;

  /** A warmed policy or another change that needs a full read. */
  void onOtherMessage() {
    registry.refreshSoon(this);
  }

  /**
   * The change stamp of what this node holds ({@link BreakerStore#stamps}): when the store's
   * differs, the node missed something and reads the breaker in full.
   */
  String stamp() {
    SharedView v = view;
    return v == null
        ? ""
        : BreakerStore.stamp(Long.toString(v.generation()), v.epoch(), warmedVersion);
  }

  /**
   * Whether this node's view holds the breaker away from CLOSED (an open or half-open window, an
   * override): state whose loss would read as CLOSED, so the periodic check compares its stamp.
   */
  boolean holdsState() {
    SharedView v = view;
    return v != null && (v.stored() != State.CLOSED || v.override() != null);
  }

  /** Applies a full read of the breaker's hash (refresh, first read). */
  void onSnapshot(BreakerSnapshot s) {
    warmedVersion = s.fields().getOrDefault("policyVersion", "");
    apply(SharedView.of(s, now()), null, CircuitEvent.Source.READ);
    adoptPolicy(s);
  }

  /**
   * Replaces the view with {@code next} unless {@code next} is behind it: the same incarnation at
   * an older generation (a read overtaken by a message, or a Redis that lost writes) is ignored,
   * and when it lost a live override or a running open window this node enforces, the node keeps
   * its view and re-asserts it through a script.
   */
  private void apply(SharedView next, TransitionCause cause, CircuitEvent.Source source) {
    State before;
    State lost = null;
    SharedView kept = null;
    synchronized (this) {
      SharedView v = view;
      if (v != null && (v.newerThan(next) || !v.epoch().equals(next.epoch()))) {
        lost = v.lostIn(next, now());
        if (lost != null || v.newerThan(next)) {
          kept = v;
        }
      }
      if (kept == null) {
        before = v == null ? State.CLOSED : acting();
        if (closedGrantFor(next) == null) {
          // before the view: a caller that sees the new view (an override, a trip) must not then
          // be admitted by the CLOSED grant of the old one (FallbackIT saw a call admitted under
          // a FORCED_OPEN that view() already showed, at load 49: this thread was preempted
          // between writing the view and the grant)
          closedGrant = null;
        }
        view = next;
        if (v != null && !v.epoch().equals(next.epoch())) {
          // another incarnation (a FLUSHALL, a failover to an empty replica, an expiry), however
          // this node learnt it (a read, a message, a script's answer): what it reported went
          // with the old keys, so it reports again at the next flush tick instead of within ten
          // heartbeat intervals (the fleet view showed NODES 0 for minutes; a node that learnt
          // the new epoch from another node's re-assertion did not report again at all)
          reports.resend();
        }
        if (registry.mode() != Mode.LOCAL
            && guard().up()
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
        closedGrant = ownTrip ? null : closedGrantFor(next);
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
    State after = next.effective(now());
    if (after != before && guard().up() && registry.mode() != Mode.LOCAL) {
      transition(before, after, cause, source);
    }
  }

  /**
   * Keeps a SHARED or HYBRID node's local machine in step with the fleet's state while Redis
   * answers, so that it counts this node's failures against the fleet's current generation from the
   * first one: a fleet CLOSED at a new generation of the same incarnation starts the local count
   * afresh (unless the node's own trip is in force; a new incarnation keeps the count: its key was
   * created or lost, and this node's failures are still this node's), a fleet away from CLOSED ends
   * the own trip and leaves the local machine open from now (never a copy of a half-open window
   * another node probes: the same rule as {@link #seedIfNeeded}). Called under the breaker's
   * monitor.
   */
  private void follow(SharedView previous, SharedView next, boolean afresh) {
    long now = now();
    if (next.stored() == State.CLOSED) {
      if (!ownTrip) {
        long gen = Math.max(0, next.generation());
        if (previous == null
            || (previous.stored() == State.CLOSED && previous.override() == null)) {
          // the fleet was CLOSED: a machine that is not is open on this node's own failures, and
          // the thread whose failure tripped it has not marked it yet (ownTripped() follows every
          // trip); seeding CLOSED over it would erase that trip and its emptied window (9 calls
          // where at most 6 may pass, 2 of 600 rounds). seedClosed decides under the machine's
          // lock, so a trip under way in another thread is never overtaken.
          if (!local.seeding().seedClosed(gen)) {
            ownTrip = true;
            return;
          }
        } else {
          local.seeding().seed(State.CLOSED, 0, 0, null, gen);
        }
        if (afresh) {
          local.seeding().clearWindow(); // (the first read keeps what the node counted before it)
        }
      }
      return;
    }
    ownTrip = false;
    long length = next.openMillis() > 0 ? next.openMillis() : resolved.policy().open().toMillis();
    local.seeding().seed(State.OPEN, now + length, length, null, Math.max(0, next.generation()));
    local.seeding().clearWindow();
  }

  /** Re-asserts what {@code v} enforces and Redis lost (one script call at a time). */
  private void reassertSoon(SharedView v, State lost) {
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
        .reassert(id, node(), r, resolved.policy())
        .whenComplete(
            (res, e) -> {
              reasserting.set(false);
              if (e != null) {
                guard().failure(e);
                return;
              }
              guard().success();
              // Redis was behind this node: the report it held may be gone with the lost writes
              // (a failover to a replica that missed them), so it goes again at the next tick
              reports.resend();
              if (res.written()) {
                emitEvent(
                    new CircuitEvent(
                        id,
                        CircuitEvent.Type.REASSERTED,
                        v.effective(now()),
                        res.state(),
                        lost.name(),
                        System.currentTimeMillis(),
                        TransitionCause.REASSERTED,
                        null));
              }
              registry.refreshSoon(this); // take what Redis holds once it is no longer behind
            });
  }

  private void adoptPolicy(BreakerSnapshot s) {
    WarmedPolicy warmed = s.warmedPolicy().orElse(null);
    Resolved r = resolved;
    if (warmed == null && r.version() > 0 && unwarms(s.unwarmed().orElse(null), r)) {
      // the control plane removed the policy this node runs (warm.lua's un-warm): its defaults
      resolve(new Resolved(registry.defaults(), "", 0));
      local.setPolicy(registry.defaults());
      State st = acting();
      emit(CircuitEvent.Type.POLICY_ADOPTED, st, st, "node-defaults@0");
      return;
    }
    if (warmed == null && r.version() > 0 && !s.epoch().equals(rewarmedEpoch)) {
      // the keys lost the policy this node runs (flushed, failed over to an empty replica,
      // expired; an un-warm leaves a marker, handled above): put it back, once per incarnation,
      // so the fleet view shows the version in force at once, not after the next failure's record
      rewarmedEpoch = s.epoch();
      rewarm(r);
      return;
    }
    if (warmed == null) {
      PolicySource source = registry.policySource();
      if (source != null && r.version() == 0 && now() - lastPolicyLookup > 30_000) {
        lastPolicyLookup = now();
        registry.background(
            () -> {
              try {
                source.resolveAndWarm(id).ifPresent(this::adopt);
              } catch (RuntimeException e) {
                registry.health().failed(BackgroundTask.POLICY_RESOLUTION, e);
              }
            });
      }
      return;
    }
    adopt(warmed);
  }

  /**
   * The incarnation (epoch; "" for keys that no longer exist) this node last put its lost policy
   * back into; null for none.
   */
  private volatile String rewarmedEpoch;

  /**
   * Warms the policy this node runs ({@code r}, a control-plane version) back into keys that lost
   * it. warm.lua keeps versions monotonic, so a newer version another node or the CLI warmed
   * meanwhile stays, and the node adopts what the answer names on its next read.
   */
  private void rewarm(Resolved r) {
    BreakerStore store = registry.store();
    if (store == null || !guard().up()) {
      return;
    }
    store
        .warm(id, r.policyId(), r.version(), r.policy(), node())
        .whenComplete(
            (w, e) -> {
              if (e != null) {
                rewarmedEpoch = null; // try again at the next read
                registry.health().failed(BackgroundTask.POLICY_RESOLUTION, e);
              } else {
                registry.health().succeeded(BackgroundTask.POLICY_RESOLUTION);
              }
            });
  }

  /**
   * Whether the un-warm marker ({@code <policyId>@<version>}) removed the policy {@code r} names at
   * its version or a newer one. Keys without a warmed policy but no marker (flushed, expired) keep
   * what the node runs: the node's next record carries it to the script.
   */
  private static boolean unwarms(String marker, Resolved r) {
    if (marker == null) {
      return false;
    }
    int at = marker.lastIndexOf('@');
    if (at < 0 || !marker.substring(0, at).equals(r.policyId())) {
      return false;
    }
    try {
      return Long.parseLong(marker.substring(at + 1)) >= r.version();
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private void adopt(WarmedPolicy w) {
    Resolved r = resolved;
    if (w.policyId().equals(r.policyId())
        && w.version() == r.version()
        && w.policy().equals(r.policy())) {
      return;
    }
    resolve(new Resolved(w.policy(), w.policyId(), w.version()));
    local.setPolicy(w.policy());
    State s = acting();
    emit(CircuitEvent.Type.POLICY_ADOPTED, s, s, w.policyId() + "@" + w.version());
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

  /** What this node reports about the breaker in record.lua's heartbeat. */
  NodeHeartbeat heartbeat(boolean up) {
    Resolved r = resolved;
    java.util.Set<io.breakerctl.runtime.model.FallbackPolicy> kinds = fallbacks;
    return new NodeHeartbeat(
        node(),
        acting(),
        r.policyId(),
        r.version(),
        !up,
        0,
        r.policyId().isEmpty() ? r.defaultsArg() : "",
        up ? "" : guard().reason().code(),
        kinds.isEmpty()
                || r.policy().fallbackPolicy() != io.breakerctl.runtime.model.FallbackPolicy.NONE
            ? ""
            : kinds.stream().map(Enum::name).collect(java.util.stream.Collectors.joining(",")),
        registry.session());
  }

  /** The fallbacks code registered for this breaker on this node (none: empty). */
  private volatile java.util.Set<io.breakerctl.runtime.model.FallbackPolicy> fallbacks =
      java.util.Set.of();

  @Override
  public void fallbacksRegistered(java.util.Set<io.breakerctl.runtime.model.FallbackPolicy> kinds) {
    fallbacks = java.util.Set.copyOf(kinds);
  }

  /**
   * Reconciles after Redis answered again, while the node still counts as degraded (the registry's
   * recovery check). Redis behind this node's view (a failover that lost a trip or an override)
   * gets it back through {@code reassert.lua}; a trip the local machine made while degraded is
   * published the same way when the shared breaker is CLOSED. Then the node adopts the shared state
   * exactly (stored state, window, override and its expiry, generation) into its view and its local
   * machine, sends the outcomes counted meanwhile when the shared breaker counts them, and reports
   * a transition only when what it enforces changes.
   *
   * @throws StoreException when Redis fails meanwhile (the registry retries)
   */
  void reconcile(BreakerSnapshot shared) {
    BreakerStore store = registry.store();
    State before = acting();
    long now = now();
    SharedView v = view;
    SharedView next = SharedView.of(shared, now);
    State lost = v == null ? null : v.lostIn(next, now);
    boolean published = false;
    if (lost != null) {
      StoreFutures.await(
          store.reassert(id, node(), reassertion(v, lost), resolved.policy()),
          registry.commandTimeout());
      next = SharedView.of(StoreFutures.await(store.state(id), registry.commandTimeout()), now());
    } else if (trippedWhileDegraded.get()
        && local.state().rejects()
        && next.effective(now) == State.CLOSED) {
      Reassertion trip =
          new Reassertion(
              Reassertion.Mode.DEGRADED_TRIP,
              State.OPEN,
              next.epoch(),
              next.generation(),
              local.openUntilMillis() + next.offsetMillis(),
              resolved.policy().open().toMillis(),
              null,
              degradedFailures.get(),
              "",
              "",
              "");
      StoreFutures.await(
          store.reassert(id, node(), trip, resolved.policy()), registry.commandTimeout());
      next = SharedView.of(StoreFutures.await(store.state(id), registry.commandTimeout()), now());
      published = true;
    }
    adoptPolicy(shared);
    if (lost != null || published || !sameIncarnation(v, next)) {
      reports.resend(); // what it reported may be gone with what Redis lost
    }
    trippedWhileDegraded.set(false);
    long failures = degradedFailures.getAndSet(0);
    long successes = pendingSuccesses.sumThenReset();
    tally.completed(successes);
    install(next);
    State counting = next.effective(now());
    if (!published
        && (failures > 0 || successes > 0)
        && (counting == State.CLOSED
            || counting == State.FORCED_CLOSED
            || counting == State.METRICS_ONLY)) {
      record(new Outcome(node(), failures, successes, -1, "", ""), null);
    }
    State after = next.effective(now());
    if (after != before) {
      transition(before, after, null, CircuitEvent.Source.RECONCILE);
    }
  }

  /** Whether {@code v} (null: none) is of the same incarnation as {@code next}. */
  private static boolean sameIncarnation(SharedView v, SharedView next) {
    return v == null || v.epoch().equals(next.epoch());
  }

  /**
   * The shared permission of the hot path while {@code v} is CLOSED without override, else null.
   */
  private BreakerGrant closedGrantFor(SharedView v) {
    return v.stored() == State.CLOSED && v.override() == null
        ? new BreakerGrant(
            this, true, State.CLOSED, AdmissionReason.CLOSED, v.generation(), "", false, null)
        : null;
  }

  /**
   * Takes {@code next} as the view and seeds the local machine from it exactly. That copy is for a
   * node that Redis answers; a degraded decision made before the guard recovers seeds afresh
   * ({@link #seededAcquire}).
   */
  private void install(SharedView next) {
    synchronized (this) {
      closedGrant = closedGrantFor(next); // first: see apply
      view = next;
      ownTrip = false;
      seededFor = -1;
      long now = now();
      local
          .seeding()
          .seed(
              next.stored(),
              next.stored() == State.CLOSED ? 0 : next.openUntil() - next.offsetMillis(),
              next.openMillis(),
              localOverride(next, now),
              Math.max(0, next.generation()));
    }
  }

  private static Reassertion reassertion(SharedView v, State lost) {
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

  /**
   * Announces the degradation, stamped with the time it began ({@link StoreGuard#downAtMillis}).
   */
  void degraded() {
    seedIfNeeded();
    State s = acting();
    if (!listeners.isEmpty()) {
      emitEvent(
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
    emit(CircuitEvent.Type.RECOVERED, s, s, "");
  }

  private void triggerProbe() {
    Callable<Boolean> check = probe;
    if (check == null || !probing.compareAndSet(false, true)) {
      return;
    }
    registry.background(
        () -> {
          String lease = nextLeaseName();
          try {
            CompletableFuture<AcquireResult> pending =
                registry.store().acquire(id, node(), resolved.policy(), lease);
            AcquireResult r;
            try {
              r = StoreFutures.await(pending);
            } catch (StoreException e) {
              pending.whenComplete(new GiveBack(lease));
              throw e;
            }
            if (!r.allowed()) {
              return;
            }
            boolean ok;
            ProbeRenewal renewal = renewal(r.leaseId(), parse(r.generation()), false);
            try {
              ok = Boolean.TRUE.equals(check.call());
            } catch (Exception e) {
              ok = false;
            } finally {
              renewal.stop();
            }
            RecordResult res =
                StoreFutures.await(
                    registry
                        .store()
                        .record(
                            id,
                            Outcome.probe(node(), r.generation(), r.leaseId(), ok),
                            resolved.policy()));
            emit(
                ok ? CircuitEvent.Type.PROBE_SUCCEEDED : CircuitEvent.Type.PROBE_FAILED,
                State.HALF_OPEN,
                res.state(),
                "HEALTH_CHECK");
            learn(res);
          } catch (StoreException e) {
            guard().failure(e);
          } finally {
            probing.set(false);
          }
        });
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
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  @Override
  public void probe(Callable<Boolean> healthCheck) {
    this.probe = healthCheck;
  }

  private void emit(CircuitEvent.Type type, State from, State to, String detail) {
    if (!listeners.isEmpty()) {
      emitEvent(new CircuitEvent(id, type, from, to, detail, System.currentTimeMillis()));
    }
  }

  private void transition(State from, State to, TransitionCause cause, CircuitEvent.Source source) {
    if (!listeners.isEmpty()) {
      emitEvent(
          new CircuitEvent(
              id,
              CircuitEvent.Type.TRANSITION,
              from,
              to,
              cause == null ? "" : cause.name(),
              System.currentTimeMillis(),
              cause,
              source));
    }
  }

  /**
   * The cause of a transition this node's own outcome made, from what the record script answered: a
   * trip (threshold or rate, by the count that tripped), a failed probe, probes that closed.
   */
  private TransitionCause wonCause(SharedView before, RecordResult r) {
    State from = before == null ? State.CLOSED : before.effective(now());
    if (r.state() == State.CLOSED) {
      return TransitionCause.PROBES_SUCCEEDED;
    }
    if (from == State.HALF_OPEN) {
      return TransitionCause.PROBE_FAILED;
    }
    return r.windowFailures() >= resolved.policy().failureThreshold()
        ? TransitionCause.FAILURE_THRESHOLD
        : TransitionCause.FAILURE_RATE;
  }

  private void emitEvent(CircuitEvent e) {
    for (Consumer<CircuitEvent> l : listeners) {
      try {
        l.accept(e);
      } catch (RuntimeException ignored) {
        // a listener must not break a call
      }
    }
  }

  private static long parse(String generation) {
    if (generation == null || generation.isEmpty()) {
      return -1;
    }
    return Long.parseLong(generation);
  }
}
