package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.CircuitEvent;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.BreakerStore;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.Reassertion;
import io.breakerctl.runtime.store.StoreException;
import io.breakerctl.runtime.store.StoreFutures;

/**
 * A breaker's way back from a degradation: after Redis answered again, and before the node counts
 * as up, it puts back what Redis lost, publishes a trip made meanwhile, adopts the shared state
 * exactly and sends the outcomes counted meanwhile.
 */
final class Reconciliation {
  private final BreakerState state;
  private final BreakerContext registry;
  private final BreakerEvents events;
  private final ViewTracker tracker;
  private final OutcomeRouter outcomes;
  private final PolicyAdoption policies;
  private final BreakerReports reports;

  Reconciliation(
      BreakerState state,
      BreakerEvents events,
      ViewTracker tracker,
      OutcomeRouter outcomes,
      PolicyAdoption policies,
      BreakerReports reports) {
    this.state = state;
    this.registry = state.registry;
    this.events = events;
    this.tracker = tracker;
    this.outcomes = outcomes;
    this.policies = policies;
    this.reports = reports;
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
    State before = state.acting();
    long now = state.now();
    SharedView v = state.view;
    SharedView next = SharedView.of(shared, now);
    State lost = v == null ? null : v.lostIn(next, now);
    boolean published = false;
    if (lost != null) {
      StoreFutures.await(
          store.reassert(
              state.id, state.node(), ViewTracker.reassertion(v, lost), state.resolved.policy()),
          registry.commandTimeout());
      next =
          SharedView.of(
              StoreFutures.await(store.state(state.id), registry.commandTimeout()), state.now());
    } else if (state.trippedWhileDegraded.get()
        && state.local.state().rejects()
        && next.effective(now) == State.CLOSED) {
      Reassertion trip =
          new Reassertion(
              Reassertion.Mode.DEGRADED_TRIP,
              State.OPEN,
              next.epoch(),
              next.generation(),
              state.local.openUntilMillis() + next.offsetMillis(),
              state.resolved.policy().open().toMillis(),
              null,
              state.degradedFailures.get(),
              "",
              "",
              "");
      StoreFutures.await(
          store.reassert(state.id, state.node(), trip, state.resolved.policy()),
          registry.commandTimeout());
      next =
          SharedView.of(
              StoreFutures.await(store.state(state.id), registry.commandTimeout()), state.now());
      published = true;
    }
    policies.adoptPolicy(shared);
    if (lost != null || published || !ViewTracker.sameIncarnation(v, next)) {
      reports.resend(); // what it reported may be gone with what Redis lost
    }
    state.trippedWhileDegraded.set(false);
    long failures = state.degradedFailures.getAndSet(0);
    long successes = state.pendingSuccesses.sumThenReset();
    state.tally.completed(successes);
    tracker.install(next);
    State counting = next.effective(state.now());
    if (!published
        && (failures > 0 || successes > 0)
        && (counting == State.CLOSED
            || counting == State.FORCED_CLOSED
            || counting == State.METRICS_ONLY)) {
      outcomes.record(new Outcome(state.node(), failures, successes, -1, "", ""), null);
    }
    State after = next.effective(state.now());
    if (after != before) {
      events.transition(before, after, null, CircuitEvent.Source.RECONCILE);
    }
  }
}
