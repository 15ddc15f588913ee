package io.breakerctl.runtime.control.policy;

import io.breakerctl.runtime.model.BreakerId;
import java.util.List;

/**
 * A breaker whose Redis keys or live nodes are out of step with the policy MongoDB holds in force
 * for it ({@link PolicyControl#drift}): the version in force not warmed (a Redis that lost its
 * data, a warm that failed), a policy warmed that MongoDB no longer holds in force (the reverse),
 * or live nodes running another version than the keys hold.
 *
 * @param breaker the breaker
 * @param inForce what MongoDB holds in force for it, {@code id@version}; "" for none (the nodes'
 *     defaults apply)
 * @param warmed what its Redis keys hold, {@code id@version}; "" for none
 * @param nodes the live nodes that report another policy version than the keys hold, each as {@code
 *     node=id@version} ({@code node=defaults} for a node on its registry's defaults)
 */
public record PolicyDrift(BreakerId breaker, String inForce, String warmed, List<String> nodes) {

  public PolicyDrift {
    nodes = List.copyOf(nodes);
  }

  /** Whether the keys hold another policy version than MongoDB holds in force. */
  public boolean notWarmed() {
    return !inForce.equals(warmed);
  }

  /** One line: what is out of step and what each side holds. */
  public String describe() {
    StringBuilder b = new StringBuilder(breaker.toString()).append(": ");
    if (notWarmed()) {
      b.append("MongoDB ")
          .append(inForce.isEmpty() ? "none in force" : inForce)
          .append(", Redis ")
          .append(warmed.isEmpty() ? "none warmed" : warmed);
    }
    if (!nodes.isEmpty()) {
      b.append(notWarmed() ? "; " : "")
          .append("nodes on another version: ")
          .append(String.join(", ", nodes));
    }
    return b.toString();
  }
}
