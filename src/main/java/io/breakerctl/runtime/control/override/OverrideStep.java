package io.breakerctl.runtime.control.override;

import io.breakerctl.runtime.store.StoreException;

/**
 * What applying a plan did to one breaker ({@link AppliedOverrides}).
 *
 * @param entry the breaker's part of the plan (its snapshot says the state before)
 * @param status what came of it
 * @param action what the audited override did; null unless {@link Status#APPLIED} or {@link
 *     Status#UNCHANGED}
 * @param failure why it failed, null unless {@link Status#FAILED}; also null for a wait a stop
 *     request interrupted ({@code error} is then "interrupted")
 * @param error the failure's message, null unless {@link Status#FAILED}
 */
public record OverrideStep(
    OverridePlan.Entry entry,
    Status status,
    OverrideAction action,
    StoreException failure,
    String error) {

  /** What came of one breaker. */
  public enum Status {
    /** The override script changed it (its audit record written or spooled). */
    APPLIED,
    /**
     * The script changed nothing: the same override, actor and reason already held, or no override
     * to clear. Nothing is audited.
     */
    UNCHANGED,
    /** Its change failed; whether it was applied is then unknown unless the failure says. */
    FAILED,
    /** Not reached: an earlier failure or a stop request ended the batch first. */
    NOT_ATTEMPTED
  }

  static OverrideStep done(OverridePlan.Entry entry, OverrideAction action) {
    return new OverrideStep(
        entry, action.result().changed() ? Status.APPLIED : Status.UNCHANGED, action, null, null);
  }

  static OverrideStep failed(OverridePlan.Entry entry, StoreException failure, String error) {
    return new OverrideStep(entry, Status.FAILED, null, failure, error);
  }

  static OverrideStep notAttempted(OverridePlan.Entry entry) {
    return new OverrideStep(entry, Status.NOT_ATTEMPTED, null, null, null);
  }
}
