package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.CircuitEvent;
import io.breakerctl.runtime.local.LocalRenewal;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.RenewOutcome;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;
import io.breakerctl.runtime.store.AcquireResult;
import io.breakerctl.runtime.store.BreakerStore;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.RecordResult;
import io.breakerctl.runtime.store.RenewResult;
import io.breakerctl.runtime.store.StoreException;
import io.breakerctl.runtime.store.StoreFutures;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A breaker's probe leases: their names, their renewal while the probe's call runs (shared or
 * local, ended as failed at maxProbeSeconds), their give-back when unused or when an abandoned
 * acquire may have been granted one, and the health-check probe registered with {@link
 * CircuitBreaker#probe}.
 */
final class ProbeLeases {
  private final BreakerState state;
  private final BreakerContext registry;
  private final BreakerEvents events;
  private final ViewTracker tracker;
  private final AtomicLong leaseNames = new AtomicLong();
  private final AtomicBoolean probing = new AtomicBoolean();
  private volatile Callable<Boolean> probe;

  ProbeLeases(BreakerState state, BreakerEvents events, ViewTracker tracker) {
    this.state = state;
    this.registry = state.registry;
    this.events = events;
    this.tracker = tracker;
  }

  /** Registers the health check run as the probe while half-open (null: none). */
  void probe(Callable<Boolean> healthCheck) {
    this.probe = healthCheck;
  }

  /** Whether a health check is registered. */
  boolean hasProbe() {
    return probe != null;
  }

  /** Gives back, once {@code pending} completes, the lease it may have granted. */
  void giveBackIfGranted(CompletableFuture<AcquireResult> pending, String lease) {
    pending.whenComplete(new GiveBack(lease));
  }

  /** This process's prefix of the lease names its nodes propose (see {@link #nextLeaseName}). */
  private static final String LEASE_PREFIX =
      Long.toString(java.util.concurrent.ThreadLocalRandom.current().nextLong() & 0xFFFFFFFFFFL, 36)
          + "-";

  /**
   * A name for the next probe lease this node asks for: unique per breaker and process (a random
   * prefix, then a counter), without {@code '|'}. Named by the node, a lease can be given back when
   * the acquire's answer is lost.
   */
  String nextLeaseName() {
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
        store.record(state.id, Outcome.release(state.node(), lease), state.resolved.policy());
      } catch (RuntimeException e) {
        // the lease expires after probeLeaseSeconds
      }
    }
  }

  /**
   * Keeps a granted probe's lease alive while its call runs, and ends the probe as failed at {@code
   * maxProbeSeconds} ({@link ProbeRenewal}): in Redis for a shared lease, in the local machine for
   * one it granted. A grant without a lease is returned as it is.
   */
  BreakerGrant renewing(BreakerGrant g) {
    if (g.lease.isEmpty()) {
      return g;
    }
    g.renewing(renewal(g.lease, g.generation, g.local));
    return g;
  }

  private ProbeRenewal renewal(String lease, long generation, boolean localMachine) {
    Policy p = localMachine ? state.local.policy() : state.resolved.policy();
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
        .renew(state.id, state.node(), state.resolved.policy(), lease, generation)
        .whenComplete(
            (r, e) -> {
              if (e != null) {
                state.guard().failure(e);
              } else {
                state.guard().success();
              }
            });
  }

  private RenewResult renewLocal(String lease, long generation) {
    LocalRenewal r = state.local.probes().renew(lease, state.node(), generation);
    return new RenewResult(
        r.state(), r.reason(), Long.toString(r.generation()), r.untilMillis(), "", r.renewals());
  }

  /** What a renewal's answer does: events, and the reopened breaker learned at once. */
  void renewed(RenewResult r, boolean localMachine) {
    String detail = localMachine ? "LOCAL" : "";
    if (r.outcome() == RenewOutcome.RENEWED) {
      events.emit(CircuitEvent.Type.PROBE_RENEWED, State.HALF_OPEN, State.HALF_OPEN, detail);
    } else if (r.outcome() == RenewOutcome.PROBE_TIMED_OUT) {
      events.emit(CircuitEvent.Type.PROBE_TIMED_OUT, State.HALF_OPEN, State.OPEN, detail);
      if (!localMachine) {
        learnTimedOut(r);
      }
    }
  }

  /** The shared breaker reopened because this node's probe ran past maxProbeSeconds. */
  private void learnTimedOut(RenewResult r) {
    SharedView v = state.view;
    long gen = BreakerState.generation(r.generation());
    if (v != null && r.epoch().equals(v.epoch()) && gen <= v.generation()) {
      return;
    }
    tracker.apply(
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
            state.now()),
        TransitionCause.PROBE_TIMED_OUT,
        CircuitEvent.Source.WON);
    registry.transitionWon(state.id);
    registry.refreshSoon(state.id);
  }

  void triggerProbe() {
    Callable<Boolean> check = probe;
    if (check == null || !probing.compareAndSet(false, true)) {
      return;
    }
    registry.onOwnThread(
        () -> {
          String lease = nextLeaseName();
          try {
            CompletableFuture<AcquireResult> pending =
                registry.store().acquire(state.id, state.node(), state.resolved.policy(), lease);
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
            ProbeRenewal renewal =
                renewal(r.leaseId(), BreakerState.generation(r.generation()), false);
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
                            state.id,
                            Outcome.probe(state.node(), r.generation(), r.leaseId(), ok),
                            state.resolved.policy()));
            events.emit(
                ok ? CircuitEvent.Type.PROBE_SUCCEEDED : CircuitEvent.Type.PROBE_FAILED,
                State.HALF_OPEN,
                res.state(),
                "HEALTH_CHECK");
            state.windowSeen(res);
            tracker.learn(res);
          } catch (StoreException e) {
            state.guard().failure(e);
          } finally {
            probing.set(false);
          }
        });
  }
}
