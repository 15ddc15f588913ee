package io.breakerctl.runtime.store;

/**
 * How many replicas of a breaker's master acknowledged the writes this store's connection made to
 * that master ({@code RedisFleetStore.replicaAcks}): Redis's {@code WAIT} after the master's {@code
 * connected_slaves}.
 *
 * <p>A replica that is connected but stalled (SIGSTOP, loading, behind a partition) is counted in
 * {@code connected} and not in {@code acknowledged}; one whose link is broken is in neither (the
 * master no longer knows it). Either way an override on the master only can be lost in a failover.
 *
 * @param acknowledged replicas that acknowledged the writes within the wait, or -1 when unknown
 * @param connected replicas connected to the master when asked, or -1 when unknown
 * @param problem why it is unknown (the command refused, Redis unavailable), empty otherwise
 */
public record ReplicaAcks(int acknowledged, int connected, String problem) {

  /** Unknown, because of {@code problem}. */
  public static ReplicaAcks unknown(String problem) {
    return new ReplicaAcks(-1, -1, problem);
  }

  /** Whether the counts are known. */
  public boolean known() {
    return problem.isEmpty();
  }

  /**
   * Where the write is, in words: {@code on the master and 2/2 replicas}, {@code on the master only
   * (no replica connected)}, or {@code on the master; replicas unknown (PROBLEM)}.
   */
  public String describe() {
    if (!known()) {
      return "on the master; replicas unknown (" + problem + ")";
    }
    if (connected == 0) {
      return "on the master only (no replica connected)";
    }
    return "on the master and " + acknowledged + "/" + connected + " replicas";
  }
}
