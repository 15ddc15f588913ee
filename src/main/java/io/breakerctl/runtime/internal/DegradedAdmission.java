package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.Permission;

/**
 * The admission decorator of a SHARED or HYBRID breaker: while the guard of its shard is down the
 * degraded decisions ({@link DegradedDecisions}) decide; while it is up, the mode's own strategy.
 */
final class DegradedAdmission implements Admission {
  private final BreakerState state;
  private final DegradedDecisions degraded;
  private final Admission up;

  DegradedAdmission(BreakerState state, DegradedDecisions degraded, Admission up) {
    this.state = state;
    this.degraded = degraded;
    this.up = up;
  }

  @Override
  public Permission decide() {
    return state.guard().up() ? up.decide() : degraded.degradedAcquire();
  }
}
