package io.breakerctl.runtime.control.audit;

import io.breakerctl.runtime.control.TransitionRef;
import java.time.Instant;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.bson.Document;

/**
 * One audited manual action.
 *
 * @param correlationId unique id of the action; links it to the transition or version it caused
 * @param action what was done
 * @param target the breaker id or policy id acted on
 * @param actor who acted
 * @param reason why
 * @param at when
 * @param expiresAt when the action's effect ends (an override's or temporary policy's expiry)
 * @param before the relevant state before (e.g. {@code state}, {@code version}, {@code spec})
 * @param after the relevant state after
 * @param transition the transition the action caused, when it caused one
 */
public record AuditRecord(
    String correlationId,
    AuditAction action,
    String target,
    String actor,
    String reason,
    Instant at,
    Optional<Instant> expiresAt,
    Map<String, Object> before,
    Map<String, Object> after,
    Optional<TransitionRef> transition) {

  /** Validates and copies. */
  public AuditRecord {
    if (correlationId == null || correlationId.isBlank()) {
      throw new IllegalArgumentException("audit correlationId must not be empty");
    }
    Objects.requireNonNull(action, "action");
    Objects.requireNonNull(target, "target");
    actor = actor == null ? "" : actor;
    reason = reason == null ? "" : reason;
    Objects.requireNonNull(at, "at");
    expiresAt = expiresAt == null ? Optional.empty() : expiresAt;
    before = before == null ? Map.of() : new LinkedHashMap<>(before);
    after = after == null ? Map.of() : new LinkedHashMap<>(after);
    transition = transition == null ? Optional.empty() : transition;
  }

  Document toDocument() {
    Document d =
        new Document("correlationId", correlationId)
            .append("action", action.name())
            .append("target", target)
            .append("actor", actor)
            .append("reason", reason)
            .append("at", Date.from(at))
            .append("expiresAt", expiresAt.map(Date::from).orElse(null))
            .append("before", new Document(before))
            .append("after", new Document(after));
    transition.ifPresent(t -> d.append("transition", t.toDocument()));
    return d;
  }

  /** The record a stored audit document holds. */
  public static AuditRecord fromDocument(Document d) {
    Date exp = d.getDate("expiresAt");
    Document before = d.get("before", Document.class);
    Document after = d.get("after", Document.class);
    return new AuditRecord(
        d.getString("correlationId"),
        AuditAction.valueOf(d.getString("action")),
        d.getString("target"),
        d.getString("actor"),
        d.getString("reason"),
        d.getDate("at").toInstant(),
        Optional.ofNullable(exp).map(Date::toInstant),
        before == null ? Map.of() : new LinkedHashMap<>(before),
        after == null ? Map.of() : new LinkedHashMap<>(after),
        Optional.ofNullable(TransitionRef.fromDocument(d.get("transition", Document.class))));
  }
}
