package io.breakerctl.runtime.store;

import io.breakerctl.runtime.model.RenewOutcome;
import io.breakerctl.runtime.model.State;

/**
 * The answer of {@code renew.lua}.
 *
 * @param state the effective state afterwards (OPEN after PROBE_TIMED_OUT)
 * @param outcome RENEWED, PROBE_TIMED_OUT, LEASE_EXPIRED or STALE_LEASE
 * @param generation the generation afterwards
 * @param untilMillis Redis time: the lease's new expiry (RENEWED) or the reopened window's end
 *     (PROBE_TIMED_OUT); 0 otherwise
 * @param epoch the breaker's incarnation (empty when its keys do not exist)
 * @param renewals the lease's renewals so far
 */
public record RenewResult(
    State state,
    RenewOutcome outcome,
    String generation,
    long untilMillis,
    String epoch,
    long renewals) {}
