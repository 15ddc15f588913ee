package io.breakerctl.runtime.redis;

/**
 * A live half-open probe lease.
 *
 * @param leaseId the id from the breaker's lease counter
 * @param owner the node holding it
 * @param expiresAtMillis Redis time when its slot returns
 */
public record ProbeLease(String leaseId, String owner, long expiresAtMillis) {

  static ProbeLease parse(String member, double score) {
    int bar = member.indexOf('|');
    return new ProbeLease(
        bar < 0 ? member : member.substring(0, bar),
        bar < 0 ? "" : member.substring(bar + 1),
        (long) score);
  }
}
