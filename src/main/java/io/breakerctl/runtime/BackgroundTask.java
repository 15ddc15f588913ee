package io.breakerctl.runtime;

/**
 * The work a registry does off the callers' path, each counted when it fails ({@link
 * BreakerRegistry#backgroundFailures(BackgroundTask)}, the metric {@code
 * breakerctl.registry.background.failures} with tag {@code task}) and logged once when it starts
 * failing and once when it works again, never per attempt.
 */
public enum BackgroundTask {
  /** The periodic and message-driven read of a breaker's shared state. */
  REFRESH,
  /** The batched flush of successes with the node's per-breaker reports. */
  FLUSH,
  /** The node's liveness for the fleet view, once per heartbeat interval ({@code alive.lua}). */
  HEARTBEAT,
  /** Forwarding transition events to the control plane's history. */
  FORWARDING,
  /** Resolving a breaker's policy in the control plane and warming it. */
  POLICY_RESOLUTION,
  /** Subscribing (again) to the fleet's messages. */
  SUBSCRIPTION,
  /** A fleet message this node could not read (it is dropped; the refresh corrects the view). */
  MESSAGE
}
