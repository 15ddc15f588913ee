package io.breakerctl.runtime.store;

/**
 * Whether a write whose answer was lost (a timeout, a connection that failed) landed, as a
 * read-back over a fresh connection found it ({@link StoreFutures#await}).
 */
public enum WriteOutcome {
  /** Redis holds the change: its event (or the override in the hash) carries the correlation id. */
  APPLIED,
  /**
   * Nothing was written: the write's connection is closed and Redis, answering after that, holds
   * nothing carrying the correlation id (a write on a closed connection can no longer run).
   */
  NOT_APPLIED,
  /** Redis did not answer the read-back in time: the change may or may not have landed. */
  UNKNOWN
}
