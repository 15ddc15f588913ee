package io.breakerctl.runtime.store;

import io.breakerctl.runtime.model.State;
import java.util.Map;

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

  /**
   * The answer a restore that landed gave, rebuilt from its RESTORED event a read-back found (the
   * hash alone, without the event, gives the state and epoch it holds).
   */
  public static RestoreResult landed(WriteLanding found) {
    Map<String, String> h = found.fields();
    if (found.event().isPresent()) {
      BreakerEvent e = found.event().get();
      Map<String, String> f = e.fields();
      return new RestoreResult(
          RestoreStatus.RESTORED,
          e.to(),
          e.epoch(),
          e.streamId(),
          f.getOrDefault("generation", ""),
          f.getOrDefault("previousEpoch", ""));
    }
    return new RestoreResult(
        RestoreStatus.RESTORED,
        State.fromCode(h.getOrDefault("state", State.CLOSED.code())),
        h.getOrDefault("epoch", ""),
        "",
        h.getOrDefault("generation", ""),
        "");
  }
}
