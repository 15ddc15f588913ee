package io.breakerctl.runtime.store;

import io.breakerctl.runtime.model.OverrideOutcome;
import io.breakerctl.runtime.model.State;
import java.util.Map;

/**
 * The answer of the override script.
 *
 * @param changed whether anything was written
 * @param state the effective state afterwards
 * @param outcome SET, UPDATED, UNCHANGED, CLEARED or NOT_OVERRIDDEN
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

  /**
   * The answer an override that landed gave, rebuilt from what a read-back found: its event (cause
   * OVERRIDE_SET, OVERRIDE_UPDATED or OVERRIDE_CLEARED), else the override in the hash (then with
   * no event id, and the state before unknown: shown as the state after).
   */
  public static OverrideResult landed(WriteLanding found) {
    Map<String, String> h = found.fields();
    if (found.event().isPresent()) {
      BreakerEvent e = found.event().get();
      Map<String, String> f = e.fields();
      OverrideOutcome outcome =
          switch (f.getOrDefault("cause", "")) {
            case "OVERRIDE_CLEARED" -> OverrideOutcome.CLEARED;
            case "OVERRIDE_UPDATED" -> OverrideOutcome.UPDATED;
            default -> OverrideOutcome.SET;
          };
      return new OverrideResult(
          true,
          e.to(),
          outcome,
          e.streamId(),
          f.getOrDefault("generation", h.getOrDefault("generation", "")),
          e.epoch(),
          e.from(),
          number(f.get("until")));
    }
    State now = State.fromCode(h.get("override"));
    return new OverrideResult(
        true,
        now,
        OverrideOutcome.SET,
        "",
        h.getOrDefault("generation", ""),
        h.getOrDefault("epoch", ""),
        now,
        number(h.get("overrideUntil")));
  }

  private static long number(String s) {
    try {
      return s == null || s.isEmpty() ? 0 : Long.parseLong(s);
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
