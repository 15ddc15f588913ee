package io.breakerctl.runtime.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;

/**
 * One message of the {@code <prefix>:events} channel as a node reads it: a transition event (the
 * stream entry's fields, published by the scripts) or a warmed policy.
 *
 * @param id the breaker
 * @param transition true for a transition, false for a policy or anything else
 * @param from the state before, null when unknown
 * @param to the state after (CLOSED for a non-transition)
 * @param cause the cause, null when unknown
 * @param generation the generation after
 * @param epoch the breaker's incarnation
 * @param until the open window's end or the override's expiry (Redis ms), 0 for none
 * @param openMillis the open window's length, 0 when not given
 * @param actor the override's actor, "" for none
 * @param reason the override's reason, "" for none
 * @param correlationId the override's correlation id, "" for none
 */
record FleetMessage(
    BreakerId id,
    boolean transition,
    State from,
    State to,
    TransitionCause cause,
    long generation,
    String epoch,
    long until,
    long openMillis,
    String actor,
    String reason,
    String correlationId) {

  /**
   * Parses a message.
   *
   * @throws IllegalArgumentException for a message that names no valid breaker or state
   */
  static FleetMessage parse(JsonNode m) {
    BreakerId id = BreakerId.parse(m.path("id").asText(""));
    boolean transition = "transition".equals(m.path("type").asText(""));
    if (!transition) {
      return new FleetMessage(id, false, null, State.CLOSED, null, 0, "", 0, 0, "", "", "");
    }
    String from = m.path("from").asText("");
    return new FleetMessage(
        id,
        true,
        from.isEmpty() ? null : State.fromCode(from),
        State.fromCode(m.path("to").asText("CLOSED")),
        cause(m.path("cause").asText("")),
        m.path("generation").asLong(0),
        m.path("epoch").asText(""),
        m.path("until").asLong(0),
        m.path("openMillis").asLong(0),
        m.path("actor").asText(""),
        m.path("reason").asText(""),
        m.path("correlationId").asText(""));
  }

  private static TransitionCause cause(String name) {
    for (TransitionCause c : TransitionCause.values()) {
      if (c.name().equals(name)) {
        return c;
      }
    }
    return null;
  }
}
