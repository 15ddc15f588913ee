package io.breakerctl.runtime.control.audit;

import static com.mongodb.client.model.Filters.eq;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Sorts;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.Updates;
import com.mongodb.client.result.UpdateResult;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.TransitionRef;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * The audit trail of manual actions in MongoDB ({@code audit}, unique by correlation id). Writing
 * is idempotent: the same correlation id stored twice (by the CLI, then by the forwarder from the
 * event stream) leaves one record.
 */
public final class AuditLog {

  private final ControlDatabase db;

  /** An audit log on {@code db}. */
  public AuditLog(ControlDatabase db) {
    this.db = db;
  }

  private MongoCollection<Document> audit() {
    return db.collection(ControlDatabase.AUDIT);
  }

  /**
   * Stores a record unless one with its correlation id exists; the link to the transition is set
   * either way when the record carries one.
   *
   * @return true when the record was inserted, false when it existed
   * @throws io.breakerctl.runtime.control.ControlUnavailableException when MongoDB is down (the
   *     caller decides what rides on)
   */
  public boolean record(AuditRecord r) {
    return db.call(
        "store audit " + r.correlationId(),
        () -> {
          Document doc = r.toDocument();
          List<Bson> updates = new ArrayList<>();
          for (Map.Entry<String, Object> e : doc.entrySet()) {
            if (!e.getKey().equals("transition") && !e.getKey().equals("correlationId")) {
              updates.add(Updates.setOnInsert(e.getKey(), e.getValue()));
            }
          }
          if (doc.containsKey("transition")) {
            updates.add(Updates.set("transition", doc.get("transition")));
          }
          for (int attempt = 0; ; attempt++) {
            try {
              UpdateResult u =
                  audit()
                      .updateOne(
                          eq("correlationId", r.correlationId()),
                          Updates.combine(updates),
                          new UpdateOptions().upsert(true));
              return u.getUpsertedId() != null;
            } catch (RuntimeException e) {
              // two upserts raced on the unique index: the other inserted, ours now updates
              if (attempt == 0 && ControlDatabase.isDuplicateKey(e)) {
                continue;
              }
              throw e;
            }
          }
        });
  }

  /** Links an existing record to the transition it caused. */
  public void link(String correlationId, TransitionRef transition) {
    db.call(
        "link audit " + correlationId,
        () ->
            audit()
                .updateOne(
                    eq("correlationId", correlationId),
                    Updates.set("transition", transition.toDocument())));
  }

  /** The record with this correlation id. */
  public Optional<AuditRecord> find(String correlationId) {
    return db.call(
        "read audit " + correlationId,
        () ->
            Optional.ofNullable(audit().find(eq("correlationId", correlationId)).first())
                .map(AuditRecord::fromDocument));
  }

  /** Records about one breaker or policy id, oldest first. */
  public List<AuditRecord> forTarget(String target) {
    return db.call(
        "read audit of " + target,
        () -> {
          List<AuditRecord> out = new ArrayList<>();
          for (Document d : audit().find(eq("target", target)).sort(Sorts.ascending("at"))) {
            out.add(AuditRecord.fromDocument(d));
          }
          return out;
        });
  }
}
