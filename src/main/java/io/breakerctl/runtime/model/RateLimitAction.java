package io.breakerctl.runtime.model;

/**
 * What a rate-limit answer (HTTP 429, {@code CallOutcome.RATE_LIMITED}) does to a breaker, as its
 * policy's {@code rateLimited} says. A rate limit says the dependency is up but wants less traffic,
 * so by default it is not a failure; a policy can make the fleet honour its {@code Retry-After}
 * instead, or count it.
 */
public enum RateLimitAction {
  /** Neither counted nor backing off (the default, as before back-off hints). */
  IGNORE,
  /**
   * Not counted; its back-off hint ({@code Retry-After}) opens the fleet's window for the hint,
   * capped by {@code maxOpenSeconds}. An answer without a hint is ignored.
   */
  BACKOFF,
  /** Counted as a failure, and its back-off hint, if any, backs the fleet off as a failure's. */
  COUNT
}
