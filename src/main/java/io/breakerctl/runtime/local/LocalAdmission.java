package io.breakerctl.runtime.local;

import io.breakerctl.runtime.model.AdmissionReason;
import io.breakerctl.runtime.model.State;

/**
 * The answer of {@link LocalStateMachine#tryAcquire}, as {@code acquire.lua} returns it.
 *
 * @param allowed whether the call may run
 * @param state the effective state at the decision
 * @param reason CLOSED, FORCED_CLOSED, DISABLED, METRICS_ONLY, POLICY_DISABLED, PROBE (allowed),
 *     OPEN, FORCED_OPEN, PROBES_BUSY (rejected)
 * @param generation the generation admitted in; {@link LocalStateMachine#record} takes it back
 * @param leaseId the probe lease id when {@code reason} is PROBE, else null
 * @param untilMillis for PROBE the lease's expiry; for a rejection when it may end (the open
 *     window's end, the override's expiry, the earliest lease expiry), 0 when unknown
 */
public record LocalAdmission(
    boolean allowed,
    State state,
    AdmissionReason reason,
    long generation,
    String leaseId,
    long untilMillis) {}
