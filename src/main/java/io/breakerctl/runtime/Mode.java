package io.breakerctl.runtime;

/** Where a breaker's decisions are made. */
public enum Mode {
  /** Per process: the local state machine only (also the fallback when Redis is unreachable). */
  LOCAL,
  /**
   * Every call runs the acquire script (the simple design: Redis decides every admission); failures
   * and probe results go to the record script at once, successes in batches as in HYBRID.
   */
  SHARED,
  /**
   * Default: admission from a local view of the shared state, kept fresh by pub/sub and a periodic
   * refresh; failures recorded in Redis off the caller's path, successes flushed in batches,
   * half-open probe leases from Redis.
   */
  HYBRID
}
