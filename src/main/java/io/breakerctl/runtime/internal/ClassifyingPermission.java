package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.CallOutcome;
import io.breakerctl.runtime.Permission;

/**
 * A {@link Permission} whose every report goes through {@link #onOutcome}: the typed reports are
 * classified by the breaker's {@link FailureClassifier} first, the untyped ones are not.
 */
interface ClassifyingPermission extends Permission {

  /** What {@code error} counts as for the breaker that granted this permission. */
  CallOutcome classify(Throwable error);

  /** What {@code result} counts as for the breaker that granted this permission. */
  <T> CallOutcome classifyResult(T result);

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
    onOutcome(classifyResult(result), nanos);
  }

  @Override
  default void onError(Throwable error, long nanos) {
    onOutcome(classify(error), nanos);
  }

  @Override
  default void onIgnored() {
    onOutcome(CallOutcome.IGNORED, 0);
  }
}
