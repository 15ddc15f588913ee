package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.model.ReassertOutcome;
import io.breakerctl.runtime.model.State;
import java.util.List;

/**
 * The answer of {@code reassert.lua}.
 *
 * @param written whether the script wrote the trip or override (one transition event)
 * @param outcome REASSERTED, CURRENT (Redis was not behind), ENDED (over by Redis time) or ALREADY
 *     (Redis enforces it already, or holds what the fleet or an operator set since)
 * @param state the effective state afterwards
 * @param generation the generation afterwards
 * @param epoch the breaker's incarnation afterwards
 */
public record ReassertResult(
    boolean written, ReassertOutcome outcome, State state, String generation, String epoch) {

  static ReassertResult of(List<Object> r) {
    return new ReassertResult(
        Replies.flag(r, 0),
        ReassertOutcome.fromCode(Replies.str(r, 1)),
        State.fromCode(Replies.str(r, 2)),
        Replies.str(r, 3),
        Replies.str(r, 4));
  }
}
