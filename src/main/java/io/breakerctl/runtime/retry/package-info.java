/**
 * Deadlines and retries coordinated with a breaker: {@link io.breakerctl.runtime.retry.Retry} runs
 * a call under a {@link io.breakerctl.runtime.retry.RetryPolicy} within the caller's {@link
 * io.breakerctl.runtime.retry.Deadline}; each attempt asks the breaker, is counted, and sees its
 * {@link io.breakerctl.runtime.retry.Attempt} (number, idempotency key). The retry budget ({@link
 * io.breakerctl.runtime.retry.RetryBudget}) is local to the node: a fleet of N nodes sends at most
 * {@code (1 + budgetRatio)} times its first attempts ({@code RetryIT}); while the node is degraded,
 * only the first attempts made since the degradation began earn retries.
 */
package io.breakerctl.runtime.retry;
