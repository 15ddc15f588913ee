package io.breakerctl.runtime.control.history;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;

import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.Updates;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.TransitionRef;
import io.breakerctl.runtime.control.audit.AuditAction;
import io.breakerctl.runtime.control.audit.AuditLog;
import io.breakerctl.runtime.control.audit.AuditRecord;
import io.breakerctl.runtime.control.policy.PolicyControl;
import io.breakerctl.runtime.control.policy.PolicyStore;
import io.breakerctl.runtime.control.policy.WarmReport;
import io.breakerctl.runtime.control.timeline.StreamTail;
import io.breakerctl.runtime.control.timeline.TimelineEntries;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.TransitionCause;
import io.breakerctl.runtime.store.BreakerEvent;
import io.breakerctl.runtime.store.FleetStore;
import io.breakerctl.runtime.store.ForwardState;
import io.breakerctl.runtime.store.StoreException;
import io.breakerctl.runtime.store.StoreFutures;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.bson.Document;

/**
 * Moves every breaker's stream events into MongoDB {@code history}, idempotently, with a durable
 * cursor per (breaker, epoch) in {@code cursors}; stores the audit of override events (so an audit
 * that rode in the stream while MongoDB was down is not lost); then tells Redis the events are
 * forwarded (which lets it trim them). Safe to run twice or on several processes at once: every
 * write is an upsert keyed by the event's identity or the action's correlation id.
 *
 * <p><b>A pass costs what the events cost.</b> The scripts keep an unforwarded marker per breaker,
 * {@code <prefix>:{<id>}:unfwd}, in the breaker's own slot: the script that appends an event sets
 * it, and the script that moves {@code forwarded} up to the last event deletes it, each atomically
 * with its own write, so the marker exists exactly while events await this forwarder (see {@code
 * prelude.lua}). A pass ({@link #syncOnce}) lists the markers with {@code SCAN MATCH ... TYPE
 * string COUNT 10000} on each master and forwards only those breakers: one HMGET, one XRANGE and
 * the {@code forwarded} script each. Why this design:
 *
 * <ul>
 *   <li>A fleet-wide set of dirty breakers cannot be written by the scripts: a script may touch
 *       only the keys of one cluster slot, and breakers spread over all of them. A set written by
 *       the Java caller after the script would miss the events of a caller that died in between.
 *   <li>The pub/sub messages the scripts publish are lost while the forwarder is disconnected or
 *       changes hands, so they would need the full sweep as a regular backstop; the marker needs it
 *       only for events written before the markers existed.
 *   <li>SCAN still visits every key on the server (Redis CPU grows with the key count, about {@code
 *       keys / 10,000} commands per pass), but the reads, MongoDB work and acks follow the breakers
 *       that changed.
 * </ul>
 *
 * <p>The first pass of a forwarder and then one pass every {@link #FULL_SWEEP_EVERY} sweep every
 * breaker instead (SCAN of the state hashes, one HMGET each): it forwards events that carry no
 * marker, those written by scripts older than the marker or by a caller that passed no marker key.
 * The runtime keeps one forwarder per store, so its passes are marker passes; {@code breakerctl
 * history sync} runs one full sweep. src/docs/performance.md has the commands per pass.
 *
 * <p>Every pass ends by putting back the overrides MongoDB holds live that Redis lost (a failover
 * to a replica that missed them), whether or not a node uses the breaker: {@link OverrideGuard}.
 */
public final class HistoryForwarder {

  /** Events read per Redis call. */
  public static final int BATCH = StreamTail.BATCH;

  /** How often {@link #syncOnce} sweeps every breaker rather than the marked ones. */
  public static final Duration FULL_SWEEP_EVERY = Duration.ofMinutes(10);

  /** Reads in flight at once during a full sweep. */
  private static final int SWEEP_WINDOW = 256;

  private final ControlDatabase db;
  private final FleetStore redis;
  private final AuditLog audit;
  private final String actor;
  private final Clock clock;
  private final Duration retention;
  private final Deployments deployments;
  private Instant lastFullSweep;
  private volatile String deployment;

  /**
   * A forwarder that prunes documents older than {@link HistoryRetention#DEFAULT_MAX_AGE}.
   *
   * @param actor the node or user running it (recorded by the forwarded script)
   */
  public HistoryForwarder(ControlDatabase db, FleetStore redis, String actor, Clock clock) {
    this(db, redis, actor, clock, HistoryRetention.DEFAULT_MAX_AGE);
  }

