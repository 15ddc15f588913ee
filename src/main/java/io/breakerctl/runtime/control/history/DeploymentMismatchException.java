package io.breakerctl.runtime.control.history;

import io.breakerctl.runtime.control.ControlException;

/**
 * A restore refused because the history and the Redis belong to different deployments (see {@link
 * Deployments}), or because the deployment named as the source is not on record. Nothing was
 * written.
 */
public final class DeploymentMismatchException extends ControlException {

  private final boolean unknown;

  /**
   * A refusal.
   *
   * @param unknown true when the deployment named as the source is not on record
   */
  public DeploymentMismatchException(String message, boolean unknown) {
    super(message);
    this.unknown = unknown;
  }

  /** Whether the deployment named as the source is not on record (else the two differ). */
  public boolean unknown() {
    return unknown;
  }
}
