package io.breakerctl.runtime.control.replay;

import io.breakerctl.runtime.control.TransitionRef;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;
import java.time.Instant;
import java.util.Map;

/**
 * The fleet's state right after one transition.
 *
 * @param at the transition's Redis time
 * @param transition the transition
 * @param breaker the state of the breaker that transitioned
 * @param fleet every replayed breaker's state in force at {@code at}
 */
public record ReplayFrame(
    Instant at, TransitionRef transition, ReplayState breaker, Map<BreakerId, State> fleet) {

  /** Copies the map. */
  public ReplayFrame {
    fleet = Map.copyOf(fleet);
  }
}
