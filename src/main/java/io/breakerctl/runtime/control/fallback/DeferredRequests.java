package io.breakerctl.runtime.control.fallback;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.exists;
import static com.mongodb.client.model.Filters.lt;
import static com.mongodb.client.model.Filters.or;

import com.mongodb.client.model.Sorts;
import com.mongodb.client.model.Updates;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.fallback.DeferredQueue;
import io.breakerctl.runtime.fallback.DeferredRequest;
import io.breakerctl.runtime.fallback.DeferredStatus;
import io.breakerctl.runtime.fallback.Unserved;
import io.breakerctl.runtime.model.BreakerId;
import java.nio.charset.StandardCharsets;
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
public final class DeferredRequests implements DeferredQueue {

  private final ControlDatabase db;
  private final PayloadCipher cipher;
  private final Clock clock;

  /**
   * Deferred requests on {@code db}, payloads sealed with {@code keys}; guards {@code db} ({@link
   * ControlDatabase#guard()}): while MongoDB is known to be down, {@link #defer} and {@link #find}
   * fail at once with {@link io.breakerctl.runtime.control.ControlUnavailableException} instead of
   * waiting the timeout per call.
   */
  public DeferredRequests(ControlDatabase db, PayloadKeys keys, Clock clock) {
    this.db = db.guard();
    this.cipher = new PayloadCipher(keys);
    this.clock = clock;
  }

  /** Whether payloads are encrypted at rest (keys are configured). */
  public boolean encrypts() {
    return cipher.encrypts();
  }

  /** Queues a request; returns its tracking id. */
  public String defer(BreakerId id, byte[] payload) {
    return defer(id, UUID.randomUUID().toString(), payload);
  }

