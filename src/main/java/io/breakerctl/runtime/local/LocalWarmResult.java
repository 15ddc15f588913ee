package io.breakerctl.runtime.local;

/**
 * The answer of {@link LocalStateMachine#warm}, as {@code warm.lua} returns it.
 *
 * @param written whether the policy was taken
 * @param outcome WARMED, UNCHANGED (this version is held) or STALE (a newer one is held)
 * @param policyId the warmed policy id held afterwards
 * @param version the warmed version held afterwards
 */
public record LocalWarmResult(boolean written, String outcome, String policyId, long version) {}
