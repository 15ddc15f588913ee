package io.breakerctl.runtime.control.policy;

import io.breakerctl.runtime.control.policy.PolicySpec.FieldChange;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What an apply or rollback would do, computed without writing (a dry run, and what an operator
 * reviews before confirming).
 *
 * @param policyId the policy
 * @param latestVersion the newest version now (0: the policy does not exist); pin it with {@link
 *     ApplyOptions#expecting(long)} so that the change fails if the policy moves after the review
 * @param inForce the version in force now, empty when none
 * @param changes the spec fields that would change against the version in force (every field for a
 *     new policy)
 * @param changed whether a version would be created (false: the apply would say UNCHANGED)
 * @param expiresAt the expiry the new version would have (a temporary policy), else empty
 */
public record PolicyPreview(
    PolicyId policyId,
    long latestVersion,
    Optional<PolicyVersion> inForce,
    List<FieldChange> changes,
    boolean changed,
    Optional<Instant> expiresAt) {

  /** Copies the list. */
  public PolicyPreview {
    changes = List.copyOf(changes);
  }
}
