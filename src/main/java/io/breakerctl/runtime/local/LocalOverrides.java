package io.breakerctl.runtime.local;

import io.breakerctl.runtime.model.OverrideOutcome;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;
import java.time.Duration;
import java.util.Objects;

/**
 * Operator overrides on one {@link LocalStateMachine} ({@link LocalStateMachine#overrides()}), as
 * {@code override.lua} sets and clears them. The override is held beside the machine state, which
 * it leaves as it was for when it ends; {@link LocalStateMachine#activeOverride()} reads it.
 *
 * <p>Thread-safe: each operation runs under the machine's lock and records its transition as the
 * machine's own operations do.
 */
public final class LocalOverrides {
  private final LocalStateMachine m;

  LocalOverrides(LocalStateMachine machine) {
    this.m = machine;
  }

  /**
   * Sets or updates an operator override, as {@code override.lua} does: FORCED_OPEN rejects every
   * call; FORCED_CLOSED and METRICS_ONLY admit every call and count outcomes in the window but
   * never trip; DISABLED admits every call and counts only the totals. Setting the override already
   * held updates it (OVERRIDE_UPDATED); any other is a new override (OVERRIDE_SET). The machine
   * state underneath (an open window, its backoff) is kept for when the override ends.
   *
   * @param kind FORCED_OPEN, FORCED_CLOSED, DISABLED or METRICS_ONLY
   * @param forOrZero how long it lasts; {@link Duration#ZERO} until cleared
   * @param actor who sets it
   * @param reason why (null reads as empty)
   * @throws IllegalArgumentException for a kind that is not an override or a negative duration
   */
  public LocalOverrideResult set(State kind, Duration forOrZero, String actor, String reason) {
    return set(kind, forOrZero, actor, reason, false);
  }

  /**
   * As {@link #set(State, Duration, String, String)}; with {@code keep}, as {@code override.lua}
   * asked to keep: when the same override, set by the same actor with the same reason, is in force,
   * nothing changes ({@link OverrideOutcome#UNCHANGED}, its expiry kept, no transition).
   */
  public LocalOverrideResult set(
      State kind, Duration forOrZero, String actor, String reason, boolean keep) {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(forOrZero, "forOrZero");
    Objects.requireNonNull(actor, "actor");
    if (!kind.isOverride()) {
      throw new IllegalArgumentException(
          "override must be one of FORCED_OPEN, FORCED_CLOSED, DISABLED, METRICS_ONLY but was "
              + kind);
    }
    if (forOrZero.isNegative()) {
      throw new IllegalArgumentException("override duration must be >= 0 but was " + forOrZero);
    }
    return m.locked(
        now -> {
          State previous = m.settle(now);
          String why = reason == null ? "" : reason;
          if (keep
              && m.override != null
              && m.override.kind() == kind
              && m.override.actor().equals(actor)
              && m.override.reason().equals(why)) {
            return new LocalOverrideResult(
                false, previous, OverrideOutcome.UNCHANGED, m.generation, previous);
          }
          long duration = forOrZero.toMillis();
          long until = duration > 0 ? now + duration : 0;
          boolean update = m.override != null && m.override.kind() == kind;
          m.override = new ActiveOverride(kind, until, actor, why, now);
          m.transition(
              now,
              previous,
              kind,
              update ? TransitionCause.OVERRIDE_UPDATED : TransitionCause.OVERRIDE_SET);
          return new LocalOverrideResult(
              true,
              kind,
              update ? OverrideOutcome.UPDATED : OverrideOutcome.SET,
              m.generation,
              previous);
        });
  }

  /**
   * Clears the override, as {@code override.lua} does: the machine resumes where it was, except
   * that an open window that ended meanwhile resumes as HALF_OPEN. Without an override nothing
   * changes (NOT_OVERRIDDEN).
   *
   * @param actor who clears it
   * @param reason why (not kept: the machine keeps no audit)
   */
  public LocalOverrideResult clear(String actor, String reason) {
    Objects.requireNonNull(actor, "actor");
    return m.locked(
        now -> {
          State previous = m.settle(now);
          if (m.override == null) {
            return new LocalOverrideResult(
                false, previous, OverrideOutcome.NOT_OVERRIDDEN, m.generation, previous);
          }
          State was = m.override.kind();
          State to = m.endOverride(now);
          m.transition(now, was, to, TransitionCause.OVERRIDE_CLEARED);
          return new LocalOverrideResult(true, to, OverrideOutcome.CLEARED, m.generation, previous);
        });
  }
}
