package io.breakerctl.runtime;

import io.breakerctl.runtime.model.AdmissionReason;
import io.breakerctl.runtime.model.BackoffHint;
import io.breakerctl.runtime.model.State;

/**
 * The answer to {@link CircuitBreaker#tryAcquire()}. When allowed, report the call's outcome once:
 * {@link #onResult} or {@link #onError} (the breaker's {@link FailureClassifier} decides what they
 * count as), {@link #onIgnored} for a call that must not count (cancelled), or the untyped {@link
 * #onSuccess} and {@link #onFailure}.
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

  /** Reports a successful call that took {@code nanos} (no classification). */
  void onSuccess(long nanos);

  /**
   * Reports a failed call that took {@code nanos}, whatever {@code throwableOrResult} is (no
   * classification).
   */
  void onFailure(Object throwableOrResult, long nanos);

  /** Reports a call that returned {@code result} after {@code nanos}; the classifier decides. */
  <T> void onResult(T result, long nanos);

  /** Reports a call that threw {@code error} after {@code nanos}; the classifier decides. */
  void onError(Throwable error, long nanos);

  /**
   * Reports a call whose outcome must not count (cancelled, abandoned by the caller, never run):
   * the breaker counts nothing, and a fleet probe lease it held goes back at once, so another call
   * may probe without waiting for the lease's expiry.
   */
  void onIgnored();

  /** Reports an outcome already classified ({@link CallOutcome#REJECTED} is not an outcome). */
  void onOutcome(CallOutcome outcome, long nanos);

  /**
   * Reports an outcome already classified that carries the dependency's back-off hint (null: none),
   * e.g. {@code BackoffHint.grpcPushback(trailer)} or {@code BackoffHint.of(wait, CALLER)}: with a
   * failure (or a {@link CallOutcome#RATE_LIMITED} answer the policy's {@code rateLimited} counts
   * or backs off on) the whole fleet's open window becomes {@code max(current end, now + hint)},
   * capped by {@code maxOpenSeconds}. {@link #onResult} and {@link #onError} find the hint
   * themselves ({@link FailureClassifier#backoffHint}). A bad value is refused where the hint is
   * made ({@link BackoffHint}'s factories throw {@link IllegalArgumentException} naming it), so
   * nothing is recorded for it.
   */
  default void onOutcome(CallOutcome outcome, long nanos, BackoffHint hint) {
    onOutcome(outcome, nanos);
  }

  /**
   * Whether the {@link CallNotPermittedException} for this rejection fills in its stack trace: a
   * rejection is an expected answer, so by default it does not (filling one walks the stack on the
   * caller's path); a registry built with {@code rejectionStackTraces(true)} says yes.
   */
  default boolean rejectionStackTrace() {
    return false;
  }
}
