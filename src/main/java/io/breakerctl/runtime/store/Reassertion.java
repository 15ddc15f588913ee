package io.breakerctl.runtime.store;

import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;
import java.util.Objects;

/**
 * What a node asks {@code reassert.lua} to put back: a trip or an override that Redis lost (its
 * view is newer than what Redis holds), or a trip its local machine made while Redis was
 * unreachable.
 *
 * @param mode {@link Mode#REASSERT} or {@link Mode#DEGRADED_TRIP}
 * @param kind {@link State#OPEN} or an override state
 * @param seenEpoch the epoch the node saw it in
 * @param seenGeneration the generation the node saw it at
 * @param untilMillis Redis time when the open window or the override ends (0: override until
 *     cleared)
 * @param openMillis the open window's length, 0 for the policy's
 * @param knownCause the cause the node knows, or null
 * @param failures the failures at the trip, -1 when unknown
 * @param actor the override's actor ("" for none)
 * @param reason the override's reason ("" for none)
 * @param correlationId the override's correlation id ("" for none)
 * @param probesMayRun the node saw the lost incarnation half-open (stored): probes granted in it
 *     may still be running, so a trip put back after its window ended holds every probe slot for
 *     one lease, as a prober that stopped answering would
 */
public record Reassertion(
    Mode mode,
    State kind,
    String seenEpoch,
    long seenGeneration,
    long untilMillis,
    long openMillis,
    TransitionCause knownCause,
    long failures,
    String actor,
    String reason,
    String correlationId,
    boolean probesMayRun) {

  /** A reassertion that knows of no probe in flight. */
  public Reassertion(
      Mode mode,
      State kind,
      String seenEpoch,
      long seenGeneration,
      long untilMillis,
      long openMillis,
      TransitionCause knownCause,
      long failures,
      String actor,
      String reason,
      String correlationId) {
    this(
        mode,
        kind,
        seenEpoch,
        seenGeneration,
        untilMillis,
        openMillis,
        knownCause,
        failures,
        actor,
        reason,
        correlationId,
        false);
  }

  /** Whether the script writes only when Redis is behind, or whenever the breaker is CLOSED. */
  public enum Mode {
    /** Put back what Redis lost: written only when Redis is behind the node's view. */
    REASSERT,
    /** Publish a trip made while Redis was unreachable: written when the breaker is CLOSED. */
    DEGRADED_TRIP
  }

  /** Validates the request. */
  public Reassertion {
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(kind, "kind");
    if (kind != State.OPEN && !kind.isOverride()) {
      throw new IllegalArgumentException(
          "a reassertion puts back OPEN or an override, not " + kind);
    }
    if (mode == Mode.DEGRADED_TRIP && kind != State.OPEN) {
      throw new IllegalArgumentException("a degraded trip opens the breaker, not " + kind);
    }
    seenEpoch = seenEpoch == null ? "" : seenEpoch;
    actor = actor == null ? "" : actor;
    reason = reason == null ? "" : reason;
    correlationId = correlationId == null ? "" : correlationId;
  }
}
