package io.breakerctl.runtime.fallback;

/** How a captured snapshot gets approved, as the breaker's policy says. */
public enum SnapshotApproval {
  /** Approved when captured (recorded as approved by {@code auto}). */
  AUTOMATIC,
  /** Pending until an operator approves it. */
  OPERATOR
}
