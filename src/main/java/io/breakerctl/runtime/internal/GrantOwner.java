package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.CallObserver;
import io.breakerctl.runtime.FailureClassifier;
import io.breakerctl.runtime.model.BackoffHint;
import io.breakerctl.runtime.model.RateLimitAction;

/**
 * What a {@link BreakerGrant} reports to once its call ends: the breaker that granted it. An
 * interface below the breaker, so the parts that make grants need not name the breaker.
 */
interface GrantOwner {

  /** How the breaker classifies an outcome. */
  FailureClassifier classifier();

  /** The observer of the breaker's calls. */
  CallObserver observer();

  /**
   * A granted call ended ({@code failure} as classified) after {@code nanos}, a failure carrying
   * the dependency's back-off {@code hint} (null: none).
   */
  void complete(BreakerGrant g, boolean failure, long nanos, BackoffHint hint);

  /**
   * A granted call's rate-limit answer backs the fleet off by {@code hint}, counted neither way.
   */
  void backoff(BreakerGrant g, BackoffHint hint);

  /**
   * The back-off hint {@code errorOrResult} carries ({@link FailureClassifier#backoffHint}), or
   * null.
   */
  BackoffHint hintOf(Object errorOrResult);

  /** What a rate-limit answer does under the policy in force. */
  RateLimitAction rateLimited();

  /** Gives a shared probe lease back unused. */
  void release(String lease);

  /** Whether a call of {@code millis} counts as slow under the policy in force. */
  boolean isSlow(long millis);

  /** Whether the breaker's rejections fill in their stack traces (the registry's setting). */
  boolean rejectionStackTraces();
}
