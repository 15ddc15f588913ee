package io.breakerctl.runtime.model;

/** Why a transition happened; stored by name in every event. */
public enum TransitionCause {
  /** The sliding window reached {@code failureThreshold} failures. */
  FAILURE_THRESHOLD,
  /** The failure rate reached {@code failureRateThreshold} with at least {@code minimumCalls}. */
  FAILURE_RATE,
  /** The open window ended; probes may run. */
  OPEN_WINDOW_ENDED,
  /** {@code halfOpenPermits} probes succeeded. */
  PROBES_SUCCEEDED,
  /** A probe failed; the open window is doubled up to {@code maxOpenSeconds}. */
  PROBE_FAILED,
  /**
   * A probe held its slot for {@code maxProbeSeconds} without a result (a dependency that hangs):
   * it counts as failed, and the open window is doubled up to {@code maxOpenSeconds} as for {@link
   * #PROBE_FAILED}.
   */
  PROBE_TIMED_OUT,
  /**
   * A dependency asked for a back-off ({@link BackoffHint}: Retry-After, gRPC pushback, a caller's
   * value): the open window becomes {@code max(current end, now + hint)}, the hint capped by {@code
   * maxOpenSeconds}. From CLOSED or HALF_OPEN it opens; from OPEN it only lengthens the window.
   */
  BACKOFF_REQUESTED,
  /** An operator set an override. */
  OVERRIDE_SET,
  /** An operator changed the reason, actor or expiry of the live override. */
  OVERRIDE_UPDATED,
  /** An operator cleared the override. */
  OVERRIDE_CLEARED,
  /** The override's expiry passed. */
  OVERRIDE_EXPIRED,
  /**
   * A node put back a trip or an override that Redis had lost (a failover to a replica that missed
   * the write, a flush): CLOSED to OPEN, or a machine state to the override.
   */
  REASSERTED,
  /**
   * The breaker's keys were rebuilt from the control plane's history after Redis lost them (a new
   * epoch); from and to may be any states.
   */
  RESTORED;

  /** Whether {@code name} is a cause's stored name (false for null). */
  public static boolean isName(String name) {
    if (name == null) {
      return false;
    }
    for (TransitionCause c : values()) {
      if (c.name().equals(name)) {
        return true;
      }
    }
    return false;
  }
}
