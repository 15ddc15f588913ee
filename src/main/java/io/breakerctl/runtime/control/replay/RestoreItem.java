package io.breakerctl.runtime.control.replay;

import io.breakerctl.runtime.control.TransitionRef;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.WriteOutcome;
import java.util.Optional;

/**
 * One breaker of a restore plan or report.
 *
 * @param id the breaker
 * @param action what the restore does (plan) or did (report)
 * @param state the state in force after the restore, per history, at the plan's Redis time
 * @param stored the machine state restored
 * @param openUntilMillis the open window's end (Redis ms) when restored OPEN, else 0
 * @param override the live override restored
 * @param overrideRemainingMillis what is left of the override's expiry at the plan's time (0 for
 *     until cleared or none)
 * @param policyId the policy warmed (empty when none is in force)
 * @param policyVersion its version, 0 when none
 * @param source the newest transition in history the state comes from
 * @param epoch the keys' epoch afterwards (the new one when restored)
 * @param detail why a breaker was left alone or failed, else empty
 * @param readBack when the restore script's answer was lost (a timeout, a failed connection): what
 *     reading Redis back by the correlation id found (NOT_APPLIED also for a breaker not attempted
 *     after that); empty otherwise
 */
public record RestoreItem(
    BreakerId id,
    RestoreAction action,
    State state,
    State stored,
    long openUntilMillis,
    Optional<State> override,
    long overrideRemainingMillis,
    String policyId,
    long policyVersion,
    TransitionRef source,
    String epoch,
    String detail,
    Optional<WriteOutcome> readBack) {

  RestoreItem with(RestoreAction action, String epoch, String detail) {
    return with(action, epoch, detail, readBack);
  }

  RestoreItem with(
      RestoreAction action, String epoch, String detail, Optional<WriteOutcome> readBack) {
    return new RestoreItem(
        id,
        action,
        state,
        stored,
        openUntilMillis,
        override,
        overrideRemainingMillis,
        policyId,
        policyVersion,
        source,
        epoch,
        detail,
        readBack);
  }
}
