package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.CallNotPermittedException;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.CircuitEvent;
import io.breakerctl.runtime.model.State;
import java.util.function.Supplier;

/**
 * The breaker's part of the registry's JIT warm-up: a scratch breaker runs the paths a node's first
 * trip takes (a pushed message through the view, rejections, a record's answer, the flush tick's
 * report), so that they run compiled and loaded when the fleet first trips.
 */
final class BreakerWarmUp {
  private final BreakerState state;
  private final CircuitBreaker breaker;
  private final ViewTracker tracker;
  private final OutcomeRouter outcomes;
  private final BreakerReports reports;

  BreakerWarmUp(
      BreakerState state,
      CircuitBreaker breaker,
      ViewTracker tracker,
      OutcomeRouter outcomes,
      BreakerReports reports) {
    this.state = state;
    this.breaker = breaker;
    this.tracker = tracker;
    this.outcomes = outcomes;
    this.reports = reports;
  }

  /** Runs a message through the view update only (the registry's warm-up; no reads follow). */
  void warmUp(FleetMessage m) {
    tracker.apply(
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
            state.now()),
        m.cause(),
        CircuitEvent.Source.PUSH);
    breaker.view().state();
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
    SharedView v = state.view;
    if (v == null || v.effective(state.now()) != State.OPEN) {
      return; // only a view that rejects by itself may run calls here
    }
    for (int i = 0; i < rejections; i++) {
      try {
        breaker.call(WARM_UP_CALL);
      } catch (CallNotPermittedException expected) {
        // what an open view does
      }
    }
    outcomes.warmUp();
    // the report as the flush tick compares and encodes it; nothing is sent
    reports.warmUp();
  }

  private static final Supplier<Object> WARM_UP_CALL = () -> null;
}
