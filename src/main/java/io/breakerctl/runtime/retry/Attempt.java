package io.breakerctl.runtime.retry;

/**
 * What one attempt of a call knows about itself.
 *
 * @param number 1 for the first attempt, 2 for the first retry, ...
 * @param idempotencyKey the same for every attempt of one call (send it to the dependency so a
 *     retried write is applied once)
 * @param deadline the caller's deadline for the whole call
 */
public record Attempt(int number, String idempotencyKey, Deadline deadline) {

  /** Whether this attempt is a retry. */
  public boolean retry() {
    return number > 1;
  }
}
