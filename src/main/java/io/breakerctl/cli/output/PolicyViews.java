package io.breakerctl.cli.output;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.breakerctl.runtime.control.policy.PolicySpec;
import io.breakerctl.runtime.control.policy.PolicySpec.FieldChange;
import io.breakerctl.runtime.control.policy.PolicyVersion;
import io.breakerctl.runtime.control.policy.WarmReport;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The machine views of the policy commands (versioned documents, fields only added). */
public final class PolicyViews {
  private PolicyViews() {}

  /**
   * A stored policy version as {@code policy get|list|history} print it: the document that applied
   * it plus a read-only {@code status} ({@code policy apply} ignores it, so it can be re-applied).
   */
  @JsonPropertyOrder({"metadata", "spec", "status"})
  public record PolicyView(Metadata metadata, Map<String, Object> spec, Status status) {}

  /** {@code metadata} of a policy. */
  public record Metadata(String id, String owner, Map<String, String> labels) {}

  /**
   * {@code status} of a policy version.
   *
   * @param version the version
   * @param inForce whether it is the version in force now
   * @param author who created it
   * @param reason why (the change cause)
   * @param approvedBy the approver, empty when none
   * @param createdAt when (RFC 3339 UTC)
   * @param expiresAt a temporary version's end, else null
   * @param rollbackOf the version a rollback restored, else 0
   * @param revertOf the expired temporary version this reverts, else 0
   * @param correlationId its audit record
   * @param deleted whether this version deleted the policy (a tombstone: its spec is the one it
   *     removed); printed only when true
   * @param origin where it came from: {@code ci:<commit>}, {@code hand}, {@code rollback:v<N>},
   *     {@code revert:v<N>}, or {@code unknown} (recorded before origins were)
   */
  @JsonPropertyOrder({
    "version",
    "inForce",
    "author",
    "reason",
    "approvedBy",
    "createdAt",
    "expiresAt",
    "rollbackOf",
    "revertOf",
    "correlationId",
    "deleted",
    "origin"
  })
  public record Status(
      long version,
      boolean inForce,
      String author,
      String reason,
      String approvedBy,
      String createdAt,
      @JsonInclude(JsonInclude.Include.NON_NULL) String expiresAt,
      long rollbackOf,
      long revertOf,
      String correlationId,
      @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean deleted,
      String origin) {}

  /** One spec field that differs ({@code before}/{@code after} null when off or absent). */
  @JsonPropertyOrder({"path", "before", "after"})
  public record Change(String path, Object before, Object after) {}

  /** What warming did to one breaker. */
  @JsonPropertyOrder({"breakerId", "policyId", "version", "outcome", "error"})
  public record Warmed(
      String breakerId,
      String policyId,
      long version,
      String outcome,
      @JsonInclude(JsonInclude.Include.NON_EMPTY) String error) {}

  /**
   * What an apply or rollback did (or would do) to one policy ({@code kind: PolicyChangeList}).
   *
   * @param policyId the policy
   * @param source the file and document it came from ({@code file#document}), {@code rollback to
   *     vN}, or {@code prune: in no file}
   * @param outcome CREATED, UNCHANGED, WOULD_CHANGE, WOULD_NOT_CHANGE, DELETED and WOULD_DELETE
   *     (apply --prune), CONFLICT (this policy moved; nothing of it written), NOT_ATTEMPTED (after
   *     a conflict)
   * @param fromVersion the newest version before (0: none)
   * @param version the version in force after (0 when not known: a dry run that would create one)
   * @param expiresAt a temporary version's end, else null
   * @param changes the spec fields that change against the version in force
   * @param correlationId the audit record (empty when nothing was written)
   * @param dryRun whether nothing was written
   * @param warmed what warming into Redis did, per breaker
   */
  @JsonPropertyOrder({
    "policyId",
    "source",
    "outcome",
    "fromVersion",
    "version",
    "expiresAt",
    "changes",
    "correlationId",
    "dryRun",
    "warmed"
  })
  public record PolicyChange(
      String policyId,
      String source,
      String outcome,
      long fromVersion,
      long version,
      @JsonInclude(JsonInclude.Include.NON_NULL) String expiresAt,
      List<Change> changes,
      String correlationId,
      boolean dryRun,
      List<Warmed> warmed) {}

  /** {@code policy diff}: what differs between two versions, or a file and the version in force. */
  @JsonPropertyOrder({"policyId", "from", "to", "differs", "changes"})
  public record PolicyDiff(
      String policyId, String from, String to, boolean differs, List<Change> changes) {}

  /** The view of policy version {@code v}, beside the version in force. */
  public static PolicyView of(PolicyVersion v, Optional<PolicyVersion> inForce) {
    boolean current = inForce.map(f -> f.version() == v.version()).orElse(false);
    return new PolicyView(
        new Metadata(v.policyId().toString(), v.owner(), new LinkedHashMap<>(v.labels())),
        new LinkedHashMap<>(PolicySpec.toMap(v.policy())),
        new Status(
            v.version(),
            current,
            v.author(),
            v.reason(),
            v.approvedBy(),
            Style.rfc3339(v.createdAt().toEpochMilli()),
            time(v.expiresAt()),
            v.rollbackOf(),
            v.revertOf(),
            v.correlationId(),
            v.deleted(),
            v.origin().toString()));
  }

  /** The views of field changes. */
  public static List<Change> changes(List<FieldChange> changes) {
    return changes.stream().map(c -> new Change(c.path(), c.before(), c.after())).toList();
  }

  /** The views of warm reports. */
  public static List<Warmed> warmed(List<WarmReport> reports) {
    return reports.stream()
        .map(
            w ->
                new Warmed(
                    w.breakerId() == null ? "" : w.breakerId().toString(),
                    w.policyId(),
                    w.version(),
                    w.outcome(),
                    w.error()))
        .toList();
  }

  /** An instant in RFC 3339 UTC; empty when absent. */
  public static String time(Optional<Instant> at) {
    return at.map(i -> Style.rfc3339(i.toEpochMilli())).orElse(null);
  }

  /** The change cause of a version, as {@code policy history} shows it. */
  public static String cause(PolicyVersion v) {
    StringBuilder b = new StringBuilder(v.reason());
    if (v.rollbackOf() > 0) {
      b.append(" (rollback to v").append(v.rollbackOf()).append(')');
    }
    if (v.revertOf() > 0) {
      b.append(" (revert of temporary v").append(v.revertOf()).append(')');
    }
    if (v.deleted()) {
      b.append(" (deleted)");
    }
    return b.toString();
  }
}
