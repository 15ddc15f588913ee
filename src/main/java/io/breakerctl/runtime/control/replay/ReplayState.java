package io.breakerctl.runtime.control.replay;

import io.breakerctl.runtime.control.TransitionRef;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;
import java.util.Optional;

/**
 * A breaker's state at an instant, as replayed from its history.
 *
 * @param id the breaker
 * @param state the state in force at the instant (the shared {@link
 *     io.breakerctl.runtime.model.EffectiveState} function: an open window that ended or an
 *     override that expired without a script running is computed)
 * @param stored the machine state stored then
 * @param openUntilMillis the open window's end (Redis ms) when stored OPEN, else 0
 * @param override the override stored then (live or expired by the instant)
 * @param overrideUntilMillis its expiry (Redis ms), 0 for until cleared
 * @param epoch the incarnation of the keys then
 * @param last the newest transition at or before the instant (empty for keys re-created since)
 * @param lastAtMillis its Redis time, 0 when none
 */
public record ReplayState(
    BreakerId id,
    State state,
    State stored,
    long openUntilMillis,
    Optional<State> override,
    long overrideUntilMillis,
    String epoch,
    Optional<TransitionRef> last,
    long lastAtMillis) {}
