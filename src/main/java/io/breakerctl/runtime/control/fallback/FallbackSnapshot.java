package io.breakerctl.runtime.control.fallback;

import io.breakerctl.runtime.model.BreakerId;
import java.time.Instant;
import org.bson.Document;

/**
 * A last-known-good value for one breaker and business key (metadata; the payload is read through
 * {@link FallbackSnapshots#serve}).
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
    java.util.Optional<Instant> candidate) {

  static FallbackSnapshot fromDocument(Document d) {
    Document payload = d.get("payload", Document.class);
    return new FallbackSnapshot(
        BreakerId.parse(d.getString("breakerId")),
        d.getString("keyHash"),
        d.get("source", ""),
        d.getDate("capturedAt").toInstant(),
        d.get("approvedBy", ""),
        d.getDate("expiresAt").toInstant(),
        SnapshotStatus.valueOf(d.getString("status")),
        payload == null ? "" : payload.get("keyId", ""),
        java.util.Optional.ofNullable(d.get("candidate", Document.class))
            .map(c -> c.getDate("capturedAt").toInstant()));
  }

  /**
   * What makes {@code d} unreadable as a snapshot, for a {@code MALFORMED} answer: the first field
   * missing, of another type or with an unknown value, named without its value.
   */
  static String problem(Document d) {
    for (String f : new String[] {"breakerId", "keyHash", "status"}) {
      if (!(d.get(f) instanceof String)) {
        return "field '" + f + "' missing or not a string";
      }
    }
    for (String f : new String[] {"capturedAt", "expiresAt"}) {
      if (!(d.get(f) instanceof java.util.Date)) {
        return "field '" + f + "' missing or not a date";
      }
    }
    try {
      SnapshotStatus.valueOf(d.getString("status"));
    } catch (IllegalArgumentException e) {
      return "field 'status' holds no known status (PENDING, APPROVED, REVOKED)";
    }
    try {
      BreakerId.parse(d.getString("breakerId"));
    } catch (RuntimeException e) {
      return "field 'breakerId' is not a breaker id";
    }
    return "a field of another type";
  }

  /** The id of the snapshot document. */
  static String documentId(BreakerId id, String keyHash) {
    return id + "|" + keyHash;
  }
}
