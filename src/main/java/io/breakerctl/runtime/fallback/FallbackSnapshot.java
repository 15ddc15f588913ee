package io.breakerctl.runtime.fallback;

import io.breakerctl.runtime.model.BreakerId;
import java.time.Instant;

/**
 * A last-known-good value for one breaker and business key (metadata; the payload is read through
 * the control plane's {@code FallbackSnapshots.serve}).
 *
 * @param breakerId the breaker
 * @param keyHash the salted SHA-256 of the business key (the key itself is never stored)
 * @param source where the value came from (e.g. the service and call that produced it)
 * @param capturedAt when it was captured
 * @param approvedBy who approved it ({@code auto} when the policy approves automatically), empty
 *     while pending
 * @param expiresAt when it stops being served
 * @param status pending, approved or revoked
 * @param keyId the id of the key its payload is encrypted under (empty when stored unencrypted)
 * @param candidate when a fresh capture waits for an operator's approval beside this snapshot, when
 *     it was captured ({@code fallback approve} puts it in this one's place)
 */
public record FallbackSnapshot(
    BreakerId breakerId,
    String keyHash,
    String source,
    Instant capturedAt,
    String approvedBy,
    Instant expiresAt,
    SnapshotStatus status,
    String keyId,
    java.util.Optional<Instant> candidate) {}
