package io.breakerctl.runtime.local;

import io.breakerctl.runtime.model.RenewOutcome;
import io.breakerctl.runtime.model.State;

/**
 * The answer of {@link HalfOpenProbes#renew}, as {@code renew.lua} returns it.
 *
 * @param state the effective state after
 * @param reason RENEWED, PROBE_TIMED_OUT (the breaker reopened), LEASE_EXPIRED or STALE_LEASE
 * @param generation the generation after
 * @param untilMillis for RENEWED the lease's new expiry, for PROBE_TIMED_OUT the open window's end,
 *     else 0
 * @param renewals the lease's renewals so far (0 when no lease was held)
 */
public record LocalRenewal(
    State state, RenewOutcome reason, long generation, long untilMillis, long renewals) {}
