package io.breakerctl.runtime;

/**
 * What a node's Redis connection has cost and how often it failed, since the registry started: the
 * source of the registry-level meters ({@code BreakerRegistryMetrics}). Cumulative counts, read
 * without locking.
 *
 * @param commands Redis commands timed (the acquire scripts calls waited on, the record scripts
 *     sent for failures, slow calls and probes)
 * @param commandNanos their total round-trip time
 * @param failures commands that failed or timed out
 * @param degradedNanos total time the node was degraded (Redis unreachable), the current
 *     degradation included
 * @param degraded whether the node is degraded now
 */
public record StoreStats(
    long commands, long commandNanos, long failures, long degradedNanos, boolean degraded) {

  /** A registry that never uses Redis (LOCAL mode). */
  public static final StoreStats NONE = new StoreStats(0, 0, 0, 0, false);
}
