package io.breakerctl.sandbox;

import java.util.Optional;

/** What {@link Sandbox#down()} did. */
public record SandboxShutdown(Outcome outcome, Optional<SandboxState> state) {

  /** How the sandbox ended. */
  public enum Outcome {
    /** There was nothing to stop: no state file and no daemon. */
    NOT_RUNNING,
    /** The daemon stopped on SIGTERM within the bound: data was flushed cleanly. */
    STOPPED,
    /** The daemon ignored SIGTERM within the bound and was killed. */
    KILLED,
    /** The daemon was already gone (crashed); its leftovers were cleaned up. */
    CLEANED_UP
  }
}
