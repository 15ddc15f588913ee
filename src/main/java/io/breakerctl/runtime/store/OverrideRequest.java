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
 * @param keep when the same override, set by the same actor with the same reason, is already in
 *     force, change nothing ({@link io.breakerctl.runtime.model.OverrideOutcome#UNCHANGED}, its
 *     expiry kept) rather than update it; ignored by a clear
 */
public record OverrideRequest(
    OverrideKind kind,
    String actor,
    String reason,
    Duration duration,
    String correlationId,
    boolean keep) {

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

  /** A request that updates an override already in force ({@code keep} false). */
  public OverrideRequest(
      OverrideKind kind, String actor, String reason, Duration duration, String correlationId) {
    this(kind, actor, reason, duration, correlationId, false);
  }

  /** This request under {@code correlationId}. */
  public OverrideRequest withCorrelationId(String correlationId) {
    return new OverrideRequest(kind, actor, reason, duration, correlationId, keep);
  }

  /** This request keeping an override the same actor already holds with the same reason. */
  public OverrideRequest keeping() {
    return new OverrideRequest(kind, actor, reason, duration, correlationId, true);
  }
}
