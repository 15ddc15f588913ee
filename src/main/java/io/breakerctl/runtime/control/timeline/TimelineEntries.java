package io.breakerctl.runtime.control.timeline;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.store.BreakerEvent;
import java.time.Instant;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.StringJoiner;
import org.bson.Document;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;

/** Builds timeline entries from stream events and control-plane documents. */
public final class TimelineEntries {
  private TimelineEntries() {}

  /** Event fields that have their own entry component; the rest are counts. */
  private static final Set<String> OWN =
      Set.of(
          "epoch",
          "from",
          "to",
          "cause",
          "policyId",
          "policyVersion",
          "node",
          "lease",
          "actor",
          "reason",
          "correlationId",
          "at");

  private static final JsonWriterSettings JSON =
      JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();

  /**
   * A stored value as an operator reads it: a nested document or list as JSON, a date as an ISO
   * instant, never a Java {@code toString()} ({@code Document{{...}}} in the history table of a
   * policy change's audit, whose spec is a nested document).
   */
  static String text(Object v) {
    if (v instanceof Document d) {
      return d.toJson(JSON);
    }
    if (v instanceof Date t) {
      return t.toInstant().toString();
    }
    if (v instanceof List<?> l) {
      StringJoiner j = new StringJoiner(", ", "[", "]");
      l.forEach(x -> j.add(x instanceof String str ? '"' + str + '"' : text(x)));
      return j.toString();
    }
    return String.valueOf(v);
  }

  /** The cause a malformed event shows ({@link BreakerEvent#problem()}); no transition's name. */
  static final String MALFORMED = "MALFORMED";

  /**
   * The entry of a stream event. A malformed event ({@link BreakerEvent#problem()}) is shown as it
   * is: cause {@link #MALFORMED}, no states (a {@code --state} filter never selects it), every
   * field it holds and what is wrong with it as its counts.
   */
  static TimelineEntry fromEvent(BreakerEvent e, TimelineSource source) {
    Optional<String> problem = e.problem();
    Map<String, String> f = e.fields();
    Map<String, String> counts = new LinkedHashMap<>();
    if (problem.isPresent()) {
      counts.putAll(new java.util.TreeMap<>(f));
      counts.put("problem", problem.get()); // (over a field of that name the entry may hold)
    } else {
      f.forEach(
          (k, v) -> {
            if (!OWN.contains(k)) {
              counts.put(k, v);
            }
          });
    }
    boolean ok = problem.isEmpty();
    String epoch = e.epoch();
    return new TimelineEntry(
        TimelineKind.TRANSITION,
        e.id() + "|" + epoch + "|" + e.streamId(),
        e.id().toString(),
        Instant.ofEpochMilli(e.atMillis()),
        epoch,
        e.streamId(),
        ok ? Optional.of(e.from()) : Optional.empty(),
        ok ? Optional.of(e.to()) : Optional.empty(),
        ok ? e.causeText() : MALFORMED,
        counts,
        e.policyId(),
        e.policyVersion(),
        e.node(),
        e.lease(),
        e.actor(),
        e.reason(),
        e.correlationId(),
        source);
  }

  /** The event a history document stores. */
  public static BreakerEvent eventOf(Document d) {
    Map<String, String> fields = new LinkedHashMap<>();
    Document stored = d.get("fields", Document.class);
    if (stored != null) {
      stored.forEach((k, v) -> fields.put(k, text(v)));
    }
    fields.putIfAbsent("epoch", d.getString("epoch"));
    return new BreakerEvent(
        BreakerId.parse(d.getString("breakerId")), d.getString("streamId"), fields);
  }

  static TimelineEntry fromHistory(Document d) {
    return fromEvent(eventOf(d), TimelineSource.MONGODB);
  }

  static TimelineEntry fromAudit(Document d) {
    Map<String, String> counts = new LinkedHashMap<>();
    Document after = d.get("after", Document.class);
    if (after != null) {
      after.forEach((k, v) -> counts.put(k, text(v)));
    }
    Date exp = d.getDate("expiresAt");
    if (exp != null) {
      counts.put("expiresAt", Long.toString(exp.getTime()));
    }
    String corr = d.getString("correlationId");
    return new TimelineEntry(
        TimelineKind.AUDIT,
        "audit|" + corr,
        d.getString("target"),
        d.getDate("at").toInstant(),
        "",
        "",
        Optional.empty(),
        Optional.empty(),
        d.getString("action"),
        counts,
        "",
        0,
        "",
        "",
        d.get("actor", ""),
        d.get("reason", ""),
        corr,
        TimelineSource.MONGODB);
  }

  static TimelineEntry fromNote(Document d) {
    String id = d.getString("_id");
    return new TimelineEntry(
        TimelineKind.NOTE,
        "note|" + id,
        d.getString("breakerId"),
        d.getDate("at").toInstant(),
        "",
        "",
        Optional.empty(),
        Optional.empty(),
        "",
        Map.of(),
        "",
        0,
        "",
        "",
        d.get("actor", ""),
        d.get("text", ""),
        id,
        TimelineSource.MONGODB);
  }

  static TimelineEntry fromPolicyVersion(Document d) {
    String policyId = d.getString("policyId");
    long version = ((Number) d.get("version")).longValue();
    Map<String, String> counts = new LinkedHashMap<>();
    for (String k : new String[] {"rollbackOf", "revertOf", "deleted"}) {
      if (d.get(k) != null) {
        counts.put(k, text(d.get(k)));
      }
    }
    return new TimelineEntry(
        TimelineKind.POLICY_VERSION,
        "policy|" + policyId + "|" + version,
        policyId,
        d.getDate("createdAt").toInstant(),
        "",
        "",
        Optional.empty(),
        Optional.empty(),
        "",
        counts,
        policyId,
        version,
        "",
        "",
        d.get("author", ""),
        d.get("reason", ""),
        d.get("correlationId", ""),
        TimelineSource.MONGODB);
  }

  /**
   * A gap: {@code dropped} events of incarnation {@code epoch} dropped by the stream's cap or lost
   * with an evicted stream. It sits at the start of its epoch (the epoch is the keys' creation time
   * in microseconds), a position that is the same whether read from Redis or MongoDB.
   */
  static TimelineEntry gap(String breakerId, String epoch, long dropped, TimelineSource source) {
    return new TimelineEntry(
        TimelineKind.GAP,
        "gap|" + breakerId + "|" + epoch,
        breakerId,
        Instant.ofEpochMilli(epochStartMillis(epoch)),
        epoch,
        "",
        Optional.empty(),
        Optional.empty(),
        "",
        Map.of("dropped", Long.toString(dropped)),
        "",
        0,
        "",
        "",
        "",
        "",
        "",
        source);
  }

  static TimelineEntry fromGap(Document d) {
    return gap(
        d.getString("breakerId"),
        d.getString("epoch"),
        ((Number) d.get("dropped")).longValue(),
        TimelineSource.MONGODB);
  }

  /** The creation time of the keys of an epoch (Redis microseconds when created), in ms. */
  public static long epochStartMillis(String epoch) {
    long micros = number(epoch);
    return micros / 1000;
  }

  /** A decimal field's value, 0 when it is empty or not a number. */
  public static long number(String s) {
    try {
      return s == null || s.isEmpty() ? 0 : Long.parseLong(s);
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
