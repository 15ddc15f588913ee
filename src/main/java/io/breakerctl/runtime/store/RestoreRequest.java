package io.breakerctl.runtime.store;

import io.breakerctl.runtime.model.State;
import java.util.Objects;

/**
 * What restore.lua writes: the state history says a breaker was in, and the transition it comes
 * from.
 *
 * @param stored the machine state (CLOSED, OPEN or HALF_OPEN)
 * @param openUntilMillis the open window's end (Redis ms), 0 when not open
 * @param openMillis the open window's length (for the probe-failure backoff), 0 when unknown
 * @param override the live override, or null
 * @param overrideUntilMillis the override's expiry (Redis ms), 0 for until cleared
 * @param overrideActor who set the override
 * @param overrideReason why
 * @param overrideCorrelationId the override's correlation id
 * @param sourceEpoch the epoch of the newest transition in history
 * @param sourceStreamId its stream id
 * @param sourceAtMillis its Redis time
 * @param sourceGeneration its generation
 * @param actor who restores
 * @param reason why
 * @param correlationId the restore's correlation id
 */
public record RestoreRequest(
    State stored,
    long openUntilMillis,
    long openMillis,
    State override,
    long overrideUntilMillis,
    String overrideActor,
    String overrideReason,
    String overrideCorrelationId,
    String sourceEpoch,
    String sourceStreamId,
    long sourceAtMillis,
    long sourceGeneration,
    String actor,
    String reason,
    String correlationId) {

  /** Validates. */
  public RestoreRequest {
    Objects.requireNonNull(stored, "stored");
    if (stored.isOverride()) {
      throw new IllegalArgumentException(
          "restore: stored state must be a machine state but was " + stored);
    }
    if (override != null && !override.isOverride()) {
      throw new IllegalArgumentException(
          "restore: override must be an override state but was " + override);
    }
    overrideActor = overrideActor == null ? "" : overrideActor;
    overrideReason = overrideReason == null ? "" : overrideReason;
    overrideCorrelationId = overrideCorrelationId == null ? "" : overrideCorrelationId;
    Objects.requireNonNull(sourceEpoch, "sourceEpoch");
    Objects.requireNonNull(sourceStreamId, "sourceStreamId");
    Objects.requireNonNull(actor, "actor");
    reason = reason == null ? "" : reason;
    correlationId = correlationId == null ? "" : correlationId;
  }
}
