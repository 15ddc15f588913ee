package io.breakerctl.runtime.local;

/**
 * The warmed policy version a {@link LocalStateMachine} holds, as {@code warm.lua} keeps {@code
 * policyId} and {@code policyVersion}: monotonic per policy id, so an older or equal version of the
 * same policy never replaces the one held, while another policy id always does.
 *
 * <p>Not thread-safe: the owning machine guards it with its lock.
 */
final class WarmedVersion {
  private String policyId;
  private long version;

  /** Takes {@code policyId} at {@code version} unless that version or a newer one is held. */
  LocalWarmResult offer(String policyId, long version) {
    if (policyId.equals(this.policyId)) {
      if (this.version > version) {
        return new LocalWarmResult(false, "STALE", this.policyId, this.version);
      }
      if (this.version == version) {
        return new LocalWarmResult(false, "UNCHANGED", this.policyId, this.version);
      }
    }
    this.policyId = policyId;
    this.version = version;
    return new LocalWarmResult(true, "WARMED", policyId, version);
  }
}
