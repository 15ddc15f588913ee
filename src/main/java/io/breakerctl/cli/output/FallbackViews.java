package io.breakerctl.cli.output;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.breakerctl.runtime.control.fallback.FallbackCatalog.DeferredSummary;
import io.breakerctl.runtime.fallback.FallbackSnapshot;
import java.time.Instant;

/** The machine views of the fallback commands: metadata only, never a payload unasked. */
public final class FallbackViews {
  private FallbackViews() {}

  /**
   * A snapshot ({@code kind: SnapshotList} items, {@code kind: Snapshot}).
   *
   * @param breakerId the breaker
   * @param keyHash the salted hash of the business key
   * @param source where the value came from
   * @param capturedAt when (RFC 3339 UTC)
   * @param expiresAt when it stops being served
   * @param expired whether that time has passed
   * @param status PENDING, APPROVED or REVOKED
   * @param approvedBy the approver ({@code auto}), empty while pending
   * @param keyId the payload's encryption key id, empty when stored unencrypted
   * @param candidateCapturedAt when a fresh capture waiting for approval beside this snapshot (the
   *     pending candidate {@code fallback approve} puts in its place) was captured (RFC 3339 UTC);
   *     empty when there is none
   * @param payload only for {@code show --payload}: the payload as UTF-8 text
   */
  @JsonPropertyOrder({
    "breakerId",
    "keyHash",
    "source",
    "capturedAt",
    "expiresAt",
    "expired",
    "status",
    "approvedBy",
    "keyId",
    "candidateCapturedAt",
    "payload"
  })
  public record SnapshotView(
      String breakerId,
      String keyHash,
      String source,
      String capturedAt,
      String expiresAt,
      boolean expired,
      String status,
      String approvedBy,
      String keyId,
      String candidateCapturedAt,
      @JsonInclude(JsonInclude.Include.NON_NULL) String payload) {}

  /** A deferred request, without its payload ({@code kind: DeferredRequestList} items). */
  @JsonPropertyOrder({"trackingId", "breakerId", "status", "attempts", "result", "createdAt"})
  public record DeferredView(
      String trackingId,
      String breakerId,
      String status,
      int attempts,
      String result,
      String createdAt) {}

  /** The view of a snapshot at {@code now}; the payload only when asked (else null). */
  public static SnapshotView of(FallbackSnapshot s, Instant now, String payload) {
    return new SnapshotView(
        s.breakerId().toString(),
        s.keyHash(),
        s.source(),
        Style.rfc3339(s.capturedAt().toEpochMilli()),
        Style.rfc3339(s.expiresAt().toEpochMilli()),
        !now.isBefore(s.expiresAt()),
        s.status().name(),
        s.approvedBy(),
        s.keyId(),
        s.candidate().map(c -> Style.rfc3339(c.toEpochMilli())).orElse(""),
        payload);
  }

  /** The view of a deferred request, without its payload. */
  public static DeferredView of(DeferredSummary d) {
    return new DeferredView(
        d.trackingId(),
        d.breakerId().toString(),
        d.status().name(),
        d.attempts(),
        d.result(),
        Style.rfc3339(d.createdAt().toEpochMilli()));
  }
}
