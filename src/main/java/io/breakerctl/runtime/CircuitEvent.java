package io.breakerctl.runtime;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;

/**
 * Something a breaker reports to its listeners.
 *
 * @param breaker the breaker
 * @param type what happened
 * @param from the state before (transitions), else the state at the event
 * @param to the state after (transitions), else the state at the event
 * @param detail the cause of a transition, the reason of a rejection, the policy version adopted
 * @param atMillis local wall-clock time of the event
 */
public record CircuitEvent(
    BreakerId breaker, Type type, State from, State to, String detail, long atMillis) {

  /** Event types. */
  public enum Type {
    /** The breaker's state changed (seen by this node: won here or learned from the fleet). */
    TRANSITION,
    /** A call was rejected. */
    REJECTED,
    /** A probe this node ran succeeded. */
    PROBE_SUCCEEDED,
    /** A probe this node ran failed. */
    PROBE_FAILED,
    /** Redis became unreachable: the node decides with its storeFailureMode. */
    DEGRADED,
    /** Redis is reachable again and the node has reconciled. */
    RECOVERED,
    /** The node adopted a new policy version. */
    POLICY_ADOPTED,
    /**
     * This node put back a trip or an override Redis had lost (a failover to a replica that missed
     * it, a flush); detail names what it put back.
     */
    REASSERTED
  }
}
