package io.breakerctl.runtime.store;

import io.breakerctl.runtime.model.BackoffHint;

/**
 * Outcomes a node reports to the record script.
 *
 * @param node the reporting node
 * @param failures failed calls
 * @param successes successful calls (a node flushes them in batches)
 * @param durationMillis duration of the single call reported, or -1 (batches); used for {@code
 *     slowCallMillis}
 * @param generation the generation the call was admitted in; empty when unknown
 * @param leaseId the probe lease the call ran under; empty when not a probe
 * @param hint the dependency's back-off hint the outcome carries, null for none: the record script
 *     sets the shared open window to {@code max(current end, now + min(hint, maxOpenSeconds))}
 */
public record Outcome(
    String node,
    long failures,
    long successes,
    long durationMillis,
    String generation,
    String leaseId,
    BackoffHint hint) {

  /** An outcome without a back-off hint. */
  public Outcome(
      String node,
      long failures,
      long successes,
      long durationMillis,
      String generation,
      String leaseId) {
    this(node, failures, successes, durationMillis, generation, leaseId, null);
  }

  /** Validates the outcome. */
  public Outcome {
    if (node == null || node.isBlank()) {
      throw new IllegalArgumentException("node must not be empty");
    }
    if (failures < 0 || successes < 0) {
      throw new IllegalArgumentException(
          "failures and successes must be >= 0 but were " + failures + " and " + successes);
    }
    if (durationMillis < -1) {
      throw new IllegalArgumentException(
          "durationMillis must be >= 0, or -1 for none, but was " + durationMillis);
    }
    generation = generation == null ? "" : generation;
    leaseId = leaseId == null ? "" : leaseId;
  }

  /** One failed call admitted in {@code generation} (empty if unknown). */
  public static Outcome failure(String node, String generation) {
    return new Outcome(node, 1, 0, -1, generation, "");
  }

  /** One successful call that took {@code durationMillis}. */
  public static Outcome success(String node, String generation, long durationMillis) {
    return new Outcome(node, 0, 1, durationMillis, generation, "");
  }

  /** This outcome carrying {@code h} (null: none). */
  public Outcome withHint(BackoffHint h) {
    return new Outcome(node, failures, successes, durationMillis, generation, leaseId, h);
  }

  /**
   * A back-off hint alone, no outcome counted (a rate-limit answer the policy does not count):
   * under {@code leaseId} (empty: none) the probe's lease is given back as well.
   */
  public static Outcome backoff(String node, String generation, String leaseId, BackoffHint h) {
    if (h == null) {
      throw new IllegalArgumentException("a back-off outcome needs its hint");
    }
    return new Outcome(node, 0, 0, -1, generation, leaseId, h);
  }

  /** A batch of successes. */
  public static Outcome successes(String node, long count) {
    return new Outcome(node, 0, count, -1, "", "");
  }

  /** The result of a probe run under {@code leaseId}. */
  public static Outcome probe(String node, String generation, String leaseId, boolean success) {
    return new Outcome(node, success ? 0 : 1, success ? 1 : 0, -1, generation, leaseId);
  }

  /**
   * Gives the lease {@code leaseId} back unused (no outcome): the record script removes it in any
   * state (RELEASED), so another caller may probe at once instead of after the lease's expiry.
   */
  public static Outcome release(String node, String leaseId) {
    if (leaseId == null || leaseId.isEmpty()) {
      throw new IllegalArgumentException("a release needs the lease's id");
    }
    return new Outcome(node, 0, 0, -1, "", leaseId);
  }
}
