package io.breakerctl.runtime.local;

import io.breakerctl.runtime.model.State;
import java.util.Objects;

/**
 * The fleet's shared state taken over by one {@link LocalStateMachine} ({@link
 * LocalStateMachine#seeding()}): what a node's machine starts from when it decides for a node that
 * lost Redis, and follows when Redis answers again. No transition is recorded: the fleet made the
 * change, not this machine, and the caller reports what the node enforces.
 *
 * <p>Thread-safe: each operation runs under the machine's lock, so a seed and an outcome recorded
 * in another thread never interleave.
 */
public final class FleetSeeding {
  private final LocalStateMachine m;

  FleetSeeding(LocalStateMachine machine) {
    this.m = machine;
  }

  /**
   * Takes the fleet's shared state exactly, without recording transitions: the stored state, the
   * open window, the override with its expiry and the generation replace the machine's own. The
   * runtime calls it when this machine starts deciding for a node that lost Redis (seeded from the
   * node's last shared view) and when Redis answers again (reconcile); the caller reports what the
   * node enforces, so no listener hears of a change the fleet did not make. The window counts are
   * kept: they are this node's own outcomes.
   *
   * @param storedState the shared machine state: CLOSED, OPEN or HALF_OPEN
   * @param openUntilMillis the open window's end on this machine's clock (0 for none)
   * @param openMillis the open window's length, the base of the next backoff (0 for the policy's)
   * @param override the override in force, or null for none ({@code untilMillis} on this clock)
   * @param generation the shared generation (at least 0)
   * @throws IllegalArgumentException for an override as the stored state or a negative generation
   */
  public void seed(
      State storedState,
      long openUntilMillis,
      long openMillis,
      ActiveOverride override,
      long generation) {
    check(storedState, override, generation);
    m.update(now -> take(storedState, openUntilMillis, openMillis, override, generation));
  }

  /**
   * Takes the fleet's CLOSED state at {@code generation} (as {@link #seed} with CLOSED and no
   * override), but only while the machine is itself CLOSED without an override; otherwise changes
   * nothing and answers false. Atomic with respect to {@link LocalStateMachine#record}: a runtime
   * following a fleet that is CLOSED must not erase a trip this node's own failures made a moment
   * ago, which a check of {@link LocalStateMachine#storedState()} before {@link #seed} could not
   * rule out (the trip may be under way in another thread between the two).
   *
   * @param generation the shared generation (at least 0)
   * @return whether the machine took it (false: the machine is open on its own count)
   */
  public boolean seedClosed(long generation) {
    check(State.CLOSED, null, generation);
    return m.locked(now -> m.override == null && takeClosed(null, generation));
  }

  /**
   * Takes the fleet's CLOSED state at {@code generation} with its {@code override} (as {@link
   * #seed} with CLOSED), but only while the machine's stored state is CLOSED; otherwise changes
   * nothing and answers false. Atomic with respect to {@link LocalStateMachine#record}, as {@link
   * #seedClosed(long)}: a node seeding its machine as it degrades must not erase a trip its own
   * failures made a moment ago in another thread.
   *
   * @param override the override in force, or null for none
   * @param generation the shared generation (at least 0)
   * @return whether the machine took it (false: the machine is open on its own count)
   */
  public boolean seedClosed(ActiveOverride override, long generation) {
    check(State.CLOSED, override, generation);
    return m.locked(now -> takeClosed(override, generation));
  }

  /**
   * Empties the failure window, as the scripts do when the shared breaker trips or closes: a node
   * following the fleet to a new generation counts its failures afresh from there.
   */
  public void clearWindow() {
    m.update(now -> m.window.clear(now, m.policy().window().toMillis()));
  }

  private static void check(State storedState, ActiveOverride override, long generation) {
    Objects.requireNonNull(storedState, "storedState");
    if (storedState.isOverride()) {
      throw new IllegalArgumentException(
          "seeded state must be CLOSED, OPEN or HALF_OPEN but was " + storedState);
    }
    if (generation < 0) {
      throw new IllegalArgumentException("generation must be >= 0 but was " + generation);
    }
    if (override != null && !override.kind().isOverride()) {
      throw new IllegalArgumentException(
          "override must be one of FORCED_OPEN, FORCED_CLOSED, DISABLED, METRICS_ONLY but was "
              + override.kind());
    }
  }

  /** Under the lock: takes CLOSED with {@code override} while the machine is CLOSED. */
  private boolean takeClosed(ActiveOverride override, long generation) {
    if (m.stored != State.CLOSED) {
      return false;
    }
    take(State.CLOSED, 0, 0, override, generation);
    return true;
  }

  /** Under the lock: the machine's stored fields replaced, its probe leases dropped. */
  private void take(
      State storedState,
      long openUntilMillis,
      long openMillis,
      ActiveOverride override,
      long generation) {
    boolean closed = storedState == State.CLOSED;
    m.stored = storedState;
    m.openUntil = closed ? 0 : openUntilMillis;
    m.openMillis = closed ? 0 : Math.max(0, openMillis);
    m.override = override;
    m.generation = generation;
    m.halfOpenSuccesses = 0;
    m.leases.clear();
  }
}
