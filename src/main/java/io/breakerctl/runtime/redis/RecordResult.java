package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.model.RecordOutcome;
import io.breakerctl.runtime.model.State;
import java.util.List;

/**
 * The answer of the record script.
 *
 * @param state the effective state after the outcome
 * @param windowFailures failures in the window when the outcome was counted (at the trip: the count
 *     that tripped)
 * @param windowCalls calls in the window likewise
 * @param transitioned whether this outcome caused a transition (this caller won it)
 * @param generation the generation after the outcome
 * @param eventId the stream id of the transition event, empty if none
 * @param epoch the breaker's incarnation
 * @param accepted whether the outcome counted toward state (false for stale results)
 * @param reason COUNTED, STALE_GENERATION, STALE_LEASE, LEASE_EXPIRED or NOT_COUNTED
 * @param openUntilMillis end of the open window (Redis ms) when the machine is OPEN, else 0
 */
public record RecordResult(
    State state,
    long windowFailures,
    long windowCalls,
    boolean transitioned,
    String generation,
    String eventId,
    String epoch,
    boolean accepted,
    RecordOutcome reason,
    long openUntilMillis) {

  static RecordResult of(List<Object> r) {
    if (r.size() == 4) {
      // the fast path: {windowFailures, windowCalls, generation, epoch}, counted in CLOSED
      return new RecordResult(
          State.CLOSED,
          Replies.num(r, 0),
          Replies.num(r, 1),
          false,
          Replies.str(r, 2),
          "",
          Replies.str(r, 3),
          true,
          RecordOutcome.COUNTED,
          0);
    }
    return new RecordResult(
        State.fromCode(Replies.str(r, 0)),
        Replies.num(r, 1),
        Replies.num(r, 2),
        Replies.flag(r, 3),
        Replies.str(r, 4),
        Replies.str(r, 5),
        Replies.str(r, 6),
        Replies.flag(r, 7),
        RecordOutcome.fromCode(Replies.str(r, 8)),
        Replies.num(r, 9));
  }
}
