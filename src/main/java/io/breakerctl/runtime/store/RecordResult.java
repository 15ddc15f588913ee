package io.breakerctl.runtime.store;

import io.breakerctl.runtime.model.RecordOutcome;
import io.breakerctl.runtime.model.State;

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
    long openUntilMillis) {}
