package io.breakerctl.runtime.model;

/**
 * Why a call was admitted or rejected. The first nine are what {@code acquire.lua} (and {@code
 * LocalStateMachine}, its Java twin) answers; the rest are decided by a node without the script.
 * The wire code is the constant's name and is stable.
 */
public enum AdmissionReason {
  /** Admitted: the breaker is closed. */
  CLOSED(true, true),
  /** Admitted: an operator forced it closed. */
  FORCED_CLOSED(true, true),
  /** Admitted: an operator disabled the breaker (totals only). */
  DISABLED(true, true),
  /** Admitted: an operator set metrics-only (counted, never rejects). */
  METRICS_ONLY(true, true),
  /** Admitted: the policy is disabled ({@code enabled: false}). */
  POLICY_DISABLED(true, true),
  /** Admitted as a half-open probe under a lease. */
  PROBE(true, true),
  /** Rejected: the breaker is open. */
  OPEN(false, true),
  /** Rejected: an operator forced it open. */
  FORCED_OPEN(false, true),
  /** Rejected: half-open and every probe permit is taken. */
  PROBES_BUSY(false, true),
  /** Rejected: half-open and no lease could be had from the store (no lease, no probe). */
  NO_LEASE(false, false),
  /** Rejected: half-open while the breaker's registered health check runs the probe. */
  PROBE_PENDING(false, false),
  /**
   * Rejected: this node's own failures tripped its local machine while the fleet's state is still
   * CLOSED: the failures are on their way to Redis (or Redis cannot take them), and the node never
   * does worse than a per-process breaker meanwhile.
   */
  LOCAL_TRIP(false, false),
  /** Admitted: the store is unreachable and the policy's storeFailureMode is ALLOW_ALL. */
  DEGRADED_ALLOW(true, false),
  /** Admitted: the store is unreachable and the last shared view (LAST_KNOWN) was closed. */
  LAST_KNOWN(true, false);

  private final boolean admits;
  private final boolean script;

  AdmissionReason(boolean admits, boolean script) {
    this.admits = admits;
    this.script = script;
  }

  /** The stable code the scripts return and machine output carries. */
  public String code() {
    return name();
  }

  /** Whether a call with this reason runs. */
  public boolean admits() {
    return admits;
  }

  /** Whether {@code acquire.lua} answers it (else only a node decides it). */
  public boolean fromScript() {
    return script;
  }

  /** The reason a state admits or rejects with when nothing more specific applies. */
  public static AdmissionReason of(State s) {
    return switch (s) {
      case CLOSED -> CLOSED;
      case FORCED_CLOSED -> FORCED_CLOSED;
      case DISABLED -> DISABLED;
      case METRICS_ONLY -> METRICS_ONLY;
      case OPEN -> OPEN;
      case FORCED_OPEN -> FORCED_OPEN;
      case HALF_OPEN -> PROBES_BUSY;
    };
  }

  /**
   * Parses a wire code.
   *
   * @throws IllegalArgumentException naming the valid codes
   */
  public static AdmissionReason fromCode(String code) {
    return WireCodes.parse(AdmissionReason.class, "admission reason", code);
  }
}
