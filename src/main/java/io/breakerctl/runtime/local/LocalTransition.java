package io.breakerctl.runtime.local;

import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;

/**
 * One transition of a {@link LocalStateMachine}, as delivered to its listeners; the local
 * counterpart of the event the scripts append to the breaker's stream.
 *
 * @param from the effective state before
 * @param to the effective state after
 * @param cause why; {@code Transitions.isLegal(from, to, cause)} holds for every delivered value
 * @param generation the generation the transition started (one more than the previous one)
 * @param atMillis the clock time of the operation that recorded it, in milliseconds
 * @param windowFailures failures in the sliding window when it happened, before any reset it causes
 *     (for a trip: the count that tripped)
 */
public record LocalTransition(
    State from,
    State to,
    TransitionCause cause,
    long generation,
    long atMillis,
    long windowFailures) {}
