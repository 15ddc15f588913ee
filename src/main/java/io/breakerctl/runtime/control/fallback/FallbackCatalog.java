package io.breakerctl.runtime.control.fallback;

import static com.mongodb.client.model.Filters.eq;

import com.mongodb.client.model.Sorts;
import io.breakerctl.runtime.control.BreakerPattern;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.fallback.DeferredStatus;
import io.breakerctl.runtime.fallback.FallbackSnapshot;
import io.breakerctl.runtime.model.BreakerId;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.bson.Document;

/**
 * What operators read about fallbacks: snapshot metadata (never a payload unless {@link
 * #openPayload} is asked with the keys) and deferred requests' status, without their payloads.
 * Read-only; approving and revoking is {@link FallbackSnapshots}.
 */
public final class FallbackCatalog {

  private final ControlDatabase db;

  /** A catalog on {@code db}. */
  public FallbackCatalog(ControlDatabase db) {
    this.db = db;
  }

  /**
   * A deferred request without its payload.
   *
   * @param trackingId the id the caller was given
   * @param breakerId the breaker
   * @param status where it stands
   * @param attempts replay attempts so far
   * @param result the last attempt's result or error, empty before any
   * @param createdAt when it was deferred
   */
  public record DeferredSummary(
      String trackingId,
      BreakerId breakerId,
      DeferredStatus status,
      int attempts,
      String result,
      Instant createdAt) {}

  /**
   * The snapshots of the selected breakers, by breaker then capture time, at most {@code limit}.
   */
  public List<FallbackSnapshot> snapshots(BreakerPattern pattern, int limit) {
    return db.call(
        "read snapshots",
        () -> {
          List<FallbackSnapshot> out = new ArrayList<>();
          for (Document d :
              db.collection(ControlDatabase.SNAPSHOTS)
                  .find(pattern.filter("breakerId"))
                  .sort(Sorts.ascending("breakerId", "capturedAt"))
                  .limit(limit)) {
            out.add(SnapshotDocuments.fromDocument(d));
          }
          return out;
        });
  }

  /** One snapshot by breaker and key hash. */
  public Optional<FallbackSnapshot> snapshot(BreakerId id, String keyHash) {
    return Optional.ofNullable(document(id, keyHash)).map(SnapshotDocuments::fromDocument);
  }

  /**
   * The decrypted payload of a snapshot, whatever its status (an operator reviewing it before
   * approval). Only a holder of the payload keys can read it.
   *
   * @throws PayloadCipher.PayloadException when it does not decrypt with {@code keys}
   * @throws IllegalArgumentException when there is no such snapshot
   */
  public byte[] openPayload(BreakerId id, String keyHash, PayloadKeys keys) {
    Document d = document(id, keyHash);
    if (d == null) {
      throw new IllegalArgumentException("no snapshot of " + id + " for key hash " + keyHash);
    }
    return new PayloadCipher(keys)
        .open(
            SealedPayload.fromDocument(d.get("payload", Document.class)),
            SnapshotDocuments.documentId(id, keyHash));
  }

  private Document document(BreakerId id, String keyHash) {
    String docId = SnapshotDocuments.documentId(id, keyHash);
    return db.call(
        "read snapshot of " + id,
        () -> db.collection(ControlDatabase.SNAPSHOTS).find(eq("_id", docId)).first());
  }

  /** Deferred requests of the selected breakers, oldest first, at most {@code limit}. */
  public List<DeferredSummary> deferred(BreakerPattern pattern, int limit) {
    return db.call(
        "read deferred requests",
        () -> {
          List<DeferredSummary> out = new ArrayList<>();
          for (Document d :
              db.collection(ControlDatabase.DEFERRED)
                  .find(pattern.filter("breakerId"))
                  .sort(Sorts.ascending("createdAt"))
                  .limit(limit)) {
            out.add(summary(d));
          }
          return out;
        });
  }

  /** One deferred request by tracking id. */
  public Optional<DeferredSummary> deferred(String trackingId) {
    return db.call(
        "read deferred " + trackingId,
        () ->
            Optional.ofNullable(
                    db.collection(ControlDatabase.DEFERRED).find(eq("_id", trackingId)).first())
                .map(FallbackCatalog::summary));
  }

  private static DeferredSummary summary(Document d) {
    return new DeferredSummary(
        d.getString("_id"),
        BreakerId.parse(d.getString("breakerId")),
        DeferredStatus.valueOf(d.getString("status")),
        d.get("attempts") instanceof Number n ? n.intValue() : 0,
        // sealed when keys are configured: read back through DeferredRequests with the keys
        d.get("result") instanceof Document ? "(encrypted)" : d.get("result", ""),
        d.getDate("createdAt").toInstant());
  }
}
