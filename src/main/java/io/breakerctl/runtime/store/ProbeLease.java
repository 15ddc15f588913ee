package io.breakerctl.runtime.store;

/**
 * A live half-open probe lease.
 *
 * @param leaseId the id from the breaker's lease counter
 * @param owner the node holding it
 * @param expiresAtMillis Redis time when its slot returns
 */
public record ProbeLease(String leaseId, String owner, long expiresAtMillis) {}
