package io.breakerctl.runtime.control.replay;

/** What a restore does, or did, to one breaker. Printed by name. */
public enum RestoreAction {
  /** Planned: the keys will be rebuilt from history (a dry run's answer). */
  RESTORE,
  /** The keys were rebuilt from history under a new epoch. */
  RESTORED,
  /** The keys hold the history's incarnation and are not behind it: nothing was lost. */
  INTACT,
  /** A restore from the same transition already ran. */
  ALREADY_RESTORED,
  /** The keys hold a transition at or after the history's newest: left alone, never set back. */
  MOVED_ON,
  /** History says CLOSED without a live override: fresh keys are the same state. */
  NOT_NEEDED,
  /** Redis refused or failed for this breaker (see the detail); the others proceeded. */
  FAILED
}
