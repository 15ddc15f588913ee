package io.breakerctl.runtime;

import io.breakerctl.runtime.model.EffectiveState;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.BreakerSnapshot;

/**
 * A node's copy of a breaker's shared state: the stored fields that decide admission plus the
 * offset between Redis time and the local clock when they were read, so time-based changes (an open
 * window ending, an override expiring) are computed at Redis time by the one state function.
 */
record SharedView(
    State stored,
    long openUntil,
    State override,
    long overrideUntil,
    long generation,
    String epoch,
    long offsetMillis,
    long readAtMillis) {

  /** The state in force at local time {@code localNowMillis}. */
  State effective(long localNowMillis) {
    return EffectiveState.of(
        stored, openUntil, override, overrideUntil, localNowMillis + offsetMillis);
  }

  /** Whether {@code next} may replace this view (same incarnation and not older, or a new one). */
  boolean supersededBy(SharedView next) {
    return !epoch.equals(next.epoch) || next.generation >= generation;
  }

  static SharedView of(BreakerSnapshot s, long localNowMillis) {
    return new SharedView(
        s.storedState(),
        s.number("openUntil"),
        s.override().orElse(null),
        s.number("overrideUntil"),
        s.number("generation"),
        s.epoch(),
        s.redisTimeMillis() - localNowMillis,
        localNowMillis);
  }
}
