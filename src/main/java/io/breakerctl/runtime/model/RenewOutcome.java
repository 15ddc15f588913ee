package io.breakerctl.runtime.model;

/**
 * What a probe lease's renewal answered ({@code renew.lua}, {@code HalfOpenProbes#renew}). The wire
 * code is the constant's name and is stable.
 */
public enum RenewOutcome {
  /** The lease is live again for {@code probeLeaseSeconds} from now. */
  RENEWED,
  /**
   * The probe started {@code maxProbeSeconds} or more ago: it counts as failed and the breaker
   * reopened with backoff; the node holds no lease any more.
   */
  PROBE_TIMED_OUT,
  /**
   * The lease expired before the renewal: its slot may be another caller's, so the node holds no
   * lease (its probe's result will not count).
   */
  LEASE_EXPIRED,
  /** No such lease of this owner in this generation (a transition or a release ended it). */
  STALE_LEASE;

  /** Whether the caller still holds the lease afterwards. */
  public boolean held() {
    return this == RENEWED;
  }

  /** The stable code. */
  public String code() {
    return name();
  }

  /** Parses a wire code ({@link IllegalArgumentException} naming the valid ones). */
  public static RenewOutcome fromCode(String code) {
    return WireCodes.parse(RenewOutcome.class, "renew outcome", code);
  }
}
