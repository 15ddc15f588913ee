package io.breakerctl.runtime.control.policy;

import io.breakerctl.runtime.control.policy.PolicySpec.FieldChange;
import java.util.List;
import java.util.Optional;

/**
 * What an apply, rollback or revert did.
 *
 * @param policyId the policy
 * @param outcome CREATED (a new version), DELETED (a tombstone version) or UNCHANGED (the spec in
 *     force was the same, or the policy was already deleted)
 * @param version the version in force afterwards
 * @param previous the version in force before, empty for a new policy
 * @param changes the spec fields that changed (empty when unchanged)
 * @param warmed what warming into Redis did, per breaker governed by the policy
 * @param correlationId the audit record's correlation id (empty when unchanged)
 */
public record ApplyResult(
    PolicyId policyId,
    Outcome outcome,
    PolicyVersion version,
    Optional<PolicyVersion> previous,
    List<FieldChange> changes,
    List<WarmReport> warmed,
    String correlationId) {

  /** Whether a version was created. */
  public enum Outcome {
    /** A new version was created. */
    CREATED,
    /** A tombstone version was created: the policy is deleted, its breakers re-resolved. */
    DELETED,
    /** The spec in force was the same; no version was created (Redis was re-warmed). */
    UNCHANGED
  }

  /** Copies the lists. */
  public ApplyResult {
    changes = List.copyOf(changes);
    warmed = List.copyOf(warmed);
  }
}
