package io.breakerctl.runtime.fallback;

import java.util.Optional;

/**
 * The answer to a fallback lookup: the payload only when it may be served.
 *
 * @param outcome why it is or is not served
 * @param payload the decrypted payload, present only for {@link Outcome#SERVED}
 * @param snapshot the snapshot's metadata, when one exists (and is well formed)
 * @param problem for {@link Outcome#MALFORMED}, what is wrong: the field, never its value
 */
public record SnapshotRead(
    Outcome outcome,
    Optional<byte[]> payload,
    Optional<FallbackSnapshot> snapshot,
    String problem) {

  /** An answer without a problem. */
  public SnapshotRead(
      Outcome outcome, Optional<byte[]> payload, Optional<FallbackSnapshot> snapshot) {
    this(outcome, payload, snapshot, "");
  }

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
    UNDECRYPTABLE,
    /**
     * The stored document is malformed: a field missing, of another type, or an unknown value (a
     * status {@code approved} in lower case); {@link SnapshotRead#problem()} names the field.
     */
    MALFORMED
  }
}