  /**
   * A forwarder.
   *
   * @param actor the node or user running it (recorded by the forwarded script)
   * @param retention history, audit, notes and gaps older than this are pruned, one bounded batch
   *     per pass (each breaker's newest transition is kept)
   */
  public HistoryForwarder(
      ControlDatabase db, FleetStore redis, String actor, Clock clock, Duration retention) {
    if (retention.isNegative() || retention.isZero()) {
      throw new IllegalArgumentException("retention must be > 0 but was " + retention);
    }
    this.db = db;
    this.redis = redis;
    this.audit = new AuditLog(db);
    this.actor = actor;
    this.clock = clock;
    this.retention = retention;
    this.deployments = new Deployments(db);
  }

  /**
   * Forwards the events of every breaker in Redis: those marked unforwarded, or, on the first pass
   * and every {@link #FULL_SWEEP_EVERY}, every breaker. A breaker that fails is reported and
   * retried on the next pass; the others proceed.
   *
   * @throws io.breakerctl.runtime.store.StoreException when the breakers cannot be listed
   */
  public synchronized SyncResult syncOnce() {
    Instant now = clock.instant();
    boolean full = lastFullSweep == null || !now.isBefore(lastFullSweep.plus(FULL_SWEEP_EVERY));
    SyncResult r = full ? sweep(true) : sweep(false);
    if (full && r.failures().isEmpty()) {
      lastFullSweep = now;
    }
    return r;
  }

  /**
   * Forwards the events of every breaker in Redis, reading each breaker's cursor fields (a full
   * sweep; {@link #syncOnce} runs one now and then).
   *
   * @throws io.breakerctl.runtime.store.StoreException when the breakers cannot be listed
   */
  public SyncResult syncAll() {
    return sweep(true);
  }

  private SyncResult sweep(boolean full) {
    boolean lost = deployment != null && lostItsData();
    if (full || deployment == null || lost) {
      identify();
    }
    List<String> failures = new ArrayList<>();
    if (lost) {
      failures.addAll(rewarm());
    }
    List<BreakerId> ids = new ArrayList<>();
    if (full) {
      redis.forEachBreaker(ids::add);
    } else {
      redis.forEachUnforwarded(ids::add);
    }
    int events = 0;
    int audits = 0;
    for (int from = 0; from < ids.size(); from += SWEEP_WINDOW) {
      List<BreakerId> chunk = ids.subList(from, Math.min(ids.size(), from + SWEEP_WINDOW));
      List<CompletableFuture<ForwardState>> reads = new ArrayList<>(chunk.size());
      for (BreakerId id : chunk) {
        reads.add(redis.forwardState(id));
      }
      for (int i = 0; i < chunk.size(); i++) {
        BreakerId id = chunk.get(i);
        try {
          ForwardState st = StoreFutures.await(reads.get(i));
          if (!full || st.pending()) {
            int[] n = forward(id, st);
            events += n[0];
            audits += n[1];
          }
        } catch (RuntimeException e) {
          failures.add(id + ": " + e.getMessage());
        }
      }
    }
    List<String> reasserted = new ArrayList<>();
    try {
      for (BreakerId id :
          new OverrideGuard(db, redis, actor).reassertLost(deployment, clock.instant(), failures)) {
        reasserted.add(id.toString());
        // its REASSERTED event goes to history now: the timeline says who put it back
        int[] n = forward(id, StoreFutures.await(redis.forwardState(id)));
        events += n[0];
      }
    } catch (RuntimeException e) {
      failures.add("overrides in force: " + e.getMessage());
    }
    try {
      new HistoryRetention(db).pruneBatch(clock.instant().minus(retention));
    } catch (RuntimeException e) {
      failures.add("retention: " + e.getMessage());
    }
    return new SyncResult(ids.size(), events, audits, failures, reasserted);
  }

  /**
   * Forwards the events of one breaker (the runtime's hand-off of a transition it won).
   *
   * @return the events and audit records newly stored
   * @throws RuntimeException when Redis or MongoDB fails; the next pass retries
   */
  public SyncResult syncBreaker(BreakerId id) {
    if (deployment == null) {
      identify();
    }
    int[] n = forward(id, StoreFutures.await(redis.forwardState(id)));
    return new SyncResult(1, n[0], n[1], List.of(), List.of());
  }

  /**
   * Whether the Redis this forwarder identified lost its data since: its deployment key is gone
   * (FLUSHALL, an empty replica promoted). One GET per pass; a read that fails says no.
   */
  private boolean lostItsData() {
    try {
      return StoreFutures.await(redis.deployment()).isEmpty();
    } catch (RuntimeException e) {
      return false;
    }
  }

