package io.breakerctl.sandbox;

import java.nio.file.Path;
import java.util.Optional;

/**
 * What {@link Sandbox#status()} found: the state file (if any) and whether its processes are alive
 * and its ports answer.
 */
public record SandboxStatus(
    Path dir,
    Optional<SandboxState> state,
    boolean daemonAlive,
    boolean redisAlive,
    boolean redisAnswers,
    boolean mongoAnswers) {

  /** Both servers answer and both processes are alive. */
  public boolean running() {
    return state.isPresent() && daemonAlive && redisAlive && redisAnswers && mongoAnswers;
  }

  /** A state file exists but part of the sandbox is gone (e.g. the daemon was killed). */
  public boolean degraded() {
    return state.isPresent() && !running();
  }

  /** One line for a human: "running", "not running" or what is broken. */
  public String summary() {
    if (state.isEmpty()) {
      return "not running";
    }
    if (running()) {
      return "running";
    }
    StringBuilder b = new StringBuilder("broken:");
    if (!daemonAlive) {
      b.append(" daemon gone;");
    }
    if (!redisAlive) {
      b.append(" redis-server gone;");
    } else if (!redisAnswers) {
      b.append(" redis-server not answering;");
    }
    if (!mongoAnswers) {
      b.append(" mongodb not answering;");
    }
    b.append(" run `breakerctl sandbox down` then `breakerctl sandbox up`");
    return b.toString();
  }
}
