package io.breakerctl.runtime;

import io.breakerctl.runtime.model.FallbackPolicy;
import io.breakerctl.runtime.model.State;

/**
 * Receives what happens to one breaker's calls, cheaply: every method takes primitives or enums and
 * is called on the caller's thread, so an implementation must not block (a metrics binder
 * increments pre-resolved counters). Register with {@link CircuitBreaker#observe(CallObserver)}.
 * The breaker reports outcomes and rejections; the retry and fallback helpers report through the
 * breaker's {@link CircuitBreaker#observer()}.
 */
public interface CallObserver {

  /** An observer that does nothing. */
  CallObserver NONE = new CallObserver() {};

  /** A permitted call reported its outcome after {@code nanos}. */
  default void outcome(CallOutcome outcome, long nanos) {}

  /** The breaker rejected a call in {@code state} for {@code reason}. */
  default void rejected(State state, String reason) {}

  /**
   * A half-open acquire timed out at the store and the call was refused without a probe lease
   * ({@code NO_LEASE}, reported to {@link #rejected} too): lease contention, as a refusal because
   * every probe permit is taken ({@code PROBES_BUSY}) is.
   */
  default void leaseAcquireTimedOut() {}

  /** A retry policy started attempt {@code attempt} (2 for the first retry). */
  default void retried(int attempt) {}

  /** A retry was not made because the retry budget was spent. */
  default void retryBudgetExhausted() {}

  /**
   * A fallback of {@code kind} answered a call; {@code ageMillis} is the age of the cached data it
   * served ({@link FallbackPolicy#CACHED}), else -1.
   */
  default void fallback(FallbackPolicy kind, long ageMillis) {}

  /**
   * The fallback of {@code kind} the policy names could not serve (a static default not registered,
   * no servable snapshot, a request not stored): the call got a controlled failure.
   */
  default void fallbackUnavailable(FallbackPolicy kind) {}

  /**
   * As {@link #fallbackUnavailable(FallbackPolicy)}, with why: a fixed code ({@code not_found},
   * {@code malformed}, {@code control_unavailable}, ...). By default reports the kind alone.
   */
  default void fallbackUnavailable(FallbackPolicy kind, String reason) {
    fallbackUnavailable(kind);
  }

  /** A call through a fallback chain answered; {@code degraded} when a fallback answered it. */
  default void response(boolean degraded) {}

  /** A deferred request no replay can read was quarantined (FAILED with the reason). */
  default void deferredQuarantined() {}

  /** A deferred request was stored. */
  default void deferredStored() {}

  /** A deferred request finished on this node ({@code done}: its work succeeded). */
  default void deferredFinished(boolean done) {}

  /**
   * When the breaker's newest approved, unexpired snapshot was captured (epoch milliseconds), -1
   * when it has none, as last read in the background (every few seconds; never on a call's path).
   */
  default void newestApprovedSnapshot(long capturedAtMillis) {}

  /**
   * Deferred requests of this breaker still pending in the control plane, fleet-wide, as last
   * counted (in the background, every few seconds; never on a call's path).
   */
  default void deferredPending(long count) {}
}
