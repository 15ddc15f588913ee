package io.breakerctl.runtime.fallback;

/** Where a deferred request stands. Stored by name. */
public enum DeferredStatus {
  /** Waiting to be replayed once the dependency recovers. */
  PENDING,
  /** Replayed successfully; {@code result} holds the answer's summary. */
  DONE,
  /** Given up after its attempts; {@code result} holds the last error. */
  FAILED
}
