package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.model.OverrideOutcome;
import io.breakerctl.runtime.model.State;
import java.util.List;

/**
 * The answer of the override script.
 *
 * @param changed whether anything was written
 * @param state the effective state afterwards
 * @param outcome SET, UPDATED, CLEARED or NOT_OVERRIDDEN
 * @param eventId the stream id of the event, empty if none
 * @param generation the generation afterwards
 * @param epoch the breaker's incarnation
 * @param previous the effective state before
 * @param untilMillis the override's expiry afterwards (Redis ms); 0 until cleared, or none
 */
public record OverrideResult(
    boolean changed,
    State state,
    OverrideOutcome outcome,
    String eventId,
    String generation,
    String epoch,
    State previous,
    long untilMillis) {

  static OverrideResult of(List<Object> r) {
    return new OverrideResult(
        Replies.flag(r, 0),
        State.fromCode(Replies.str(r, 1)),
        OverrideOutcome.fromCode(Replies.str(r, 2)),
        Replies.str(r, 3),
        Replies.str(r, 4),
        Replies.str(r, 5),
        State.fromCode(Replies.str(r, 6)),
        Replies.num(r, 7));
  }
}
