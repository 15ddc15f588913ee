package io.breakerctl.runtime.store;

/** What restore.lua decided for one breaker. Wire codes are the names. */
public enum RestoreStatus {
  /** The keys now hold the history's state under a new epoch. */
  RESTORED,
  /** The keys hold the history's incarnation and are not behind it: nothing was lost. */
  INTACT,
  /** A restore from the same source transition already ran. */
  ALREADY_RESTORED,
  /** The keys hold a transition at or after the history's newest: never set back. */
  MOVED_ON
}