  /**
   * Warms every policy MongoDB holds in force back into the breakers it governs, once a pass found
   * the Redis lost its data: running nodes put back what they run, this what only MongoDB holds (a
   * breaker no running node holds). Failures are returned, never thrown.
   */
  private List<String> rewarm() {
    List<String> failed = new ArrayList<>();
    try {
      PolicyControl control = new PolicyControl(db, redis, clock);
      for (var p : new PolicyStore(db).allInForce(clock.instant()).keySet()) {
        for (WarmReport w : control.warm(p)) {
          if (!w.ok()) {
            failed.add("warm " + w.breakerId() + ": " + w.error());
          }
        }
      }
    } catch (RuntimeException e) {
      failed.add("warm after data loss: " + e.getMessage());
    }
    return failed;
  }

  /**
   * Finds (or sets) the identity of the Redis this forwarder reads, which every history document it
   * stores carries ({@link Deployments}). A Redis or an identity that refuses it (an ACL without
   * SET, say) leaves the documents without one, as before identities existed, and is tried again at
   * the next full sweep.
   */
  private void identify() {
    try {
      deployment = deployments.ensure(redis, clock);
    } catch (StoreException e) {
      // history is still forwarded; the documents carry no identity until a sweep sets one
    }
  }

  /** The identity stored history documents carry, null while none is known. */
  String deployment() {
    return deployment;
  }

  /** Forwards one breaker's events; returns {newly stored events, newly stored audits}. */
  private int[] forward(BreakerId id, ForwardState st) {
    String epoch = st.epoch();
    if (epoch.isEmpty()) {
      // no keys: an ack deletes a marker left behind (keys deleted by hand); nothing to forward
      StoreFutures.await(redis.markForwarded(id, "", "0-0", actor));
      return new int[2];
    }
    if (st.lost() > 0) {
      recordGap(id, epoch, st.lost());
    }
    String cursorId = id + "|" + epoch;
    Document cursor =
        db.call(
            "read cursor " + cursorId,
            () -> db.collection(ControlDatabase.CURSORS).find(eq("_id", cursorId)).first());
    String stored = cursor == null ? "" : cursor.getString("lastStreamId");
    String after = later(stored, st.forwarded());
    String cas = stored; // what the cursor document holds ("" when there is none yet)
    if (!after.equals(st.forwarded()) || (after.equals(st.lastEvent()) && !after.isEmpty())) {
      // MongoDB already holds events Redis was not told of (a forwarder stopped between the two),
      // or a marker outlived its events (an older forwarded script): tell Redis, which trims the
      // stream and drops the marker
      StoreFutures.await(redis.markForwarded(id, epoch, after, actor));
    }
    int events = 0;
    int audits = 0;
    while (!after.equals(st.lastEvent())) {
      List<BreakerEvent> batch = StoreFutures.await(redis.eventsAfter(id, after, BATCH));
      if (batch.isEmpty()) {
        // nothing past the cursor although Redis says events await: the stream went on its own
        // (evicted). The ack of the cursor lets forwarded.lua count them (eventsDropped), the keys
        // are no longer held for them, and the gap is recorded now (the ack drops the marker, so
        // no later marker pass visits this breaker)
        StoreFutures.await(redis.markForwarded(id, epoch, after.isEmpty() ? "0-0" : after, actor));
        long dropped = StoreFutures.await(redis.forwardState(id)).eventsDropped();
        if (dropped > st.eventsDropped()) {
          recordGap(id, epoch, dropped);
        }
        break;
      }
      for (BreakerEvent e : batch) {
        String evEpoch = e.epoch().isEmpty() ? epoch : e.epoch();
        TransitionRef ref = new TransitionRef(id, evEpoch, e.streamId());
        if (storeHistory(ref, e)) {
          events++;
        }
        Optional<AuditRecord> a = auditOf(ref, e);
        if (a.isPresent() && audit.record(a.get())) {
          audits++;
        }
      }
      String last = batch.get(batch.size() - 1).streamId();
      advanceCursor(cursorId, id, epoch, cas, last);
      cas = last;
      StoreFutures.await(redis.markForwarded(id, epoch, last, actor));
      after = last;
      if (batch.size() < BATCH) {
        break;
      }
    }
    return new int[] {events, audits};
  }

  /**
   * Records that the stream of (breaker, epoch) lost {@code dropped} unforwarded events, at its cap
   * or given up when the history hold ended (the count only grows), so the timeline shows a gap
   * instead of losing them silently.
   */
  private void recordGap(BreakerId id, String epoch, long dropped) {
    String key = id + "|" + epoch;
    db.call(
        "record gap " + key,
        () ->
            db.collection(ControlDatabase.GAPS)
                .updateOne(
                    eq("_id", key),
                    Updates.combine(
                        Updates.setOnInsert("breakerId", id.toString()),
                        Updates.setOnInsert("epoch", epoch),
                        Updates.setOnInsert(
                            "at", new Date(TimelineEntries.epochStartMillis(epoch))),
                        Updates.max("dropped", dropped)),
                    new UpdateOptions().upsert(true)));
  }

