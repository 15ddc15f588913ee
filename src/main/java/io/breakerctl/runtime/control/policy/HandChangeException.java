package io.breakerctl.runtime.control.policy;

import io.breakerctl.runtime.control.ControlException;

/**
 * An apply that may only replace CI-made versions ({@link ApplyOptions#onlyOverCi()}) found a
 * version in force that no CI rollout made: a rollback, a hand apply, a revert or a version of
 * unknown origin. Nothing was written; a CI run would otherwise silently undo a person's change.
 */
public final class HandChangeException extends ControlException {

  private final transient PolicyVersion inForce;

  /** The version in force of a policy that a CI rollout may not replace. */
  public HandChangeException(PolicyVersion inForce) {
    super(message(inForce));
    this.inForce = inForce;
  }

  /** The policy. */
  public PolicyId policyId() {
    return inForce.policyId();
  }

  /** The version in force that no CI rollout made. */
  public PolicyVersion inForce() {
    return inForce;
  }

  private static String message(PolicyVersion v) {
    return "policy "
        + v.policyId()
        + ": version "
        + v.version()
        + " in force was not made by a CI rollout (origin "
        + v.origin()
        + ", by "
        + v.author()
        + " at "
        + v.createdAt()
        + ", reason: "
        + v.reason()
        + "); nothing was written";
  }
}
