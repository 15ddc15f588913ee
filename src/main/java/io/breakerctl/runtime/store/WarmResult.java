package io.breakerctl.runtime.store;

import io.breakerctl.runtime.model.WarmOutcome;

/**
 * The answer of the warm script.
 *
 * @param written whether the policy was written
 * @param outcome WARMED, UNWARMED (a removed policy taken out), UNCHANGED (same version present;
 *     for an un-warm: nothing of that policy warmed) or STALE (a newer version present)
 * @param policyId the policy id in force afterwards
 * @param policyVersion the version in force afterwards
 * @param epoch the breaker's incarnation
 */
public record WarmResult(
    boolean written, WarmOutcome outcome, String policyId, long policyVersion, String epoch) {

  /** The warm script's mode argument (in place of a storeFailureMode) that un-warms. */
}
