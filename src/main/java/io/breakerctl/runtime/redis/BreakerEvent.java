package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;
import java.util.Map;

/**
 * One entry of a breaker's event stream: a transition or an override action. Its identity is
 * (breaker id, epoch, stream id).
 *
 * @param id the breaker
 * @param streamId the entry's stream id
 * @param fields every field as stored (from, to, cause, generation, node, at, and per cause:
 *     failures, calls, threshold, lease, actor, reason, correlationId, until, ...)
 */
public record BreakerEvent(BreakerId id, String streamId, Map<String, String> fields) {

  /** The incarnation of the breaker's keys the event belongs to. */
  public String epoch() {
    return fields.getOrDefault("epoch", "");
  }

  /** The state before. */
  public State from() {
    return State.fromCode(fields.get("from"));
  }

  /** The state after. */
  public State to() {
    return State.fromCode(fields.get("to"));
  }

  /** Why. */
  public TransitionCause cause() {
    return TransitionCause.valueOf(fields.get("cause"));
  }

  /** Redis time of the transition, ms. */
  public long atMillis() {
    return Long.parseLong(fields.getOrDefault("at", "0"));
  }

  /** A field, or empty. */
  public String field(String name) {
    return fields.getOrDefault(name, "");
  }
}
