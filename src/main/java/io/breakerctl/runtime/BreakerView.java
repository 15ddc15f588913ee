package io.breakerctl.runtime;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;

/**
 * A read-only view of a breaker as this node sees it.
 *
 * @param id the breaker
 * @param mode its mode
 * @param state the state this node acts on now
 * @param sharedState the fleet's state from the last shared view (LOCAL: the local state)
 * @param generation the generation of the shared (or local) machine
 * @param policy the policy in force on this node
 * @param policyId the policy id it came from (empty: the registry's defaults)
 * @param policyVersion its version (0: not a control-plane version)
 * @param degraded whether the Redis master holding the breaker does not answer (or refuses the
 *     work) and the node decides alone
 * @param pendingSuccesses successes not yet flushed to Redis
 * @param windowFailures failures in the failure window the breaker trips on, as of the last outcome
 *     counted in it: the fleet's window as Redis last answered an outcome this node sent (SHARED,
 *     HYBRID), or this node's own machine (LOCAL, while degraded, or before Redis answered one)
 * @param windowCalls calls in that window likewise
 */
public record BreakerView(
    BreakerId id,
    Mode mode,
    State state,
    State sharedState,
    String generation,
    Policy policy,
    String policyId,
    long policyVersion,
    boolean degraded,
    long pendingSuccesses,
    long windowFailures,
    long windowCalls) {

  /**
   * The failure rate of the window in percent ({@code 100 * windowFailures / windowCalls}), as the
   * policy's {@code failureRateThreshold} reads it; 0 while the window holds no call.
   */
  public double failureRate() {
    return windowCalls <= 0 ? 0 : 100.0 * windowFailures / windowCalls;
  }
}
