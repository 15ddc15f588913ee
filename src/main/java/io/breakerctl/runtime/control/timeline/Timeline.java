package io.breakerctl.runtime.control.timeline;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.gte;
import static com.mongodb.client.model.Filters.in;
import static com.mongodb.client.model.Filters.lt;
import static com.mongodb.client.model.Filters.or;

import com.mongodb.client.model.Sorts;
import io.breakerctl.runtime.control.BreakerPattern;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.ControlException;
import io.breakerctl.runtime.control.audit.AuditAction;
import io.breakerctl.runtime.model.Actor;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.store.BreakerEvent;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.FleetStore;
import io.breakerctl.runtime.store.StoreException;
import io.breakerctl.runtime.store.StoreFutures;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * The timeline of one breaker or a pattern: transitions from MongoDB {@code history} merged with
 * the not yet forwarded tail of each Redis stream (so a {@code force} shows at once), audit records
 * of manual actions that are not transitions themselves, policy versions, notes and gaps (events a
 * stream's cap dropped).
 *
 * <p>Paging is by a cursor that names the last entry's position; an entry's position never changes
 * (a transition keeps its Redis time and identity when the forwarder moves it to MongoDB, and the
 * two copies are merged by identity), so pages neither skip nor repeat while the forwarder writes.
 * Redis is read before MongoDB, and the forwarder stores an event in MongoDB before it marks it
 * forwarded in Redis, so an event moving between the two is seen in at least one of them.
 *
 * <p>With MongoDB down the page comes from the Redis streams alone (every event they still hold),
 * with Redis down from MongoDB alone; either way the page is flagged {@link
 * TimelinePage#partial()}. Overrides are audited in MongoDB too, but their timeline entry is the
 * transition, which carries actor, reason and correlation id.
 */
public final class Timeline {

  private final ControlDatabase db;
  private final FleetStore redis;

  /**
   * A timeline reader.
   *
   * @param db the control plane, or null to read Redis only (pages are then partial)
   * @param redis the breakers' store, or null to read MongoDB only (pages are then partial)
   */
  public Timeline(ControlDatabase db, FleetStore redis) {
    this.db = db;
    this.redis = redis;
  }

  /**
   * Reads one page.
   *
   * @throws IllegalArgumentException when the query's cursor is not one of this reader's
   */
  public TimelinePage page(TimelineQuery q) {
    TimelineKey after = q.cursor().map(TimelineKey::decode).orElse(TimelineKey.START);
    List<String> problems = new ArrayList<>();
    Map<String, TimelineEntry> merged = new HashMap<>();
    List<BreakerId> breakers = null;
    if (redis == null) {
      problems.add("Redis not configured: MongoDB only");
    } else {
      try {
        breakers = StreamTail.breakers(redis, q.pattern());
        for (BreakerId id : breakers) {
          readStream(id, q, after, true, merged);
        }
      } catch (StoreException e) {
        problems.add("Redis unavailable, MongoDB only: " + e.getMessage());
        breakers = null;
      }
    }
    boolean mongo = false;
    if (db == null) {
      problems.add("MongoDB not configured: Redis only");
    } else {
      try {
        readMongo(q, after, merged);
        mongo = true;
      } catch (ControlException e) {
        problems.add("MongoDB unavailable, Redis only: " + e.getMessage());
      }
    }
    if (!mongo && breakers != null) {
      try {
        for (BreakerId id : breakers) {
          readStream(id, q, after, false, merged);
        }
      } catch (StoreException e) {
        problems.add("Redis unavailable: " + e.getMessage());
      }
    }
    List<TimelineEntry> all = new ArrayList<>(merged.values());
    all.sort((a, b) -> a.key().compareTo(b.key()));
    boolean more = all.size() > q.limit();
    List<TimelineEntry> page = more ? all.subList(0, q.limit()) : all;
    Optional<String> cursor =
        page.isEmpty() ? q.cursor() : Optional.of(page.get(page.size() - 1).key().encode());
    boolean answered = mongo || breakers != null;
    return new TimelinePage(page, cursor, more, !problems.isEmpty(), problems, answered);
  }

  /** Reads a stream: only the unforwarded tail, or every event it holds (MongoDB down). */
  private void readStream(
      BreakerId id,
      TimelineQuery q,
      TimelineKey after,
      boolean unforwardedOnly,
      Map<String, TimelineEntry> sink) {
    BreakerSnapshot s = StoreFutures.await(redis.state(id));
    if (!s.exists()) {
      return;
    }
    long dropped = s.eventsDropped() + s.eventsExpired();
    if (dropped > 0) {
      offer(
          TimelineEntries.gap(id.toString(), s.epoch(), dropped, TimelineSource.REDIS),
          q,
          after,
          sink);
    }
    if (!q.wants(TimelineKind.TRANSITION)) {
      return;
    }
    String from = unforwardedOnly ? s.forwarded().orElse("") : "";
    for (BreakerEvent e : StreamTail.after(redis, id, from)) {
      offer(TimelineEntries.fromEvent(e.inEpoch(s.epoch()), TimelineSource.REDIS), q, after, sink);
    }
  }

  private static void offer(
      TimelineEntry e, TimelineQuery q, TimelineKey after, Map<String, TimelineEntry> sink) {
    if (accepts(q, after, e)) {
      sink.merge(e.id(), e, (a, b) -> a.source() == TimelineSource.MONGODB ? a : b);
    }
  }

  static boolean accepts(TimelineQuery q, TimelineKey after, TimelineEntry e) {
    if (!q.wants(e.kind()) || e.key().compareTo(after) <= 0) {
      return false;
    }
    if (q.since().isPresent() && e.at().isBefore(q.since().get())) {
      return false;
    }
    if (q.until().isPresent() && !e.at().isBefore(q.until().get())) {
      return false;
    }
    if (q.state().isPresent() && !e.to().equals(q.state())) {
      return false;
    }
    return q.actor().isEmpty()
        || Actor.matches(e.actor(), q.actor().get())
        || q.actor().get().equals(e.node());
  }

  private void readMongo(TimelineQuery q, TimelineKey after, Map<String, TimelineEntry> sink) {
    BreakerPattern p = q.pattern();
    if (q.wants(TimelineKind.TRANSITION)) {
      scan(
          ControlDatabase.HISTORY,
          p.filter("breakerId"),
          "at",
          TimelineEntries::fromHistory,
          q,
          after,
          sink);
    }
    if (q.wants(TimelineKind.GAP)) {
      scan(
          ControlDatabase.GAPS,
          p.filter("breakerId"),
          "at",
          TimelineEntries::fromGap,
          q,
          after,
          sink);
    }
    if (q.wants(TimelineKind.NOTE)) {
      scan(
          ControlDatabase.NOTES,
          p.filter("breakerId"),
          "at",
          TimelineEntries::fromNote,
          q,
          after,
          sink);
    }
    Bson policies = or(p.filter("policyId"), in("policyId", defaults(p)));
    if (q.wants(TimelineKind.POLICY_VERSION)) {
      scan(
          ControlDatabase.POLICY_VERSIONS,
          policies,
          "createdAt",
          TimelineEntries::fromPolicyVersion,
          q,
          after,
          sink);
    }
    if (q.wants(TimelineKind.AUDIT)) {
      Bson targets = or(p.filter("target"), in("target", defaults(p)));
      scan(ControlDatabase.AUDIT, targets, "at", Timeline::auditEntry, q, after, sink);
    }
  }

  /** An audit record's entry, or null when another entry shows the action. */
  private static TimelineEntry auditEntry(Document d) {
    String action = d.getString("action");
    if (AuditAction.NOTE.name().equals(action)) {
      return null; // the note is its own entry
    }
    boolean override =
        AuditAction.FORCE.name().equals(action) || AuditAction.CLEAR.name().equals(action);
    if (override && d.get("transition") != null) {
      return null; // the transition entry carries actor, reason and correlation id
    }
    return TimelineEntries.fromAudit(d);
  }

  /** The default policy ids that may govern the selected breakers. */
  private static List<String> defaults(BreakerPattern p) {
    List<String> ids = new ArrayList<>(List.of("*:*"));
    p.exact().ifPresent(id -> ids.add(id.caller() + ":*"));
    return ids;
  }

  /**
   * Reads one collection in time order from the cursor's instant, stopping once it holds more than
   * a page of accepted entries and the instant moved past the last of them (entries sharing an
   * instant are all read, so the merge orders them by the full key).
   */
  private void scan(
      String collection,
      Bson selector,
      String timeField,
      Function<Document, TimelineEntry> convert,
      TimelineQuery q,
      TimelineKey after,
      Map<String, TimelineEntry> sink) {
    List<Bson> filters = new ArrayList<>(List.of(selector));
    long from = after.at();
    if (q.since().isPresent()) {
      from = Math.max(from, q.since().get().toEpochMilli());
    }
    if (from != Long.MIN_VALUE) {
      filters.add(gte(timeField, new Date(from)));
    }
    q.until().ifPresent(u -> filters.add(lt(timeField, Date.from(u))));
    db.call(
        "read timeline from " + collection,
        () -> {
          int taken = 0;
          long lastAt = Long.MIN_VALUE;
          for (Document d :
              db.collection(collection)
                  .find(and(filters))
                  .sort(Sorts.ascending(timeField))
                  .batchSize(Math.min(1000, q.limit() + 1))) {
            long at = d.getDate(timeField).getTime();
            if (taken > q.limit() && at > lastAt) {
              break;
            }
            TimelineEntry e = convert.apply(d);
            if (e != null && accepts(q, after, e)) {
              sink.put(e.id(), e);
              taken++;
              lastAt = at;
            }
          }
          return null;
        });
  }
}
