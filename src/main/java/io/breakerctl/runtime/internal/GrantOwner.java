package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.CallObserver;
import io.breakerctl.runtime.FailureClassifier;

/**
 * What a {@link BreakerGrant} reports to once its call ends: the breaker that granted it. An
 * interface below the breaker, so the parts that make grants need not name the breaker.
 */
interface GrantOwner {

  /** How the breaker classifies an outcome. */
  FailureClassifier classifier();

  /** The observer of the breaker's calls. */
  CallObserver observer();

  /** A granted call ended ({@code failure} as classified) after {@code nanos}. */
  void complete(BreakerGrant g, boolean failure, long nanos);

  /** Gives a shared probe lease back unused. */
  void release(String lease);

  /** Whether a call of {@code millis} counts as slow under the policy in force. */
  boolean isSlow(long millis);

  /** Whether the breaker's rejections fill in their stack traces (the registry's setting). */
  boolean rejectionStackTraces();
}
