package io.breakerctl.runtime.control.history;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.in;
import static com.mongodb.client.model.Filters.lt;

import com.mongodb.client.model.Projections;
import com.mongodb.client.model.Sorts;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.timeline.TimelineKey;
import io.breakerctl.runtime.fallback.DeferredStatus;
import io.breakerctl.runtime.fallback.SnapshotStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bson.Document;

/**
 * Prunes history, audit records, notes, gaps, fallback snapshots that expired (or were revoked)
 * before a cut-off and deferred requests finished (DONE, FAILED, quarantined) before it, in bounded
 * batches, keeping each breaker's newest transition (replay and restore start from it). The
 * forwarder prunes one batch per collection per pass with the configured age ({@link
 * #DEFAULT_MAX_AGE} by default); operators call {@link #prune(Instant)}. TTL indexes are not relied
 * on: this is what removes old documents.
 */
public final class HistoryRetention {

  /** The default age beyond which documents are pruned: 90 days. */
  public static final Duration DEFAULT_MAX_AGE = Duration.ofDays(90);

  /** Documents removed per collection per batch. */
  public static final int BATCH = 500;

  private final ControlDatabase db;
  private final int batch;

  /** Retention on {@code db} with batches of {@link #BATCH}. */
  public HistoryRetention(ControlDatabase db) {
    this(db, BATCH);
  }

  /**
   * Retention on {@code db}.
   *
   * @param batch documents removed per collection per batch, at least 1
   */
  public HistoryRetention(ControlDatabase db, int batch) {
    if (batch < 1) {
      throw new IllegalArgumentException("retention batch must be >= 1 but was " + batch);
    }
    this.db = db;
    this.batch = batch;
  }

  /**
   * What one prune removed.
   *
   * @param history transitions removed
   * @param audit audit records removed
   * @param notes notes removed
   * @param gaps gap records removed
   * @param snapshots fallback snapshots removed (expired before the cut-off, or revoked and
   *     captured before it)
   * @param deferred deferred requests removed (finished before the cut-off; pending ones stay)
   * @param kept breakers whose newest transition was kept among old ones
   * @param done whether nothing older than the cut-off is left to remove
   */
  public record Pruned(
      long history,
      long audit,
      long notes,
      long gaps,
      long snapshots,
      long deferred,
      long kept,
      boolean done) {
    Pruned plus(Pruned o) {
      return new Pruned(
          history + o.history,
          audit + o.audit,
          notes + o.notes,
          gaps + o.gaps,
          snapshots + o.snapshots,
          deferred + o.deferred,
          Math.max(kept, o.kept),
          o.done);
    }
  }

  /**
   * Removes everything older than {@code before}, batch after batch, except each breaker's newest
   * transition.
   *
   * @throws io.breakerctl.runtime.control.ControlUnavailableException when MongoDB is down (batches
   *     already done stay done)
   */
  public Pruned prune(Instant before) {
    Pruned total = new Pruned(0, 0, 0, 0, 0, 0, 0, false);
    Map<String, Object> newest = new HashMap<>();
    while (!total.done()) {
      total = total.plus(batch(before, newest));
    }
    return total;
  }

  /** One bounded batch per collection (what the forwarder runs per pass). */
  public Pruned pruneBatch(Instant before) {
    return batch(before, new HashMap<>());
  }

  private Pruned batch(Instant before, Map<String, Object> newest) {
    Date cut = Date.from(before);
    long[] history = pruneHistory(cut, newest);
    long audit = pruneOlder(ControlDatabase.AUDIT, "at", cut);
    long notes = pruneOlder(ControlDatabase.NOTES, "at", cut);
    long gaps = pruneOlder(ControlDatabase.GAPS, "at", cut);
    long snapshots =
        prune(
            ControlDatabase.SNAPSHOTS,
            com.mongodb.client.model.Filters.or(
                lt("expiresAt", cut),
                and(eq("status", SnapshotStatus.REVOKED.name()), lt("capturedAt", cut))));
    long deferred =
        prune(
            ControlDatabase.DEFERRED,
            and(
                in("status", DeferredStatus.DONE.name(), DeferredStatus.FAILED.name()),
                lt("updatedAt", cut)));
    boolean done =
        history[1] == 1
            && audit < batch
            && notes < batch
            && gaps < batch
            && snapshots < batch
            && deferred < batch;
    return new Pruned(history[0], audit, notes, gaps, snapshots, deferred, newest.size(), done);
  }

  /**
   * Deletes up to one batch of old transitions, skipping each breaker's newest; reads old documents
   * in time order until a batch is found or none is left (so kept documents never stall it).
   * Returns {removed, 1 when no old document is left beyond them}.
   */
  private long[] pruneHistory(Date cut, Map<String, Object> newest) {
    return db.call(
        "prune history",
        () -> {
          List<Object> ids = new ArrayList<>();
          boolean exhausted = true;
          for (Document d :
              db.collection(ControlDatabase.HISTORY)
                  .find(lt("at", cut))
                  .projection(Projections.include("breakerId"))
                  .sort(Sorts.ascending("at"))
                  .batchSize(batch)) {
            if (ids.size() == batch) {
              exhausted = false;
              break;
            }
            Object keep = newest.computeIfAbsent(d.getString("breakerId"), this::newest);
            if (!keep.equals(d.get("_id"))) {
              ids.add(d.get("_id"));
            }
          }
          if (!ids.isEmpty()) {
            db.collection(ControlDatabase.HISTORY).deleteMany(in("_id", ids));
          }
          return new long[] {ids.size(), exhausted ? 1 : 0};
        });
  }

  /** The id of a breaker's newest transition (Redis time, then epoch and stream id). */
  private Object newest(String breakerId) {
    Document top =
        db.collection(ControlDatabase.HISTORY)
            .find(eq("breakerId", breakerId))
            .projection(Projections.include("at"))
            .sort(Sorts.descending("at"))
            .first();
    List<Document> same = new ArrayList<>();
    db.collection(ControlDatabase.HISTORY)
        .find(and(eq("breakerId", breakerId), eq("at", top.getDate("at"))))
        .projection(Projections.include("breakerId", "epoch", "streamId", "at"))
        .into(same);
    Document best = same.get(0);
    for (Document d : same) {
      if (key(d).compareTo(key(best)) > 0) {
        best = d;
      }
    }
    return best.get("_id");
  }

  private static TimelineKey key(Document d) {
    return new TimelineKey(
        d.getDate("at").getTime(), d.getString("epoch"), d.getString("streamId"), "");
  }

  private long pruneOlder(String collection, String field, Date cut) {
    return prune(collection, lt(field, cut));
  }

  /** Deletes up to one batch of the documents {@code filter} selects. */
  private long prune(String collection, org.bson.conversions.Bson filter) {
    return db.call(
        "prune " + collection,
        () -> {
          List<Object> ids = new ArrayList<>();
          for (Document d :
              db.collection(collection)
                  .find(filter)
                  .projection(Projections.include("_id"))
                  .limit(batch)) {
            ids.add(d.get("_id"));
          }
          if (!ids.isEmpty()) {
            db.collection(collection).deleteMany(in("_id", ids));
          }
          return (long) ids.size();
        });
  }
}
