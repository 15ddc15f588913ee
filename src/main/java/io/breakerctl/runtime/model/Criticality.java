package io.breakerctl.runtime.model;

/**
 * How critical a breaker's dependency is to the business, as its policy says: a low-cardinality tag
 * on the breaker's meters ({@code criticality}), so an alert can page for a critical dependency
 * only. The runtime does not act on it.
 */
public enum Criticality {
  /** Not rated (the default). */
  NONE,
  /** A dependency whose loss users hardly notice. */
  LOW,
  /** A dependency whose loss degrades a journey. */
  MEDIUM,
  /** A dependency whose loss breaks a journey. */
  HIGH,
  /** A dependency whose loss stops the business: page for it. */
  CRITICAL
}
