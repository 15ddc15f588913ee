package io.breakerctl.runtime.fallback;

/** The review state of a fallback snapshot. Stored by name. */
public enum SnapshotStatus {
  /** Captured, waiting for an operator's approval; not served. */
  PENDING,
  /** Approved (automatically or by an operator); served until it expires. */
  APPROVED,
  /** Revoked by an operator; never served. */
  REVOKED
}
