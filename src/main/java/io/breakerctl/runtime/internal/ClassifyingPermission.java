package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.CallOutcome;
import io.breakerctl.runtime.Permission;
import io.breakerctl.runtime.model.BackoffHint;

/**
 * A {@link Permission} whose every report goes through {@link #onOutcome}: the typed reports are
 * classified by the breaker's {@link FailureClassifier} first, the untyped ones are not.
 */
interface ClassifyingPermission extends Permission {

  /** What {@code error} counts as for the breaker that granted this permission. */
  CallOutcome classify(Throwable error);

  /** What {@code result} counts as for the breaker that granted this permission. */
  <T> CallOutcome classifyResult(T result);

  /** The back-off hint {@code errorOrResult} carries for this breaker's classifier, or null. */
  BackoffHint hintOf(Object errorOrResult);

  @Override
  void onOutcome(CallOutcome outcome, long nanos, BackoffHint hint);

  @Override
  default void onOutcome(CallOutcome outcome, long nanos) {
    onOutcome(outcome, nanos, null);
  }

  @Override
  default void onSuccess(long nanos) {
    onOutcome(CallOutcome.SUCCESS, nanos);
  }

  @Override
  default void onFailure(Object throwableOrResult, long nanos) {
    onOutcome(CallOutcome.FAILURE, nanos);
  }

  @Override
  default <T> void onResult(T result, long nanos) {
    CallOutcome o = classifyResult(result);
    onOutcome(o, nanos, hinted(o) ? hintOf(result) : null);
  }

  @Override
  default void onError(Throwable error, long nanos) {
    CallOutcome o = classify(error);
    onOutcome(o, nanos, hinted(o) ? hintOf(error) : null);
  }

  /** Whether an outcome may carry a back-off hint (a success's is never looked for). */
  private static boolean hinted(CallOutcome o) {
    return o.failure() || o == CallOutcome.RATE_LIMITED;
  }

  @Override
  default void onIgnored() {
    onOutcome(CallOutcome.IGNORED, 0);
  }
}
