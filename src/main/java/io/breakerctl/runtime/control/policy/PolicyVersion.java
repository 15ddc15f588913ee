package io.breakerctl.runtime.control.policy;

import io.breakerctl.runtime.model.Policy;
import java.time.Instant;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
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
 * @param deleted whether this version is a deletion (a tombstone, written by {@code policy apply
 *     --prune}): it carries the spec it removed, is never in force, and hides every version before
 *     it; a later version (an apply or a rollback) brings the policy back
 * @param origin where the version came from (a CI rollout and its commit, a hand apply, a rollback,
 *     a revert); {@link PolicyOrigin#UNKNOWN} for a version stored before origins were
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
    String correlationId,
    boolean deleted,
    PolicyOrigin origin) {

  /** Reads a missing origin as unknown. */
  public PolicyVersion {
    origin = origin == null ? PolicyOrigin.UNKNOWN : origin;
  }

  /**
   * Whether this version is in force at {@code now}: it is not a deletion and has no expiry, or its
   * expiry is still ahead.
   */
  public boolean inForceAt(Instant now) {
    return !deleted && (expiresAt.isEmpty() || now.isBefore(expiresAt.get()));
  }

  /** Whether this version is in force at {@code now} with this spec and expiry. */
  public boolean holds(Policy spec, Optional<Instant> expiry, Instant now) {
    return inForceAt(now) && policy().equals(spec) && expiresAt().equals(expiry);
  }

  /**
   * Whether a CI rollout made this version's spec: its origin is CI, or it reverts to a version a
   * CI rollout made (its policy's versions read by {@code versions}).
   */
  public boolean specByCi(java.util.function.Function<PolicyId, List<PolicyVersion>> versions) {
    return origin().isCi()
        || (origin().kind() == PolicyOrigin.Kind.REVERT
            && specOrigin(versions.apply(policyId()), this).isCi());
  }

  /**
   * The version in force at {@code now} among one policy's versions: the newest that is in force,
   * looking back past expired temporary versions but never past a deletion (a deleted policy has
   * none in force until a later version brings it back).
   *
   * @param oldestFirst every version of one policy, oldest first
   * @return the version in force, empty when none is
   */
  public static Optional<PolicyVersion> inForce(List<PolicyVersion> oldestFirst, Instant now) {
    for (int i = oldestFirst.size() - 1; i >= 0; i--) {
      PolicyVersion v = oldestFirst.get(i);
      if (v.deleted()) {
        return Optional.empty();
      }
      if (v.inForceAt(now)) {
        return Optional.of(v);
      }
    }
    return Optional.empty();
  }

  /**
   * Where the spec of {@code v} came from: its origin, or for the revert of an expired temporary
   * version the origin of the version it put in force again (followed through reverts).
   *
   * @param oldestFirst every version of {@code v}'s policy, oldest first
   */
  public static PolicyOrigin specOrigin(List<PolicyVersion> oldestFirst, PolicyVersion v) {
    PolicyVersion at = v;
    for (int hops = 0;
        hops <= oldestFirst.size() && at.origin().kind() == PolicyOrigin.Kind.REVERT;
        hops++) {
      long expired = at.revertOf();
      List<PolicyVersion> before = oldestFirst.stream().filter(x -> x.version() < expired).toList();
      Optional<PolicyVersion> prior = inForce(before, at.createdAt());
      if (prior.isEmpty()) {
        return at.origin();
      }
      at = prior.get();
    }
    return at.origin();
  }

  /**
   * A tombstone that deletes the policy of {@code last}: version {@code last.version() + 1} with
   * its spec, owner and labels, recorded with the given audit fields and the origin of the apply
   * that prunes it.
   */
  public static PolicyVersion deletionOf(
      PolicyVersion last,
      String author,
      String reason,
      String approvedBy,
      Instant at,
      String correlationId,
      PolicyOrigin origin) {
    return new PolicyVersion(
        last.policyId(),
        last.version() + 1,
        last.policy(),
        last.owner(),
        last.labels(),
        author,
        reason,
        approvedBy,
        at,
        Optional.empty(),
        0,
        0,
        correlationId,
        true,
        origin);
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
            .append("correlationId", correlationId)
            .append("origin", origin.toString());
    expiresAt.ifPresent(e -> d.append("expiresAt", Date.from(e)));
    if (rollbackOf > 0) {
      d.append("rollbackOf", rollbackOf);
    }
    if (revertOf > 0) {
      d.append("revertOf", revertOf);
    }
    if (deleted) {
      d.append("deleted", true);
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
        d.get("correlationId", ""),
        Boolean.TRUE.equals(d.get("deleted")),
        origin(d.get("origin")));
  }

  /** The stored origin; absent (written before origins were) or unreadable: unknown. */
  private static PolicyOrigin origin(Object stored) {
    if (!(stored instanceof String s)) {
      return PolicyOrigin.UNKNOWN;
    }
    try {
      return PolicyOrigin.parse(s);
    } catch (IllegalArgumentException e) {
      return PolicyOrigin.UNKNOWN;
    }
  }

  private static long number(Object o) {
    return o instanceof Number n ? n.longValue() : 0;
  }
}
