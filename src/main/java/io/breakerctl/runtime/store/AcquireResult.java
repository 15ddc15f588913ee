package io.breakerctl.runtime.store;

import io.breakerctl.runtime.model.AdmissionReason;
import io.breakerctl.runtime.model.State;
import java.util.Optional;

/**
 * The answer of the acquire script.
 *
 * @param allowed whether the call may run
 * @param state the effective state at the decision
 * @param reason CLOSED, FORCED_CLOSED, DISABLED, METRICS_ONLY, POLICY_DISABLED, PROBE (allowed),
 *     OPEN, FORCED_OPEN, PROBES_BUSY (rejected)
 * @param generation the breaker's generation; results report it back
 * @param leaseId the probe lease id when {@code reason} is PROBE, else empty
 * @param untilMillis Redis time when the lease expires (PROBE) or the rejection may end; 0 unknown
 * @param epoch the breaker's incarnation (empty when its keys do not exist)
 */
public record AcquireResult(
    boolean allowed,
    State state,
    AdmissionReason reason,
    String generation,
    String leaseId,
    long untilMillis,
    String epoch) {

  /** The probe lease, when this admission is a probe. */
  public Optional<String> lease() {
    return leaseId.isEmpty() ? Optional.empty() : Optional.of(leaseId);
  }
}
