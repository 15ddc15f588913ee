package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.model.AdmissionReason;
import io.breakerctl.runtime.model.State;
import java.util.List;
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

  static AcquireResult of(List<Object> r) {
    if (r.size() == 3) {
      // the closed fast path: {1, generation, epoch}
      return new AcquireResult(
          true, State.CLOSED, AdmissionReason.CLOSED, Replies.str(r, 1), "", 0, Replies.str(r, 2));
    }
    return new AcquireResult(
        Replies.flag(r, 0),
        State.fromCode(Replies.str(r, 1)),
        AdmissionReason.fromCode(Replies.str(r, 2)),
        Replies.str(r, 3),
        Replies.str(r, 4),
        Replies.num(r, 5),
        Replies.str(r, 6));
  }

  /** The lean form's answer for a breaker that is not closed: send the full form. */
  static boolean isLeanRefusal(List<Object> r) {
    return r.size() == 1 && Replies.num(r, 0) == -1;
  }

  /** The probe lease, when this admission is a probe. */
  public Optional<String> lease() {
    return leaseId.isEmpty() ? Optional.empty() : Optional.of(leaseId);
  }
}
