package io.breakerctl.runtime.model;

/**
 * The one function that turns a breaker's stored fields into the state in force at a given Redis
 * time.
 *
 * <p>Two changes happen with time alone, without any script running: an open window ends (OPEN
 * reads as HALF_OPEN once {@code now >= openUntil}) and an override expires ({@code now >=
 * overrideUntil}). Readers (status, the runtime's local view, replay) call this function; the Lua
 * scripts mirror it in {@code prelude.lua} ({@code effective_state}) and record the transition
 * event the next time they touch the breaker. Both are tested against each other.
 */
public final class EffectiveState {
  private EffectiveState() {}

  /**
   * Computes the effective state.
   *
   * @param stored the stored machine state (CLOSED, OPEN or HALF_OPEN)
   * @param openUntilMillis end of the open window (Redis time, ms); read only when {@code stored}
   *     is OPEN
   * @param override the live override, or null for none
   * @param overrideUntilMillis when the override expires (Redis time, ms), 0 for never
   * @param nowMillis the Redis time to evaluate at, in milliseconds
   */
  public static State of(
      State stored,
      long openUntilMillis,
      State override,
      long overrideUntilMillis,
      long nowMillis) {
    if (override != null && !overrideExpired(overrideUntilMillis, nowMillis)) {
      return override;
    }
    if (stored == State.OPEN && nowMillis >= openUntilMillis) {
      return State.HALF_OPEN;
    }
    return stored;
  }

  /** True when an override with this expiry is no longer in force at {@code nowMillis}. */
  public static boolean overrideExpired(long overrideUntilMillis, long nowMillis) {
    return overrideUntilMillis > 0 && nowMillis >= overrideUntilMillis;
  }
}
