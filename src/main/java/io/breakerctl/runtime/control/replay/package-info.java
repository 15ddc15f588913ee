/**
 * Replaying and restoring history. {@link io.breakerctl.runtime.control.replay.Replay} folds the
 * transitions of the timeline ({@link io.breakerctl.runtime.control.replay.BreakerFold}) into the
 * states in force at an instant and the fleet's frames over a range; {@link
 * io.breakerctl.runtime.control.replay.BreakerRestore} rebuilds the Redis keys a Redis lost from
 * that history and the policies in force, planned first ({@link
 * io.breakerctl.runtime.control.replay.RestorePlan}, the dry run) and audited as {@code RESTORE}. A
 * restore goes only into the deployment the history came from (see {@code history}).
 */
package io.breakerctl.runtime.control.replay;
