package io.breakerctl.runtime.local;

import io.breakerctl.runtime.model.State;

/**
 * An operator override held by a {@link LocalStateMachine}.
 *
 * @param kind FORCED_OPEN, FORCED_CLOSED, DISABLED or METRICS_ONLY
 * @param untilMillis when it expires, 0 for never
 * @param actor who set it
 * @param reason why
 * @param setAtMillis when it was set or last updated
 */
public record ActiveOverride(
    State kind, long untilMillis, String actor, String reason, long setAtMillis) {}
