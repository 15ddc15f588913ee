package io.breakerctl.runtime.fallback;

import io.breakerctl.runtime.model.BreakerId;
import java.time.Instant;

/**
 * A request queued while its breaker rejected calls, to be replayed after recovery.
 *
 * @param trackingId the id the caller was given
 * @param breakerId the breaker
 * @param payload the request, decrypted
 * @param status where it stands
 * @param attempts replay attempts so far
 * @param result the last attempt's result or error, empty before any
 * @param createdAt when it was deferred
 */
public record DeferredRequest(
    String trackingId,
    BreakerId breakerId,
    byte[] payload,
    DeferredStatus status,
    int attempts,
    String result,
    Instant createdAt) {}
