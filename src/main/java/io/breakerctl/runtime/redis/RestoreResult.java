package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.model.State;
import java.util.List;

/**
 * The answer of restore.lua.
 *
 * @param status what the script decided
 * @param state the effective state afterwards
 * @param epoch the keys' epoch afterwards (the new one when restored)
 * @param eventId the RESTORED event's stream id, empty when nothing was written
 * @param generation the generation afterwards
 * @param previousEpoch the keys' epoch before (empty when they did not exist)
 */
public record RestoreResult(
    RestoreStatus status,
    State state,
    String epoch,
    String eventId,
    String generation,
    String previousEpoch) {

  static RestoreResult of(List<Object> r) {
    return new RestoreResult(
        RestoreStatus.valueOf(Replies.str(r, 1)),
        State.fromCode(Replies.str(r, 2)),
        Replies.str(r, 3),
        Replies.str(r, 4),
        Replies.str(r, 5),
        Replies.str(r, 6));
  }
}