  private boolean storeHistory(TransitionRef ref, BreakerEvent e) {
    Document fields = new Document();
    e.fields().forEach(fields::append);
    Document doc =
        new Document("breakerId", ref.breakerId().toString())
            .append("epoch", ref.epoch())
            .append("streamId", ref.streamId())
            .append("at", new Date(e.atMillis()))
            .append("from", e.fromText())
            .append("to", e.toText())
            .append("cause", e.causeText())
            .append("fields", fields)
            .append("storedAt", Date.from(clock.instant()));
    // a malformed entry (BreakerEvent.problem) is kept, as evidence, but marked: the timeline shows
    // it as MALFORMED, replay skips it, and no reader takes it for a transition
    e.problem().ifPresent(p -> doc.append("malformed", p));
    String from = deployment;
    if (from != null) {
      doc.append("deployment", from);
    }
    return db.call(
        "store history " + ref.key(),
        () -> {
          List<org.bson.conversions.Bson> set = new ArrayList<>();
          doc.forEach((k, v) -> set.add(Updates.setOnInsert(k, v)));
          try {
            return db.collection(ControlDatabase.HISTORY)
                    .updateOne(
                        eq("_id", ref.key()),
                        Updates.combine(set),
                        new UpdateOptions().upsert(true))
                    .getUpsertedId()
                != null;
          } catch (RuntimeException ex) {
            if (ControlDatabase.isDuplicateKey(ex)) {
              return false; // another forwarder stored it at the same moment
            }
            throw ex;
          }
        });
  }

  /** The audit record an override event carries, empty for other events. */
  static Optional<AuditRecord> auditOf(TransitionRef ref, BreakerEvent e) {
    if (e.problem().isPresent()) {
      return Optional.empty(); // no override action can be read from it
    }
    TransitionCause cause = e.cause(); // a name of one: the event has no problem
    AuditAction action;
    if (cause == TransitionCause.OVERRIDE_SET || cause == TransitionCause.OVERRIDE_UPDATED) {
      action = AuditAction.FORCE;
    } else if (cause == TransitionCause.OVERRIDE_CLEARED) {
      action = AuditAction.CLEAR;
    } else {
      return Optional.empty();
    }
    String corr = e.correlationId();
    if (corr.isEmpty()) {
      corr = "stream:" + ref.key();
    }
    long until = e.until();
    Map<String, Object> after = new LinkedHashMap<>();
    after.put("state", e.toText());
    if (action == AuditAction.FORCE) {
      after.put("override", e.toText());
    }
    return Optional.of(
        new AuditRecord(
            corr,
            action,
            ref.breakerId().toString(),
            e.actor(),
            e.reason(),
            // the stream id's Redis time, as the CLI stamps the audit it stores itself
            TransitionRef.redisTime(e.streamId()).orElse(Instant.ofEpochMilli(e.atMillis())),
            until > 0 ? Optional.of(Instant.ofEpochMilli(until)) : Optional.empty(),
            Map.of("state", e.fromText()),
            after,
            Optional.of(ref)));
  }

  private void advanceCursor(
      String cursorId, BreakerId id, String epoch, String expected, String last) {
    db.call(
        "advance cursor " + cursorId,
        () -> {
          var update =
              Updates.combine(
                  Updates.set("lastStreamId", last),
                  Updates.set("breakerId", id.toString()),
                  Updates.set("epoch", epoch),
                  Updates.set("updatedAt", Date.from(clock.instant())));
          try {
            if (expected.isEmpty()) {
              db.collection(ControlDatabase.CURSORS)
                  .updateOne(eq("_id", cursorId), update, new UpdateOptions().upsert(true));
            } else {
              // compare-and-set: a concurrent forwarder that moved it further wins
              db.collection(ControlDatabase.CURSORS)
                  .updateOne(and(eq("_id", cursorId), eq("lastStreamId", expected)), update);
            }
          } catch (RuntimeException ex) {
            if (!ControlDatabase.isDuplicateKey(ex)) {
              throw ex;
            }
          }
          return null;
        });
  }

  /** The later of two stream ids ({@code ms-seq}); empty counts as the start. */
  static String later(String a, String b) {
    if (a == null || a.isEmpty()) {
      return b == null ? "" : b;
    }
    if (b == null || b.isEmpty()) {
      return a;
    }
    String[] x = a.split("-");
    String[] y = b.split("-");
    int c = Long.compare(Long.parseLong(x[0]), Long.parseLong(y[0]));
    if (c == 0) {
      c = Long.compare(Long.parseLong(x[1]), Long.parseLong(y[1]));
    }
    return c >= 0 ? a : b;
  }
}
