package io.breakerctl.runtime.store;

import io.breakerctl.runtime.model.ReassertOutcome;
import io.breakerctl.runtime.model.State;

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
    boolean written, ReassertOutcome outcome, State state, String generation, String epoch) {}
