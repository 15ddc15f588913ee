package io.breakerctl.runtime;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;

/**
 * Something a breaker reports to its listeners.
 *
 * @param breaker the breaker
 * @param type what happened
 * @param from the state before (transitions), else the state at the event
 * @param to the state after (transitions), else the state at the event
 * @param detail the cause of a transition (empty when this node cannot know it), the reason code of
 *     a rejection, the policy version adopted ({@code id@version}, or {@code node-defaults@0} when
 *     the policy it ran was removed), the storeFailureMode and the reason when degraded ({@code
 *     LOCAL_ONLY oom}: a {@link io.breakerctl.runtime.store.StoreFault} code), the state put back
 *     when re-asserted
 * @param atMillis local wall-clock time of the event; for DEGRADED, when the degradation began
 * @param cause for TRANSITION and REASSERTED: the fleet's transition cause (one of the transition
 *     table's), null when this node learned the new state without it (a state read, a script's
 *     answer to another command, the reconciliation); null for other types
 * @param source for TRANSITION: how this node learned it; null for other types
 */
public record CircuitEvent(
    BreakerId breaker,
    Type type,
    State from,
    State to,
    String detail,
    long atMillis,
    TransitionCause cause,
    Source source) {

  /** An event that is not a transition (no cause, no source). */
  public CircuitEvent(
      BreakerId breaker, Type type, State from, State to, String detail, long atMillis) {
    this(breaker, type, from, to, detail, atMillis, null, null);
  }

  /** How a node learned a transition. */
  public enum Source {
    /** A fleet message (pub/sub) from the script that made it. */
    PUSH,
    /** A read of the shared state (the periodic refresh, a first read). */
    READ,
    /** The script's answer to one of this node's own commands, made by another node. */
    ANSWER,
    /** This node's own outcome made the transition (it won it). */
    WON,
    /** The reconciliation after the store answered again. */
    RECONCILE,
    /**
     * This node's local machine decided: LOCAL mode, degraded with LOCAL_ONLY, or SHARED and HYBRID
     * when the node's own failures tripped it before the fleet's state said so (the fleet's trip
     * that follows is then no new transition for this node).
     */
    LOCAL
  }

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
    /**
     * A probe this node is running held its slot for {@code maxProbeSeconds}: it counts as failed
     * and the breaker reopened (the call itself may still be running).
     */
    PROBE_TIMED_OUT,
    /** This node kept the lease of a probe it is still running alive (one per renewal). */
    PROBE_RENEWED,
    /** Redis became unreachable: the node decides with its storeFailureMode. */
    DEGRADED,
    /** Redis is reachable again and the node has reconciled. */
    RECOVERED,
    /** The node adopted a new policy version (or its defaults: the policy it ran was removed). */
    POLICY_ADOPTED,
    /**
     * This node put back a trip or an override Redis had lost (a failover to a replica that missed
     * it, a flush); detail names what it put back.
     */
    REASSERTED
  }
}
