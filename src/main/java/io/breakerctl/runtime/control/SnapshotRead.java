package io.breakerctl.runtime.control;

import java.util.Optional;

/**
 * The answer to a fallback lookup: the payload only when it may be served.
 *
 * @param outcome why it is or is not served
 * @param payload the decrypted payload, present only for {@link Outcome#SERVED}
 * @param snapshot the snapshot's metadata, when one exists
 */
public record SnapshotRead(
    Outcome outcome, Optional<byte[]> payload, Optional<FallbackSnapshot> snapshot) {

  /** Why a lookup served or did not serve a snapshot. */
  public enum Outcome {
    /** Approved, not expired, decrypted. */
    SERVED,
    /** No snapshot for this breaker and business key. */
    NOT_FOUND,
    /** Waiting for approval. */
    PENDING,
    /** Revoked by an operator. */
    REVOKED,
    /** Its expiry passed. */
    EXPIRED,
    /** Its payload does not decrypt (altered, or its key id is no longer configured). */
    UNDECRYPTABLE
  }
}
