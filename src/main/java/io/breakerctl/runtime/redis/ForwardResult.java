package io.breakerctl.runtime.redis;

import java.util.List;

/**
 * The answer of the forwarded script.
 *
 * @param advanced whether the cursor moved
 * @param forwarded the cursor afterwards (empty if none)
 * @param lastEvent the newest event's stream id
 * @param epoch the breaker's current incarnation
 */
public record ForwardResult(boolean advanced, String forwarded, String lastEvent, String epoch) {

  static ForwardResult of(List<Object> r) {
    return new ForwardResult(
        Replies.flag(r, 0), Replies.str(r, 1), Replies.str(r, 2), Replies.str(r, 3));
  }
}
