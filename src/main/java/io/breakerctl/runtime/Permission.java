package io.breakerctl.runtime;

import io.breakerctl.runtime.model.AdmissionReason;
import io.breakerctl.runtime.model.State;

/**
 * The answer to {@link CircuitBreaker#tryAcquire()}. When allowed, report the call's outcome once
 * with {@link #onSuccess} or {@link #onFailure}.
 */
public interface Permission {

  /** Whether the call may run. */
  boolean allowed();

  /** The breaker's state at the decision. */
  State state();

  /** Why the call was admitted or rejected. */
  AdmissionReason reason();

  /** The probe lease id when this call is a half-open probe, else empty. */
  String lease();

  /** Reports a successful call that took {@code nanos}. */
  void onSuccess(long nanos);

  /** Reports a failed call (an exception, or a result the caller classifies as a failure). */
  void onFailure(Object throwableOrResult, long nanos);
}
