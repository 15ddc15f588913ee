package io.breakerctl.runtime.control.timeline;

/** What a timeline entry records. Stored and printed by name. */
public enum TimelineKind {
  /** A transition of a breaker (from MongoDB history or the not yet forwarded stream tail). */
  TRANSITION,
  /** A manual action from the audit trail that is not itself a transition (apply, restore...). */
  AUDIT,
  /** A new version of a policy that governs the breaker. */
  POLICY_VERSION,
  /** An operator's note on the breaker. */
  NOTE,
  /**
   * Events a breaker's stream lost before they were forwarded: dropped at its hard cap, or given up
   * when the history hold ended.
   */
  GAP
}
