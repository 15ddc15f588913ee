package io.breakerctl.runtime.control;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.exists;
import static com.mongodb.client.model.Filters.lt;
import static com.mongodb.client.model.Filters.or;

import com.mongodb.client.model.Sorts;
import com.mongodb.client.model.Updates;
import io.breakerctl.runtime.model.BreakerId;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * Deferred requests in the {@code deferred} collection: breaker, tracking id, payload (encrypted
 * like fallback snapshots), status, attempts and result. Updates are single-document
 * compare-and-set on the status, so two replayers cannot both finish one request.
 */
public final class DeferredRequests {

  private final ControlDatabase db;
  private final PayloadCipher cipher;
  private final Clock clock;

  /**
   * Deferred requests on {@code db}, payloads sealed with {@code keys}; guards {@code db} ({@link
   * ControlDatabase#guard()}): while MongoDB is known to be down, {@link #defer} and {@link #find}
   * fail at once with {@link ControlUnavailableException} instead of waiting the timeout per call.
   */
  public DeferredRequests(ControlDatabase db, PayloadKeys keys, Clock clock) {
    this.db = db.guard();
    this.cipher = new PayloadCipher(keys);
    this.clock = clock;
  }

  /** Queues a request; returns its tracking id. */
  public String defer(BreakerId id, byte[] payload) {
    String tracking = UUID.randomUUID().toString();
    Document doc =
        new Document("_id", tracking)
            .append("breakerId", id.toString())
            .append("payload", cipher.seal(payload, tracking).toDocument())
            .append("status", DeferredStatus.PENDING.name())
            .append("attempts", 0)
            .append("result", "")
            .append("createdAt", Date.from(clock.instant()));
    db.call(
        "defer a request of " + id, () -> db.collection(ControlDatabase.DEFERRED).insertOne(doc));
    return tracking;
  }

  /**
   * The request with this tracking id.
   *
   * @throws ControlUnavailableException when MongoDB is down (at once while its guard holds it for
   *     down)
   * @throws PayloadCipher.PayloadException when its payload does not decrypt
   */
  public Optional<DeferredRequest> find(String trackingId) {
    Document d =
        db.call(
            "read deferred " + trackingId,
            () -> db.collection(ControlDatabase.DEFERRED).find(eq("_id", trackingId)).first());
    return Optional.ofNullable(d).map(this::fromDocument);
  }

  /** Pending requests of a breaker, oldest first, at most {@code limit}. */
  public List<DeferredRequest> pending(BreakerId id, int limit) {
    return db.call(
        "read deferred of " + id,
        () -> {
          List<DeferredRequest> out = new ArrayList<>();
          for (Document d :
              db.collection(ControlDatabase.DEFERRED)
                  .find(
                      and(
                          eq("breakerId", id.toString()),
                          eq("status", DeferredStatus.PENDING.name())))
                  .sort(Sorts.ascending("createdAt"))
                  .limit(limit)) {
            out.add(fromDocument(d));
          }
          return out;
        });
  }

  /**
   * How many requests of a breaker are pending, fleet-wide (every node's, uncapped): one {@code
   * countDocuments}, for the pending gauge's background refresh, never for a call.
   */
  public long pendingCount(BreakerId id) {
    return db.call(
        "count deferred of " + id,
        () ->
            db.collection(ControlDatabase.DEFERRED)
                .countDocuments(
                    and(
                        eq("breakerId", id.toString()),
                        eq("status", DeferredStatus.PENDING.name()))));
  }

  /**
   * Records a replay attempt of a pending request: {@code done} finishes it, otherwise it stays
   * pending until {@code maxAttempts} attempts, then fails.
   *
   * @return false when the request is not pending (finished by another replayer, or unknown)
   */
  public boolean attempt(String trackingId, boolean done, String result, int maxAttempts) {
    return settle(trackingId, null, done, result, maxAttempts);
  }

  /**
   * Takes the replay lease of a pending request for {@code owner} until {@code lease} from now,
   * when no other owner holds a live one: the one replayer that may run it (at most once, as long
   * as its work finishes within the lease).
   *
   * @return false when the request is not pending or another owner holds a live lease
   */
  public boolean claim(String trackingId, String owner, Duration lease) {
    Date now = Date.from(clock.instant());
    long changed =
        db.call(
            "claim deferred " + trackingId,
            () ->
                db.collection(ControlDatabase.DEFERRED)
                    .updateOne(
                        and(
                            eq("_id", trackingId),
                            eq("status", DeferredStatus.PENDING.name()),
                            or(exists("leaseUntil", false), lt("leaseUntil", now))),
                        Updates.combine(
                            Updates.set("leaseOwner", owner),
                            Updates.set("leaseUntil", Date.from(clock.instant().plus(lease)))))
                    .getModifiedCount());
    return changed == 1;
  }

  /**
   * Records the replay of a request whose lease {@code owner} holds (see {@link #attempt}) and
   * drops the lease.
   *
   * @return false when the request is not pending under this owner's lease
   */
  public boolean finish(
      String trackingId, String owner, boolean done, String result, int maxAttempts) {
    return settle(trackingId, Objects.requireNonNull(owner, "owner"), done, result, maxAttempts);
  }

  /** One attempt of a pending request, under {@code owner}'s lease when not null. */
  private boolean settle(
      String trackingId, String owner, boolean done, String result, int maxAttempts) {
    Bson pending = and(eq("_id", trackingId), eq("status", DeferredStatus.PENDING.name()));
    Bson mine = owner == null ? pending : and(pending, eq("leaseOwner", owner));
    Document d =
        db.call(
            "read deferred " + trackingId,
            () -> db.collection(ControlDatabase.DEFERRED).find(mine).first());
    if (d == null) {
      return false;
    }
    int attempts = d.getInteger("attempts", 0);
    DeferredStatus next =
        done
            ? DeferredStatus.DONE
            : attempts + 1 >= maxAttempts ? DeferredStatus.FAILED : DeferredStatus.PENDING;
    Bson update =
        Updates.combine(
            Updates.set("status", next.name()),
            Updates.set("attempts", attempts + 1),
            Updates.set("result", result == null ? "" : result),
            Updates.set("updatedAt", Date.from(clock.instant())));
    Bson settled =
        owner == null
            ? update
            : Updates.combine(update, Updates.unset("leaseOwner"), Updates.unset("leaseUntil"));
    long changed =
        db.call(
            "update deferred " + trackingId,
            () ->
                db.collection(ControlDatabase.DEFERRED)
                    .updateOne(and(mine, eq("attempts", attempts)), settled)
                    .getModifiedCount());
    return changed == 1;
  }

  /** Gives a lease back without an attempt (the breaker rejected the replay). */
  public void release(String trackingId, String owner) {
    db.call(
        "release deferred " + trackingId,
        () ->
            db.collection(ControlDatabase.DEFERRED)
                .updateOne(
                    and(eq("_id", trackingId), eq("leaseOwner", owner)),
                    Updates.combine(Updates.unset("leaseOwner"), Updates.unset("leaseUntil"))));
  }

  private DeferredRequest fromDocument(Document d) {
    String tracking = d.getString("_id");
    return new DeferredRequest(
        tracking,
        BreakerId.parse(d.getString("breakerId")),
        cipher.open(SealedPayload.fromDocument(d.get("payload", Document.class)), tracking),
        DeferredStatus.valueOf(d.getString("status")),
        d.getInteger("attempts", 0),
        d.get("result", ""),
        d.getDate("createdAt").toInstant());
  }
}
