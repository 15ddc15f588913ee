package io.breakerctl.runtime.local;

import io.breakerctl.runtime.model.OverrideOutcome;
import io.breakerctl.runtime.model.State;

/**
 * The answer of {@link LocalOverrides#set} and {@link LocalOverrides#clear}, as {@code
 * override.lua} returns it.
 *
 * @param changed whether anything changed (false only for NOT_OVERRIDDEN and UNCHANGED)
 * @param state the effective state after
 * @param outcome SET, UPDATED, UNCHANGED, CLEARED or NOT_OVERRIDDEN
 * @param generation the generation after
 * @param previous the effective state before
 */
public record LocalOverrideResult(
    boolean changed, State state, OverrideOutcome outcome, long generation, State previous) {}
