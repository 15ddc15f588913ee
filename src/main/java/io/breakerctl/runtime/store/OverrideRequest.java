package io.breakerctl.runtime.store;

import io.breakerctl.runtime.model.OperatorText;
import io.breakerctl.runtime.model.OverrideKind;
import java.time.Duration;
import java.util.Objects;

/**
 * An operator's override action.
 *
 * @param kind what to do
 * @param actor who does it (user or service account); at most {@link OperatorText#MAX_ACTOR_BYTES}
 *     bytes, no control characters
 * @param reason why; required for every kind; at most {@link OperatorText#MAX_REASON_BYTES} bytes,
 *     no control characters
 * @param duration how long the override lasts; {@link Duration#ZERO} until cleared
 * @param correlationId links the action to its audit record; may be empty
 */
public record OverrideRequest(
    OverrideKind kind, String actor, String reason, Duration duration, String correlationId) {

  /** Validates the request. */
  public OverrideRequest {
    Objects.requireNonNull(kind, "kind");
    OperatorText.require("override actor", actor, OperatorText.MAX_ACTOR_BYTES);
    OperatorText.require("override reason", reason, OperatorText.MAX_REASON_BYTES);
    duration = duration == null ? Duration.ZERO : duration;
    if (duration.isNegative()) {
      throw new IllegalArgumentException("override duration must be >= 0 but was " + duration);
    }
    correlationId = correlationId == null ? "" : correlationId;
  }
}
