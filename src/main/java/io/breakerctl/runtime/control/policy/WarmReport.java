package io.breakerctl.runtime.control.policy;

import io.breakerctl.runtime.model.BreakerId;

/**
 * What warming a policy into one breaker's Redis keys did.
 *
 * @param breakerId the breaker
 * @param policyId the policy warmed (the one that resolves for the breaker)
 * @param version the version warmed
 * @param outcome WARMED, UNCHANGED, STALE (a newer version was present) or FAILED
 * @param error why it failed, empty otherwise
 */
public record WarmReport(
    BreakerId breakerId, String policyId, long version, String outcome, String error) {

  /** Whether the breaker holds the version (written now or already there). */
  public boolean ok() {
    return !"FAILED".equals(outcome);
  }
}
