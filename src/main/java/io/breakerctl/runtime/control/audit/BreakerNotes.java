package io.breakerctl.runtime.control.audit;

import static com.mongodb.client.model.Filters.eq;

import com.mongodb.client.model.Sorts;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OperatorText;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.bson.Document;

/** Operators' notes on breakers ({@code notes}); each note is also an audited action. */
public final class BreakerNotes {

  /** The longest note accepted, in characters. */
  public static final int MAX_LENGTH = 10_000;

  private final ControlDatabase db;
  private final AuditLog audit;
  private final Clock clock;

  /** Notes on {@code db}. */
  public BreakerNotes(ControlDatabase db, Clock clock) {
    this.db = db;
    this.audit = new AuditLog(db);
    this.clock = clock;
  }

  /**
   * Adds a note.
   *
   * @throws IllegalArgumentException when the actor or text is empty, too long or holds a control
   *     character ({@link OperatorText})
   */
  public BreakerNote add(BreakerId breakerId, String actor, String text) {
    OperatorText.require("note actor", actor, OperatorText.MAX_ACTOR_BYTES);
    OperatorText.require("note text", text, Integer.MAX_VALUE);
    if (text.length() > MAX_LENGTH) {
      throw new IllegalArgumentException(
          "note text must be at most " + MAX_LENGTH + " characters but was " + text.length());
    }
    BreakerNote note =
        new BreakerNote(UUID.randomUUID().toString(), breakerId, actor, clock.instant(), text);
    db.call(
        "add note on " + breakerId,
        () ->
            db.collection(ControlDatabase.NOTES)
                .insertOne(
                    new Document("_id", note.id())
                        .append("breakerId", breakerId.toString())
                        .append("actor", actor)
                        .append("at", Date.from(note.at()))
                        .append("text", text)));
    audit.record(
        new AuditRecord(
            note.id(),
            AuditAction.NOTE,
            breakerId.toString(),
            actor,
            text.length() > 200 ? text.substring(0, 200) + "..." : text,
            note.at(),
            Optional.empty(),
            Map.of(),
            Map.of("noteId", note.id()),
            Optional.empty()));
    return note;
  }

  /** Every note on a breaker, oldest first. */
  public List<BreakerNote> list(BreakerId breakerId) {
    return db.call(
        "read notes of " + breakerId,
        () -> {
          List<BreakerNote> out = new ArrayList<>();
          for (Document d :
              db.collection(ControlDatabase.NOTES)
                  .find(eq("breakerId", breakerId.toString()))
                  .sort(Sorts.ascending("at"))) {
            out.add(
                new BreakerNote(
                    d.getString("_id"),
                    breakerId,
                    d.getString("actor"),
                    d.getDate("at").toInstant(),
                    d.getString("text")));
          }
          return out;
        });
  }
}
