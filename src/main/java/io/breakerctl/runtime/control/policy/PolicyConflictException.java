package io.breakerctl.runtime.control.policy;

import io.breakerctl.runtime.control.ControlException;

/**
 * A policy moved between reading and writing: another applier created a version first. Nothing was
 * written by the loser; re-read, review and apply again.
 */
public final class PolicyConflictException extends ControlException {

  private final transient PolicyId policyId;
  private final long expected;
  private final long actual;

  /** A conflict on {@code policyId}: {@code expected} was assumed, {@code actual} is current. */
  public PolicyConflictException(PolicyId policyId, long expected, long actual) {
    super(
        "policy "
            + policyId
            + " moved: expected version "
            + expected
            + " but is "
            + actual
            + "; nothing was written, review and apply again");
    this.policyId = policyId;
    this.expected = expected;
    this.actual = actual;
  }

  /** The policy. */
  public PolicyId policyId() {
    return policyId;
  }

  /** The version the applier based its change on (0: none). */
  public long expected() {
    return expected;
  }

  /** The version current when the write was attempted. */
  public long actual() {
    return actual;
  }
}
