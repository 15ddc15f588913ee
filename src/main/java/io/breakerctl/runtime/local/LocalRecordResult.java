package io.breakerctl.runtime.local;

import io.breakerctl.runtime.model.RecordOutcome;
import io.breakerctl.runtime.model.State;

/**
 * The answer of {@link LocalStateMachine#record}, as {@code record.lua} returns it.
 *
 * @param state the effective state after the outcome
 * @param windowFailures failures in the window when the outcome was counted (at a trip: the count
 *     that tripped; after probes close the breaker: 0)
 * @param windowCalls calls in the window likewise
 * @param transitioned whether this outcome caused a trip, a close or a reopen (changes noticed by
 *     time alone are not counted here)
 * @param generation the generation after the outcome
 * @param accepted whether the outcome counted toward state
 * @param reason COUNTED, RELEASED, STALE_GENERATION, STALE_LEASE, LEASE_EXPIRED or NOT_COUNTED
 */
public record LocalRecordResult(
    State state,
    long windowFailures,
    long windowCalls,
    boolean transitioned,
    long generation,
    boolean accepted,
    RecordOutcome reason) {}
