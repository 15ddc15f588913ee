package io.breakerctl.runtime.local;

/**
 * The counts of a {@link LocalStateMachine} ({@link LocalStateMachine#counts()}), as the script's
 * hash keeps them, read together under the machine's lock.
 *
 * @param windowFailures failures in the sliding window as of the last counted outcome (the script's
 *     {@code winFailures})
 * @param windowCalls calls in the sliding window as of the last counted outcome ({@code winCalls})
 * @param failuresTotal every failure ever recorded, counted in the window or not (stale and slow
 *     ones included)
 * @param successesTotal every success ever recorded, counted in the window or not
 */
public record LocalCounts(
    long windowFailures, long windowCalls, long failuresTotal, long successesTotal) {}
