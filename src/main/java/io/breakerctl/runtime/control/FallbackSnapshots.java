package io.breakerctl.runtime.control;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.ne;

import com.mongodb.client.model.ReplaceOptions;
import com.mongodb.client.model.Updates;
import io.breakerctl.runtime.model.BreakerId;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.bson.Document;

/**
 * Approved last-known-good fallback values per breaker and business key ({@code snapshots}). The
 * business key is stored only as its salted SHA-256 ({@link BusinessKeys}); the payload is
 * encrypted with AES-GCM when keys are configured ({@link PayloadCipher}), bound to its document so
 * a payload moved to another record does not decrypt. Expired, revoked, pending and undecryptable
 * snapshots are never served; expiry is computed here, at read time.
 */
public final class FallbackSnapshots {

  /** The approver recorded for snapshots the policy approves automatically. */
  public static final String AUTO = "auto";

  private final ControlDatabase db;
  private final BusinessKeys businessKeys;
  private final PayloadCipher cipher;
  private final Clock clock;
  private final AuditLog audit;

  /** Snapshots on {@code db}, hashing business keys and sealing payloads as given. */
  public FallbackSnapshots(
      ControlDatabase db, BusinessKeys businessKeys, PayloadKeys keys, Clock clock) {
    this.db = db;
    this.businessKeys = businessKeys;
    this.cipher = new PayloadCipher(keys);
    this.clock = clock;
    this.audit = new AuditLog(db);
  }

  /**
   * Captures (or replaces) the value for a breaker and business key.
   *
   * @param source where the value came from
   * @param ttl how long it may be served
   * @param approval automatic (approved now) or by an operator (pending)
   * @throws IllegalArgumentException when the ttl is not positive or the source empty
   */
  public FallbackSnapshot capture(
      BreakerId id,
      String businessKey,
      byte[] payload,
      String source,
      Duration ttl,
      SnapshotApproval approval) {
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("snapshot ttl must be > 0 but was " + ttl);
    }
    if (source == null || source.isBlank()) {
      throw new IllegalArgumentException("snapshot source must not be empty");
    }
    String hash = businessKeys.hash(businessKey);
    String docId = FallbackSnapshot.documentId(id, hash);
    Instant now = clock.instant();
    boolean auto = approval == SnapshotApproval.AUTOMATIC;
    Document doc =
        new Document("_id", docId)
            .append("breakerId", id.toString())
            .append("keyHash", hash)
            .append("source", source)
            .append("capturedAt", Date.from(now))
            .append("approvedBy", auto ? AUTO : "")
            .append("expiresAt", Date.from(now.plus(ttl)))
            .append("status", (auto ? SnapshotStatus.APPROVED : SnapshotStatus.PENDING).name())
            .append("payload", cipher.seal(payload, docId).toDocument());
    db.call(
        "store snapshot of " + id,
        () ->
            db.collection(ControlDatabase.SNAPSHOTS)
                .replaceOne(eq("_id", docId), doc, new ReplaceOptions().upsert(true)));
    return FallbackSnapshot.fromDocument(doc);
  }

  /**
   * The value to serve for a breaker and business key, with the reason when there is none.
   *
   * @throws ControlUnavailableException when MongoDB is down
   */
  public SnapshotRead serve(BreakerId id, String businessKey) {
    String docId = FallbackSnapshot.documentId(id, businessKeys.hash(businessKey));
    Document d =
        db.call(
            "read snapshot of " + id,
            () -> db.collection(ControlDatabase.SNAPSHOTS).find(eq("_id", docId)).first());
    if (d == null) {
      return new SnapshotRead(SnapshotRead.Outcome.NOT_FOUND, Optional.empty(), Optional.empty());
    }
    FallbackSnapshot s = FallbackSnapshot.fromDocument(d);
    SnapshotRead.Outcome refused =
        switch (s.status()) {
          case PENDING -> SnapshotRead.Outcome.PENDING;
          case REVOKED -> SnapshotRead.Outcome.REVOKED;
          case APPROVED ->
              clock.instant().isBefore(s.expiresAt()) ? null : SnapshotRead.Outcome.EXPIRED;
        };
    if (refused != null) {
      return new SnapshotRead(refused, Optional.empty(), Optional.of(s));
    }
    try {
      byte[] payload =
          cipher.open(SealedPayload.fromDocument(d.get("payload", Document.class)), docId);
      return new SnapshotRead(SnapshotRead.Outcome.SERVED, Optional.of(payload), Optional.of(s));
    } catch (PayloadCipher.PayloadException e) {
      return new SnapshotRead(SnapshotRead.Outcome.UNDECRYPTABLE, Optional.empty(), Optional.of(s));
    }
  }

  /**
   * An operator approves a pending snapshot (audited).
   *
   * @return false when there is no pending snapshot for the key
   */
  public boolean approve(BreakerId id, String businessKey, String actor, String reason) {
    return review(id, businessKey, actor, reason, SnapshotStatus.PENDING, SnapshotStatus.APPROVED);
  }

  /**
   * An operator revokes a snapshot (audited): it is never served again.
   *
   * @return false when there is no approved or pending snapshot for the key
   */
  public boolean revoke(BreakerId id, String businessKey, String actor, String reason) {
    return review(id, businessKey, actor, reason, null, SnapshotStatus.REVOKED);
  }

  private boolean review(
      BreakerId id,
      String businessKey,
      String actor,
      String reason,
      SnapshotStatus from,
      SnapshotStatus to) {
    if (actor == null || actor.isBlank()) {
      throw new IllegalArgumentException("snapshot reviewer must not be empty");
    }
    String hash = businessKeys.hash(businessKey);
    String docId = FallbackSnapshot.documentId(id, hash);
    var filter =
        from == null
            ? and(eq("_id", docId), ne("status", to.name()))
            : and(eq("_id", docId), eq("status", from.name()));
    var update =
        to == SnapshotStatus.APPROVED
            ? Updates.combine(Updates.set("status", to.name()), Updates.set("approvedBy", actor))
            : Updates.combine(Updates.set("status", to.name()), Updates.set("revokedBy", actor));
    long changed =
        db.call(
            "review snapshot of " + id,
            () ->
                db.collection(ControlDatabase.SNAPSHOTS)
                    .updateOne(filter, update)
                    .getModifiedCount());
    if (changed == 0) {
      return false;
    }
    audit.record(
        new AuditRecord(
            UUID.randomUUID().toString(),
            to == SnapshotStatus.APPROVED
                ? AuditAction.FALLBACK_APPROVAL
                : AuditAction.FALLBACK_REVOKE,
            id.toString(),
            actor,
            reason,
            clock.instant(),
            Optional.empty(),
            Map.of("keyHash", hash),
            Map.of("status", to.name()),
            Optional.empty()));
    return true;
  }
}