  /**
   * Queues a request under {@code tracking}, the id its work was given as idempotency key when it
   * was first tried ({@code Fallbacks.submit}); returns it.
   */
  public String defer(BreakerId id, String tracking, byte[] payload) {
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
   * @throws io.breakerctl.runtime.control.ControlUnavailableException when MongoDB is down (at once
   *     while its guard holds it for down)
   *     <p>A status query: a request whose payload does not decrypt (a quarantined one) is returned
   *     with an empty payload, its status and result as recorded.
   */
  public Optional<DeferredRequest> find(String trackingId) {
    Document d =
        db.call(
            "read deferred " + trackingId,
            () -> db.collection(ControlDatabase.DEFERRED).find(eq("_id", trackingId)).first());
    if (d == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(fromDocument(d));
    } catch (PayloadCipher.PayloadException e) {
      DeferredRequest r = fromDocument(d.append("payload", null), new byte[0]);
      return Optional.of(r);
    }
  }

  /**
   * Pending requests of a breaker, oldest first, at most {@code limit}; one that cannot be read is
   * left out.
   */
  public List<DeferredRequest> pending(BreakerId id, int limit) {
    return pending(id, limit, (tracking, why) -> {});
  }

  /**
   * Pending requests of a breaker, oldest first, at most {@code limit}. A request that cannot be
   * read (its payload does not decrypt: altered, or its key id is not configured here; the record
   * malformed) is left out and handed to {@code unreadable} with its tracking id and why (naming a
   * key id or a field, never content), so one bad request never hides the others.
   */
  public List<DeferredRequest> pending(
      BreakerId id, int limit, java.util.function.BiConsumer<String, String> unreadable) {
    return db.call(
        "read deferred of " + id,
        () -> {
          List<DeferredRequest> out = new ArrayList<>();
          List<String[]> bad = new ArrayList<>();
          for (Document d :
              db.collection(ControlDatabase.DEFERRED)
                  .find(
                      and(
                          eq("breakerId", id.toString()),
                          eq("status", DeferredStatus.PENDING.name())))
                  .sort(Sorts.ascending("createdAt"))
                  .limit(limit)) {
            try {
              out.add(fromDocument(d));
            } catch (PayloadCipher.PayloadException e) {
              bad.add(new String[] {String.valueOf(d.get("_id")), e.getMessage()});
            } catch (RuntimeException e) {
              bad.add(new String[] {String.valueOf(d.get("_id")), "malformed record"});
            }
          }
          bad.forEach(b -> unreadable.accept(b[0], b[1]));
          return out;
        });
  }

  /**
   * Takes a pending request out of the queue as FAILED, its result saying why ({@code quarantined:
   * ...}), without an attempt: a request no replay can read.
   *
   * @return false when it is no longer pending
   */
  public boolean quarantine(String trackingId, String why) {
    return db.call(
            "quarantine deferred " + trackingId,
            () ->
                db.collection(ControlDatabase.DEFERRED)
                    .updateOne(
                        and(eq("_id", trackingId), eq("status", DeferredStatus.PENDING.name())),
                        Updates.combine(
                            Updates.set("status", DeferredStatus.FAILED.name()),
                            Updates.set("result", "quarantined: " + why),
                            Updates.set("updatedAt", Date.from(clock.instant())),
                            Updates.unset("leaseOwner"),
                            Updates.unset("leaseUntil")))
                    .getModifiedCount())
        == 1;
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
    return claimAttempt(trackingId, owner, lease, Integer.MAX_VALUE).isPresent();
  }

  /**
   * Takes the replay lease (see {@link #claim}) of a pending request with fewer than {@code
   * maxAttempts} attempts and counts the attempt at once, before any work runs: an execution cut
   * short (the node stopped after the side effect, before it recorded the end) is counted all the
   * same, so the next replayer's attempt is recorded as the second. Delivery is at least once.
   *
   * @return the attempt's number (1 for the first), or empty when not claimed
   */
  public java.util.OptionalInt claimAttempt(
      String trackingId, String owner, Duration lease, int maxAttempts) {
    Date now = Date.from(clock.instant());
    Document d =
        db.call(
            "claim deferred " + trackingId,
            () ->
                db.collection(ControlDatabase.DEFERRED)
                    .findOneAndUpdate(
                        and(
                            eq("_id", trackingId),
                            eq("status", DeferredStatus.PENDING.name()),
                            lt("attempts", maxAttempts),
                            or(exists("leaseUntil", false), lt("leaseUntil", now))),
                        Updates.combine(
                            Updates.inc("attempts", 1),
                            Updates.set("leaseOwner", owner),
                            Updates.set("leaseUntil", Date.from(clock.instant().plus(lease)))),
                        new com.mongodb.client.model.FindOneAndUpdateOptions()
                            .returnDocument(com.mongodb.client.model.ReturnDocument.AFTER)));
    return d == null
        ? java.util.OptionalInt.empty()
        : java.util.OptionalInt.of(d.getInteger("attempts", 1));
  }

  /**
   * Fails a pending request whose {@code maxAttempts} attempts have all started and whose last
   * lease ran out without an end recorded (each replayer stopped mid-run).
   *
   * @return false when it is not such a request
   */
  public boolean exhaust(String trackingId, int maxAttempts) {
    Date now = Date.from(clock.instant());
    return db.call(
            "fail deferred " + trackingId,
            () ->
                db.collection(ControlDatabase.DEFERRED)
                    .updateOne(
                        and(
                            eq("_id", trackingId),
                            eq("status", DeferredStatus.PENDING.name()),
                            com.mongodb.client.model.Filters.gte("attempts", maxAttempts),
                            or(exists("leaseUntil", false), lt("leaseUntil", now))),
                        Updates.combine(
                            Updates.set("status", DeferredStatus.FAILED.name()),
                            Updates.set(
                                "result",
                                "no attempt left: "
                                    + maxAttempts
                                    + " started, the last did not record its end"),
                            Updates.set("updatedAt", Date.from(clock.instant())),
                            Updates.unset("leaseOwner"),
                            Updates.unset("leaseUntil")))
                    .getModifiedCount())
        == 1;
  }

  /**
   * Records the end of the replay whose lease {@code owner} holds and drops the lease: the attempt
   * was counted when it was claimed, so {@code done} finishes it, otherwise it stays pending until
   * {@code maxAttempts} attempts, then fails.
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
    // under a lease the attempt was counted by the claim; without one it is counted here
    int counted = owner == null ? attempts + 1 : attempts;
    DeferredStatus next =
        done
            ? DeferredStatus.DONE
            : counted >= maxAttempts ? DeferredStatus.FAILED : DeferredStatus.PENDING;
    Bson update =
        Updates.combine(
            Updates.set("status", next.name()),
            Updates.set("attempts", counted),
            Updates.set("result", sealResult(trackingId, result == null ? "" : result)),
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

  /**
   * Gives a lease back without an attempt (the breaker rejected the replay before the work ran):
   * the attempt its claim counted is taken back.
   */
  public void release(String trackingId, String owner) {
    db.call(
        "release deferred " + trackingId,
        () ->
            db.collection(ControlDatabase.DEFERRED)
                .updateOne(
                    and(eq("_id", trackingId), eq("leaseOwner", owner)),
                    Updates.combine(
                        Updates.inc("attempts", -1),
                        Updates.unset("leaseOwner"),
                        Updates.unset("leaseUntil"))));
  }

  private DeferredRequest fromDocument(Document d) {
    String tracking = d.getString("_id");
    return fromDocument(
        d, cipher.open(SealedPayload.fromDocument(d.get("payload", Document.class)), tracking));
  }

  private DeferredRequest fromDocument(Document d, byte[] payload) {
    String tracking = d.getString("_id");
    return new DeferredRequest(
        tracking,
        BreakerId.parse(d.getString("breakerId")),
        payload,
        DeferredStatus.valueOf(d.getString("status")),
        d.getInteger("attempts", 0),
        openResult(tracking, d.get("result")),
        d.getDate("createdAt").toInstant());
  }

  /**
   * The work's result or error as stored: sealed like the payload when keys are configured (bound
   * to the request: {@code <tracking>|result}), since an error text can quote the request.
   */
  private Object sealResult(String tracking, String result) {
    return cipher.encrypts()
        ? cipher.seal(result.getBytes(StandardCharsets.UTF_8), tracking + "|result").toDocument()
        : result;
  }

  private String openResult(String tracking, Object stored) {
    if (stored instanceof Document sealed) {
      try {
        return new String(
            cipher.open(SealedPayload.fromDocument(sealed), tracking + "|result"),
            StandardCharsets.UTF_8);
      } catch (PayloadCipher.PayloadException e) {
        return "(result does not decrypt: " + e.getMessage() + ")";
      }
    }
    return stored instanceof String s ? s : "";
  }

  @Override
  public Optional<Unserved> unserved(RuntimeException e) {
    return StoreFailures.unserved(e);
  }
}
