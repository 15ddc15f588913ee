package io.breakerctl.integration.resilience4j;

import io.breakerctl.runtime.model.State;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;

/** breakerctl's states as Resilience4j's. */
final class States {
  private States() {}

  /**
   * {@code s} as Resilience4j names it: the same name where Resilience4j has the state;
   * FORCED_CLOSED, which it has not, as METRICS_ONLY (every call admitted, outcomes counted, never
   * trips: what FORCED_CLOSED does).
   */
  static CircuitBreaker.State of(State s) {
    return switch (s) {
      case CLOSED -> CircuitBreaker.State.CLOSED;
      case OPEN -> CircuitBreaker.State.OPEN;
      case HALF_OPEN -> CircuitBreaker.State.HALF_OPEN;
      case FORCED_OPEN -> CircuitBreaker.State.FORCED_OPEN;
      case FORCED_CLOSED, METRICS_ONLY -> CircuitBreaker.State.METRICS_ONLY;
      case DISABLED -> CircuitBreaker.State.DISABLED;
    };
  }
}
