package io.breakerctl.runtime.control.audit;

/** A manual action that is audited. Stored by name. */
public enum AuditAction {
  /** An override was set or changed (force open/closed, disable, metrics only). */
  FORCE,
  /** An override was cleared. */
  CLEAR,
  /** A policy version was applied. */
  APPLY,
  /** A policy was rolled back to an older version's spec. */
  ROLLBACK,
  /** A policy was deleted (a tombstone version, {@code policy apply --prune}). */
  DELETE,
  /** A temporary policy expired and the version before it was recorded again. */
  REVERT,
  /** A breaker's state was restored from history or a snapshot. */
  RESTORE,
  /** A note was added to a breaker. */
  NOTE,
  /** A fallback snapshot was approved. */
  FALLBACK_APPROVAL,
  /** A fallback snapshot was revoked: it is never served again. */
  FALLBACK_REVOKE
}
