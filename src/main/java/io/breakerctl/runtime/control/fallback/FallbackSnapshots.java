package io.breakerctl.runtime.control.fallback;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.ne;

import com.mongodb.client.model.ReplaceOptions;
import com.mongodb.client.model.Updates;
import io.breakerctl.runtime.HotSnapshots;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.ControlException;
import io.breakerctl.runtime.control.ControlUnavailableException;
import io.breakerctl.runtime.control.audit.AuditAction;
import io.breakerctl.runtime.control.audit.AuditLog;
import io.breakerctl.runtime.control.audit.AuditRecord;
import io.breakerctl.runtime.fallback.FallbackSnapshot;
import io.breakerctl.runtime.fallback.SnapshotApproval;
import io.breakerctl.runtime.fallback.SnapshotRead;
import io.breakerctl.runtime.fallback.SnapshotSource;
import io.breakerctl.runtime.fallback.SnapshotStatus;
import io.breakerctl.runtime.fallback.Unserved;
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
 *
 * <p><b>No call waits on MongoDB.</b> MongoDB is the durable, governed store; calls are answered
 * from hot copies ({@link #withHotCopies}):
 *
 * <ol>
 *   <li>the node cache: the documents this instance read lately (at most {@link #CACHE_ENTRIES},
 *       least recently used dropped), trusted without asking anyone for {@link #CACHE_FRESH};
 *   <li>Redis ({@link HotSnapshots}): the copy of every approved snapshot, written when it is
 *       captured approved, approved by an operator, or read from MongoDB and servable (warmed);
 *       removed when it is revoked or replaced by a pending one; at most {@link #HOT_MAX_CHARS}
 *       characters (a larger snapshot is served from MongoDB and the node cache only), expiring
 *       with the snapshot and at most after {@link #HOT_MAX_TTL};
 *   <li>MongoDB, read through its guard ({@link ControlDatabase#guard()}): while it is known to be
 *       down the read fails at once, and a node copy older than {@link #CACHE_FRESH} is served
 *       rather than nothing (its own expiry still applies).
 * </ol>
 *
 * Every copy is the snapshot's document as MongoDB holds it, judged by the same rules (status,
 * expiry, decryption). An operator's revocation removes the Redis copy at once; other nodes' cached
 * copies follow within {@link #CACHE_FRESH}.
 */
public final class FallbackSnapshots implements SnapshotSource {

  /** The largest document (as JSON) copied to Redis: hot data stays small. */
  public static final int HOT_MAX_CHARS = 64 * 1024;

  /** The longest a Redis copy lives, whatever the snapshot's own expiry. */
  public static final Duration HOT_MAX_TTL = Duration.ofHours(24);

  /** The node cache's size bound, in documents. */
  public static final int CACHE_ENTRIES = 10_000;

  /** How long the node cache trusts a copy before it asks Redis (or MongoDB) again. */
  public static final Duration CACHE_FRESH = Duration.ofSeconds(1);

  /** The approver recorded for snapshots the policy approves automatically. */
  public static final String AUTO = "auto";

  private final ControlDatabase db;
  private final BusinessKeys businessKeys;
  private final PayloadCipher cipher;
  private final Clock clock;
  private final AuditLog audit;
  private final HotSnapshots hot;
  private final SnapshotNodeCache cache = new SnapshotNodeCache();

  /**
   * Snapshots on {@code db}, hashing business keys and sealing payloads as given; guards {@code db}
   * ({@link ControlDatabase#guard()}) since calls read it. Without {@link #withHotCopies} only the
   * node cache answers while MongoDB is down.
   */
  public FallbackSnapshots(
      ControlDatabase db, BusinessKeys businessKeys, PayloadKeys keys, Clock clock) {
    this(db.guard(), businessKeys, new PayloadCipher(keys), clock, HotSnapshots.NONE);
  }

  private FallbackSnapshots(
      ControlDatabase db,
      BusinessKeys businessKeys,
      PayloadCipher cipher,
      Clock clock,
      HotSnapshots hot) {
    this.db = db;
    this.businessKeys = businessKeys;
    this.cipher = cipher;
    this.clock = clock;
    this.audit = new AuditLog(db);
    this.hot = hot;
  }

  /** Whether payloads are encrypted at rest (keys are configured). */
  public boolean encrypts() {
    return cipher.encrypts();
  }

  /**
   * The same snapshots with hot copies in {@code hot} (a registry's {@link
   * io.breakerctl.runtime.BreakerRegistry#hotSnapshots()}) and a node cache of their own.
   */
  public FallbackSnapshots withHotCopies(HotSnapshots hot) {
    return new FallbackSnapshots(
        db, businessKeys, cipher, clock, java.util.Objects.requireNonNull(hot, "hot"));
  }

  /**
   * Captures the value for a breaker and business key. Automatically approved, it replaces the
   * snapshot (a newer approved one). Left for an operator, it never replaces an approved, unexpired
   * snapshot: it becomes the pending {@code candidate} beside it (replacing an older candidate),
   * and the approved one keeps serving until it expires or an operator approves the candidate
   * ({@link #approve}); with no such snapshot it is stored as the pending snapshot. (How captures
   * are approved is the {@code Fallbacks.Builder.cached} argument of the code that captures, not a
   * policy field.)
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
    String docId = SnapshotDocuments.documentId(id, hash);
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
    if (auto) {
      db.call(
          "store snapshot of " + id,
          () ->
              db.collection(ControlDatabase.SNAPSHOTS)
                  .replaceOne(eq("_id", docId), doc, new ReplaceOptions().upsert(true)));
    } else {
      Optional<FallbackSnapshot> kept = captureCandidate(id, docId, doc, now);
      if (kept.isPresent()) {
        return kept.get();
      }
    }
    if (auto) {
      warm(id, hash, docId, doc);
    } else {
      drop(id, hash, docId);
    }
    return SnapshotDocuments.fromDocument(doc);
  }

  /**
   * Stores an operator-approved capture: as the candidate beside an approved, unexpired snapshot
   * (which is returned, unchanged but for the candidate), else as the pending snapshot (empty). A
   * snapshot approved between the two writes makes the second one's upsert collide on the id, and
   * the capture becomes its candidate after all.
   */
  private Optional<FallbackSnapshot> captureCandidate(
      BreakerId id, String docId, Document pending, Instant now) {
    Document candidate =
        new Document("source", pending.get("source"))
            .append("capturedAt", pending.get("capturedAt"))
            .append("expiresAt", pending.get("expiresAt"))
            .append("payload", pending.get("payload"));
    var servable =
        and(
            eq("_id", docId),
            eq("status", SnapshotStatus.APPROVED.name()),
            com.mongodb.client.model.Filters.gt("expiresAt", Date.from(now)));
    for (int attempt = 0; attempt < 2; attempt++) {
      Document beside =
          db.call(
              "store snapshot candidate of " + id,
              () ->
                  db.collection(ControlDatabase.SNAPSHOTS)
                      .findOneAndUpdate(
                          servable,
                          Updates.set("candidate", candidate),
                          new com.mongodb.client.model.FindOneAndUpdateOptions()
                              .returnDocument(com.mongodb.client.model.ReturnDocument.AFTER)));
      if (beside != null) {
        return Optional.of(SnapshotDocuments.fromDocument(beside));
      }
      try {
        db.call(
            "store snapshot of " + id,
            () ->
                db.collection(ControlDatabase.SNAPSHOTS)
                    .replaceOne(
                        and(eq("_id", docId), com.mongodb.client.model.Filters.nor(servable)),
                        pending,
                        new ReplaceOptions().upsert(true)));
        return Optional.empty();
      } catch (ControlException e) {
        if (!ControlDatabase.isDuplicateKey(e)) {
          throw e;
        }
      }
    }
    throw new ControlException("store snapshot of " + id + ": it changed twice meanwhile");
  }

  /** One MongoDB query ({@link SnapshotDocuments#newestApproved}), run in the background. */
  @Override
  public Optional<Instant> newestApproved(BreakerId id) {
    return SnapshotDocuments.newestApproved(db, id, clock.instant());
  }

  /**
   * The value to serve for a breaker and business key, with the reason when there is none: from the
   * node cache, Redis or MongoDB, in that order (see the class documentation).
   *
   * @throws ControlUnavailableException when MongoDB is down (failing at once while its guard holds
   *     it for down) and neither the node cache nor Redis has a copy
   */
  public SnapshotRead serve(BreakerId id, String businessKey) {
    String hash = businessKeys.hash(businessKey);
    String docId = SnapshotDocuments.documentId(id, hash);
    SnapshotNodeCache.Entry cached = cache.get(docId);
    if (cached != null && cached.fresh()) {
      if (cached.unavailable() != null) {
        throw cached.unavailable();
      }
      return cached.doc() == null ? NOT_FOUND : judge(cached.doc(), docId);
    }
    Optional<Document> copy = hotCopy(id, hash);
    if (copy.isPresent()) {
      cache.put(docId, copy.get());
      return judge(copy.get(), docId);
    }
    Document d;
    try {
      d =
          db.call(
              "read snapshot of " + id,
              () -> db.collection(ControlDatabase.SNAPSHOTS).find(eq("_id", docId)).first());
    } catch (ControlUnavailableException e) {
      if (cached != null && cached.doc() != null) {
        return judge(cached.doc(), docId); // older than CACHE_FRESH, but nobody can say otherwise
      }
      cache.absent(docId, e); // neither Redis nor MongoDB: asked again after CACHE_FRESH
      throw e;
    }
    if (d == null) {
      cache.absent(docId, null);
      return NOT_FOUND;
    }
    SnapshotRead read = judge(d, docId);
    if (read.outcome() == SnapshotRead.Outcome.SERVED) {
      warm(id, hash, docId, d);
    } else {
      cache.remove(docId);
    }
    return read;
  }

  private static SnapshotRead malformed(String problem) {
    return new SnapshotRead(
        SnapshotRead.Outcome.MALFORMED, Optional.empty(), Optional.empty(), problem);
  }

  private static final SnapshotRead NOT_FOUND =
      new SnapshotRead(SnapshotRead.Outcome.NOT_FOUND, Optional.empty(), Optional.empty());

  /** The Redis copy, if one answers; a copy that does not parse or Redis not answering: a miss. */
  private Optional<Document> hotCopy(BreakerId id, String hash) {
    try {
      return hot.get(id, hash).map(Document::parse);
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * Puts a servable document into the node cache and, when small enough, into Redis with an expiry
   * of its own remaining life (at most {@link #HOT_MAX_TTL}). Redis not answering only costs the
   * copy: MongoDB keeps the snapshot.
   */
  private void warm(BreakerId id, String hash, String docId, Document d) {
    cache.put(docId, d);
    Duration left = Duration.between(clock.instant(), d.getDate("expiresAt").toInstant());
    if (left.toMillis() <= 0) {
      return;
    }
    String json = d.toJson();
    if (json.length() > HOT_MAX_CHARS) {
      return;
    }
    try {
      hot.put(id, hash, json, left.compareTo(HOT_MAX_TTL) > 0 ? HOT_MAX_TTL : left);
    } catch (RuntimeException e) {
      // Redis unavailable: served from MongoDB and the node cache until it is warmed again
    }
  }

  /** Removes the hot copies of a snapshot that may no longer be served (revoked, pending). */
  private void drop(BreakerId id, String hash, String docId) {
    cache.remove(docId);
    try {
      hot.delete(id, hash);
    } catch (RuntimeException e) {
      // Redis unavailable: a copy left there expires with the snapshot's approval it carries
    }
  }

  /**
   * Whether the document {@code d} may be served, with its payload when it may. A document that
   * does not read as a snapshot is {@link SnapshotRead.Outcome#MALFORMED}, naming the field and
   * never its value (it may be payload).
   */
  private SnapshotRead judge(Document d, String docId) {
    FallbackSnapshot s;
    SealedPayload sealed;
    try {
      s = SnapshotDocuments.fromDocument(d);
    } catch (RuntimeException e) {
      return malformed(SnapshotDocuments.problem(d));
    }
    try {
      sealed = SealedPayload.fromDocument(d.get("payload", Document.class));
    } catch (RuntimeException e) {
      return malformed("payload");
    }
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
      byte[] payload = cipher.open(sealed, docId);
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
    String docId = SnapshotDocuments.documentId(id, businessKeys.hash(businessKey));
    Document d =
        db.call(
            "read snapshot of " + id,
            () -> db.collection(ControlDatabase.SNAPSHOTS).find(eq("_id", docId)).first());
    Document candidate = d == null ? null : d.get("candidate", Document.class);
    if (candidate == null) {
      return review(
          id, businessKey, actor, reason, SnapshotStatus.PENDING, SnapshotStatus.APPROVED);
    }
    // the candidate replaces the snapshot beside it, if nobody moved either meanwhile
    var filter =
        and(
            eq("_id", docId),
            eq("status", d.getString("status")),
            eq("candidate.capturedAt", candidate.get("capturedAt")));
    var promote =
        Updates.combine(
            Updates.set("source", candidate.get("source")),
            Updates.set("capturedAt", candidate.get("capturedAt")),
            Updates.set("expiresAt", candidate.get("expiresAt")),
            Updates.set("payload", candidate.get("payload")),
            Updates.unset("candidate"),
            Updates.unset("revokedBy"));
    return review(id, businessKey, actor, reason, filter, promote, SnapshotStatus.APPROVED);
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
    String docId = SnapshotDocuments.documentId(id, businessKeys.hash(businessKey));
    var filter =
        from == null
            ? and(eq("_id", docId), ne("status", to.name()))
            : and(eq("_id", docId), eq("status", from.name()));
    return review(id, businessKey, actor, reason, filter, Updates.combine(), to);
  }

  /** Moves a snapshot to {@code to} where {@code filter} matches, with {@code more} changes. */
  private boolean review(
      BreakerId id,
      String businessKey,
      String actor,
      String reason,
      org.bson.conversions.Bson filter,
      org.bson.conversions.Bson more,
      SnapshotStatus to) {
    String hash = businessKeys.hash(businessKey);
    String docId = SnapshotDocuments.documentId(id, hash);
    var update =
        Updates.combine(
            more,
            Updates.set("status", to.name()),
            Updates.set(to == SnapshotStatus.APPROVED ? "approvedBy" : "revokedBy", actor));
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
    if (to == SnapshotStatus.APPROVED) {
      Document d =
          db.call(
              "read snapshot of " + id,
              () -> db.collection(ControlDatabase.SNAPSHOTS).find(eq("_id", docId)).first());
      if (d != null && SnapshotStatus.APPROVED.name().equals(d.getString("status"))) {
        warm(id, hash, docId, d);
      }
    } else {
      drop(id, hash, docId);
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

  @Override
  public Optional<Unserved> unserved(RuntimeException e) {
    return StoreFailures.unserved(e);
  }
}
