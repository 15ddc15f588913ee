package io.breakerctl.runtime.control;

import io.breakerctl.runtime.control.policy.PolicyId;
import io.breakerctl.runtime.control.policy.PolicySpec;
import io.breakerctl.runtime.model.Policy;
import java.time.Instant;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.bson.Document;

/**
 * One immutable version of a policy, as stored in {@code policy_versions}.
 *
 * @param policyId the policy
 * @param version 1, 2, 3, ... per policy
 * @param policy the spec, complete
 * @param owner {@code metadata.owner} when applied
 * @param labels {@code metadata.labels} when applied
 * @param author who created the version
 * @param reason why
 * @param approvedBy who approved it, empty when not given
 * @param createdAt when
 * @param expiresAt for a temporary policy: when it stops being in force
 * @param rollbackOf the version whose spec a rollback restored, 0 otherwise
 * @param revertOf the expired temporary version this version reverts, 0 otherwise
 * @param correlationId links the version to its audit record
 */
public record PolicyVersion(
    PolicyId policyId,
    long version,
    Policy policy,
    String owner,
    Map<String, String> labels,
    String author,
    String reason,
    String approvedBy,
    Instant createdAt,
    Optional<Instant> expiresAt,
    long rollbackOf,
    long revertOf,
    String correlationId) {

  /** Whether this version is in force at {@code now} (it has no expiry, or it is still ahead). */
  public boolean inForceAt(Instant now) {
    return expiresAt.isEmpty() || now.isBefore(expiresAt.get());
  }

  /** Whether this version is temporary. */
  public boolean isTemporary() {
    return expiresAt.isPresent();
  }

  Document toDocument() {
    Document d =
        new Document("policyId", policyId.toString())
            .append("version", version)
            .append("spec", new Document(PolicySpec.toMap(policy)))
            .append("owner", owner)
            .append("labels", new Document(new LinkedHashMap<String, Object>(labels)))
            .append("author", author)
            .append("reason", reason)
            .append("approvedBy", approvedBy)
            .append("createdAt", Date.from(createdAt))
            .append("correlationId", correlationId);
    expiresAt.ifPresent(e -> d.append("expiresAt", Date.from(e)));
    if (rollbackOf > 0) {
      d.append("rollbackOf", rollbackOf);
    }
    if (revertOf > 0) {
      d.append("revertOf", revertOf);
    }
    return d;
  }

  static PolicyVersion fromDocument(Document d) {
    Map<String, String> labels = new LinkedHashMap<>();
    Document l = d.get("labels", Document.class);
    if (l != null) {
      l.forEach((k, v) -> labels.put(k, String.valueOf(v)));
    }
    Date expires = d.getDate("expiresAt");
    return new PolicyVersion(
        PolicyId.parse(d.getString("policyId")),
        ((Number) d.get("version")).longValue(),
        PolicySpec.fromMap(d.get("spec", Document.class)),
        d.get("owner", ""),
        Map.copyOf(labels),
        d.get("author", ""),
        d.get("reason", ""),
        d.get("approvedBy", ""),
        d.getDate("createdAt").toInstant(),
        Optional.ofNullable(expires).map(Date::toInstant),
        number(d.get("rollbackOf")),
        number(d.get("revertOf")),
        d.get("correlationId", ""));
  }

  private static long number(Object o) {
    return o instanceof Number n ? n.longValue() : 0;
  }
}
