package io.breakerctl.runtime.control.fallback;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.Sorts;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.fallback.FallbackSnapshot;
import io.breakerctl.runtime.fallback.SnapshotStatus;
import io.breakerctl.runtime.model.BreakerId;
import java.time.Instant;
import java.util.Date;
import java.util.Optional;
import org.bson.Document;

/**
 * Fallback snapshots as {@code snapshots} documents: ids, reading, and what makes one unreadable.
 */
final class SnapshotDocuments {
  private SnapshotDocuments() {}

  /** The snapshot a stored document holds. */
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

  /**
   * When the newest approved snapshot of the breaker unexpired at {@code now} was captured: its
   * approved snapshots by capture time, newest first, one returned (the fallbacks' background age
   * check, never a call).
   */
  static Optional<Instant> newestApproved(ControlDatabase db, BreakerId id, Instant now) {
    Document newest =
        db.call(
            "read the newest approved snapshot of " + id,
            () ->
                db.collection(ControlDatabase.SNAPSHOTS)
                    .find(
                        Filters.and(
                            Filters.eq("breakerId", id.toString()),
                            Filters.eq("status", SnapshotStatus.APPROVED.name()),
                            Filters.gt("expiresAt", Date.from(now))))
                    .sort(Sorts.descending("capturedAt"))
                    .projection(Projections.include("capturedAt"))
                    .limit(1)
                    .first());
    return newest == null || !(newest.get("capturedAt") instanceof Date d)
        ? Optional.empty()
        : Optional.of(d.toInstant());
  }
}
