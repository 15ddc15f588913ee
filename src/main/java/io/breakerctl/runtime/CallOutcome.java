package io.breakerctl.runtime;

/**
 * What a call came to, as the breaker counts it. A {@link FailureClassifier} turns an exception or
 * a result into one of {@link #SUCCESS}, {@link #FAILURE}, {@link #TIMEOUT}, {@link #IGNORED} or
 * {@link #RATE_LIMITED}; the breaker reports {@link #SLOW} for a success or failure at least the
 * policy's {@code slowCallMillis} long, and {@link #REJECTED} for a call it did not permit. The
 * wire code is the {@code outcome} tag of the metrics.
 */
public enum CallOutcome {
  /** The dependency answered; counts as a success. */
  SUCCESS("success"),
  /** An error or a failing result (5xx-style, connection failure); counts as a failure. */
  FAILURE("failure"),
  /** The call timed out or passed its deadline; counts as a failure. */
  TIMEOUT("timeout"),
  /** A call at least {@code slowCallMillis} long; counts as a failure. */
  SLOW("slow"),
  /** Neither success nor failure (a caller error, 4xx-style; a cancelled call). */
  IGNORED("ignored"),
  /**
   * The dependency asked the caller to slow down (429-style): not a failure of the dependency, not
   * counted; the retry policy sees it with its {@code Retry-After}.
   */
  RATE_LIMITED("rate_limited"),
  /** The breaker did not permit the call. */
  REJECTED("rejected");

  private final String code;

  CallOutcome(String code) {
    this.code = code;
  }

  /** The wire code (metrics tag value). */
  public String code() {
    return code;
  }

  /** Whether the breaker counts this outcome as a failure. */
  public boolean failure() {
    return this == FAILURE || this == TIMEOUT || this == SLOW;
  }

  /** Whether the breaker counts this outcome at all (a success or a failure). */
  public boolean counted() {
    return this == SUCCESS || failure();
  }
}
