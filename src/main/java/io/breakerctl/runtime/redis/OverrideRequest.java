package io.breakerctl.runtime.redis;

import java.time.Duration;
import java.util.Objects;

/**
 * An operator's override action.
 *
 * @param kind what to do
 * @param actor who does it (user or service account)
 * @param reason why; required for every kind
 * @param duration how long the override lasts; {@link Duration#ZERO} until cleared
 * @param correlationId links the action to its audit record; may be empty
 */
public record OverrideRequest(
    OverrideKind kind, String actor, String reason, Duration duration, String correlationId) {

  /** Validates the request. */
  public OverrideRequest {
    Objects.requireNonNull(kind, "kind");
    if (actor == null || actor.isBlank()) {
      throw new IllegalArgumentException("override actor must not be empty");
    }
    if (reason == null || reason.isBlank()) {
      throw new IllegalArgumentException("override reason must not be empty");
    }
    duration = duration == null ? Duration.ZERO : duration;
    if (duration.isNegative()) {
      throw new IllegalArgumentException("override duration must be >= 0 but was " + duration);
    }
    correlationId = correlationId == null ? "" : correlationId;
  }
}
