package io.breakerctl.runtime.control.policy;

import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.audit.AuditAction;
import io.breakerctl.runtime.control.audit.AuditLog;
import io.breakerctl.runtime.control.audit.AuditRecord;
import io.breakerctl.runtime.control.policy.PolicySpec.FieldChange;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.store.FleetStore;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The policy workflow: apply, roll back, diff, revert expired temporary versions, and warm the
 * version in force into Redis for every breaker a policy governs. Every change is a new immutable
 * version (see {@link PolicyStore}) and an audit record.
 */
public final class PolicyControl {

  /** The actor recorded for changes the control plane makes by itself (expiry reverts). */
  public static final String SYSTEM_ACTOR = "breakerctl-control";

  private final PolicyStore store;
  private final AuditLog audit;
  private final Clock clock;
  private final PolicyWarming warming;

  /**
   * A workflow on MongoDB and, when {@code redis} is not null, Redis.
   *
   * @param redis where to warm policies; null to only record versions
   */
  public PolicyControl(ControlDatabase db, FleetStore redis, Clock clock) {
    this.store = new PolicyStore(db);
    this.audit = new AuditLog(db);
    this.clock = clock;
    this.warming = new PolicyWarming(store, redis, clock);
  }

  /** The version store. */
  public PolicyStore store() {
    return store;
  }

  /**
   * Applies every document of a valid set, in order.
   *
   * @throws io.breakerctl.runtime.control.policy.InvalidPolicyException when the set has any
   *     problem; nothing is written then
   * @throws PolicyConflictException when a policy moved while applying (documents before it were
   *     applied, it and later ones were not)
   */
  public List<ApplyResult> applyAll(PolicySet set, ApplyOptions options) {
    set.requireValid();
    if (options.expectedVersion().isPresent() && set.documents().size() > 1) {
      throw new IllegalArgumentException(
          "an expected version applies to one policy, but the set holds "
              + set.documents().size()
              + " documents");
    }
    List<ApplyResult> out = new ArrayList<>();
    ApplyOptions o = options;
    for (PolicyDocument d : set.documents()) {
      out.add(apply(d, o));
      o = o.next();
    }
    return out;
  }

  /**
   * Applies one document: creates version N+1 unless the spec in force is the same, records the
   * audit, and warms the version in force into every breaker the policy governs (also when
   * unchanged, so a breaker whose keys lost it gets it back).
   *
   * @throws PolicyConflictException when another version was created since {@code
   *     options.expectedVersion()} (or since it was read)
   */
  public ApplyResult apply(PolicyDocument doc, ApplyOptions options) {
    PolicyId id = doc.id();
    revertIfExpired(id);
    Instant now = clock.instant();
    Optional<PolicyVersion> latest = store.latest(id);
    long latestNo = latest.map(PolicyVersion::version).orElse(0L);
    long expected = options.expectedVersion().orElse(latestNo);
    if (expected != latestNo) {
      throw new PolicyConflictException(id, expected, latestNo);
    }
    Optional<Instant> expiresAt = options.expiresAt().or(doc::expiresAt);
    if (expiresAt.isPresent() && !expiresAt.get().isAfter(now)) {
      throw new IllegalArgumentException(
          "expiresAt of " + id + " must be in the future but was " + expiresAt.get());
    }
    if (latest.filter(v -> v.holds(doc.policy(), expiresAt, now)).isPresent()) {
      return new ApplyResult(
          id, ApplyResult.Outcome.UNCHANGED, latest.get(), latest, List.of(), warm(id), "");
    }
    Optional<PolicyVersion> before = store.inForce(id, now);
    if (options.onlyOverCi()) {
      requireCi(before, store::versions);
    }
    PolicyVersion next =
        new PolicyVersion(
            id,
            expected + 1,
            doc.policy(),
            doc.owner(),
            doc.labels(),
            options.actor(),
            options.reason(),
            options.approvedBy(),
            now,
            expiresAt,
            0,
            0,
            options.correlationId(),
            false,
            options.origin());
    return commit(AuditAction.APPLY, expected, next, before);
  }

  /**
   * Rolls a policy back to version {@code target}: creates version N+1 with that version's spec.
   * Unchanged (no version) when that spec is the one in force.
   *
   * @throws IllegalArgumentException when the version does not exist
   * @throws PolicyConflictException when the policy moved since the expected version
   */
  public ApplyResult rollback(PolicyId id, long target, ApplyOptions options) {
    revertIfExpired(id);
    PolicyVersion old =
        store
            .version(id, target)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "policy " + id + " has no version " + target + " to roll back to"));
    if (old.deleted()) {
      throw new IllegalArgumentException(
          "version "
              + target
              + " of policy "
              + id
              + " is its deletion; roll back to a version before it");
    }
    Instant now = clock.instant();
    Optional<PolicyVersion> latest = store.latest(id);
    long latestNo = latest.map(PolicyVersion::version).orElse(0L);
    long expected = options.expectedVersion().orElse(latestNo);
    if (expected != latestNo) {
      throw new PolicyConflictException(id, expected, latestNo);
    }
    Optional<PolicyVersion> before = store.inForce(id, now);
    if (latest.filter(v -> v.holds(old.policy(), options.expiresAt(), now)).isPresent()) {
      return new ApplyResult(
          id, ApplyResult.Outcome.UNCHANGED, latest.get(), latest, List.of(), warm(id), "");
    }
    PolicyVersion next =
        new PolicyVersion(
            id,
            expected + 1,
            old.policy(),
            old.owner(),
            old.labels(),
            options.actor(),
            options.reason(),
            options.approvedBy(),
            now,
            options.expiresAt(),
            target,
            0,
            options.correlationId(),
            false,
            PolicyOrigin.rollback(target));
    return commit(AuditAction.ROLLBACK, expected, next, before);
  }

  /**
   * Deletes a policy: creates a tombstone version N+1 ({@link PolicyVersion#deleted()}: it carries
   * the spec it removes, recorded with actor, reason, approver and correlation id) and re-resolves
   * every breaker the policy governed: each is warmed with the next more general policy in force,
   * or un-warmed back to its nodes' defaults. An already deleted policy is unchanged (no version;
   * its breakers are re-resolved again, so a deletion whose warming failed can be completed).
   *
   * @throws IllegalArgumentException when the policy has no version
   * @throws PolicyConflictException when the policy moved since the expected version
   */
  public ApplyResult delete(PolicyId id, ApplyOptions options) {
    Optional<PolicyVersion> latest = store.latest(id);
    PolicyVersion last =
        latest.orElseThrow(() -> new IllegalArgumentException("no policy " + id + " to delete"));
    long expected = options.expectedVersion().orElse(last.version());
    if (expected != last.version()) {
      throw new PolicyConflictException(id, expected, last.version());
    }
    if (last.deleted()) {
      return new ApplyResult(
          id, ApplyResult.Outcome.UNCHANGED, last, latest, List.of(), warm(id), "");
    }
    Instant now = clock.instant();
    Optional<PolicyVersion> before = store.inForce(id, now);
    if (options.onlyOverCi()) {
      requireCi(before, store::versions);
    }
    PolicyVersion tombstone =
        PolicyVersion.deletionOf(
            last,
            options.actor(),
            options.reason(),
            options.approvedBy(),
            now,
            options.correlationId(),
            options.origin());
    return commit(AuditAction.DELETE, expected, tombstone, before);
  }

  /**
   * Checks, before a change is written, that no previewed policy that would change moved since its
   * preview was read: one read per policy, so a set of changes is rejected whole rather than
   * written in part.
   *
   * @throws PolicyConflictException naming the first policy that moved
   */
  public void requireLatest(List<PolicyPreview> previews) {
    for (PolicyPreview p : previews) {
      if (!p.changed()) {
        continue;
      }
      long now = store.latestVersion(p.policyId());
      if (now != p.latestVersion()) {
        throw new PolicyConflictException(p.policyId(), p.latestVersion(), now);
      }
    }
  }

  /**
   * Checks, before a CI rollout writes, that every previewed policy that would change has a version
   * in force whose spec a CI rollout made (or none): a rollback, a hand apply, a version of unknown
   * origin, or the revert to one of those, is a person's decision that the repository does not hold
   * yet. A revert to a CI version passes.
   *
   * @throws HandChangeException naming the first policy whose version in force no CI rollout made
   */
  public void requireOnlyOverCi(List<PolicyPreview> previews) {
    requireOnlyOverCi(previews, store::versions);
  }

  /** {@link #requireOnlyOverCi(List)} with the versions of a policy read by {@code versions}. */
  static void requireOnlyOverCi(
      List<PolicyPreview> previews, Function<PolicyId, List<PolicyVersion>> versions) {
    for (PolicyPreview p : previews) {
      if (p.changed()) {
        requireCi(p.inForce(), versions);
      }
    }
  }

  private static void requireCi(
      Optional<PolicyVersion> inForce, Function<PolicyId, List<PolicyVersion>> versions) {
    if (inForce.isPresent() && !inForce.get().specByCi(versions)) {
      throw new HandChangeException(inForce.get());
    }
  }

  /**
   * What {@link #delete} would do, writing nothing ({@code changed}: a tombstone would be made).
   */
  public PolicyPreview previewDelete(PolicyId id) {
    Optional<PolicyVersion> latest = store.latest(id);
    Optional<PolicyVersion> inForce = store.inForce(id, clock.instant());
    return new PolicyPreview(
        id,
        latest.map(PolicyVersion::version).orElse(0L),
        inForce,
        PolicySpec.diff(inForce.map(PolicyVersion::policy).orElse(null), null),
        latest.isPresent() && !latest.get().deleted(),
        Optional.empty());
  }

  /**
   * What {@link #apply} would do with {@code doc}, writing nothing.
   *
   * @param expiresAt the expiry the apply would give (overrides the document's), or empty
   */
  public PolicyPreview preview(PolicyDocument doc, Optional<Instant> expiresAt) {
    Instant now = clock.instant();
    Optional<Instant> expiry = expiresAt.or(doc::expiresAt);
    return preview(doc.id(), doc.policy(), expiry, now);
  }

  /**
   * What {@link #rollback} to {@code target} would do, writing nothing.
   *
   * @throws IllegalArgumentException when the version does not exist
   */
  public PolicyPreview previewRollback(PolicyId id, long target) {
    return preview(id, require(id, target).policy(), Optional.empty(), clock.instant());
  }

  private PolicyPreview preview(PolicyId id, Policy policy, Optional<Instant> expiry, Instant now) {
    Optional<PolicyVersion> latest = store.latest(id);
    Optional<PolicyVersion> inForce = store.inForce(id, now);
    return new PolicyPreview(
        id,
        latest.map(PolicyVersion::version).orElse(0L),
        inForce,
        PolicySpec.diff(inForce.map(PolicyVersion::policy).orElse(null), policy),
        latest.filter(v -> v.holds(policy, expiry, now)).isEmpty(),
        expiry);
  }

  /**
   * Records the revert of every temporary version that expired: version N+1 with the spec of the
   * version in force again (readers already computed that), and warms it. Safe to run on several
   * control planes at once (a lost race is skipped).
   */
  public List<ApplyResult> revertExpired() {
    List<ApplyResult> out = new ArrayList<>();
    for (PolicyId id : store.allLatest().keySet()) {
      revertIfExpired(id).ifPresent(out::add);
    }
    return out;
  }

  private Optional<ApplyResult> revertIfExpired(PolicyId id) {
    Instant now = clock.instant();
    Optional<PolicyVersion> latest = store.latest(id);
    if (latest.isEmpty() || latest.get().deleted() || latest.get().inForceAt(now)) {
      return Optional.empty();
    }
    PolicyVersion expired = latest.get();
    Optional<PolicyVersion> back = store.inForce(id, now);
    if (back.isEmpty()) {
      // nothing of this policy is in force: its breakers resolve to a default again
      warm(id);
      return Optional.empty();
    }
    PolicyVersion prior = back.get();
    PolicyVersion next =
        new PolicyVersion(
            id,
            expired.version() + 1,
            prior.policy(),
            prior.owner(),
            prior.labels(),
            SYSTEM_ACTOR,
            "temporary version "
                + expired.version()
                + " expired at "
                + expired.expiresAt().get()
                + "; version "
                + prior.version()
                + " is in force again",
            "",
            now,
            prior.expiresAt(),
            0,
            expired.version(),
            "",
            false,
            PolicyOrigin.revert(expired.version()));
    next = withCorrelation(next, java.util.UUID.randomUUID().toString());
    try {
      return Optional.of(commit(AuditAction.REVERT, expired.version(), next, Optional.of(expired)));
    } catch (PolicyConflictException e) {
      return Optional.empty();
    }
  }

  private static PolicyVersion withCorrelation(PolicyVersion v, String correlationId) {
    return new PolicyVersion(
        v.policyId(),
        v.version(),
        v.policy(),
        v.owner(),
        v.labels(),
        v.author(),
        v.reason(),
        v.approvedBy(),
        v.createdAt(),
        v.expiresAt(),
        v.rollbackOf(),
        v.revertOf(),
        correlationId,
        v.deleted(),
        v.origin());
  }

  private ApplyResult commit(
      AuditAction action, long expected, PolicyVersion next, Optional<PolicyVersion> before) {
    store.create(expected, next);
    audit.record(
        new AuditRecord(
            next.correlationId(),
            action,
            next.policyId().toString(),
            next.author(),
            next.reason(),
            next.createdAt(),
            next.expiresAt(),
            before.map(PolicyControl::summary).orElse(Map.of()),
            summary(next),
            Optional.empty()));
    List<FieldChange> changes =
        PolicySpec.diff(
            before.map(PolicyVersion::policy).orElse(null), next.deleted() ? null : next.policy());
    return new ApplyResult(
        next.policyId(),
        next.deleted() ? ApplyResult.Outcome.DELETED : ApplyResult.Outcome.CREATED,
        next,
        before,
        changes,
        warm(next.policyId()),
        next.correlationId());
  }

  private static Map<String, Object> summary(PolicyVersion v) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("version", v.version());
    if (v.deleted()) {
      m.put("deleted", true);
      return m;
    }
    m.put("spec", new LinkedHashMap<>(PolicySpec.toMap(v.policy())));
    if (!v.approvedBy().isEmpty()) {
      m.put("approvedBy", v.approvedBy());
    }
    return m;
  }

  /** The spec fields that differ between two versions of a policy. */
  public List<FieldChange> diff(PolicyId id, long from, long to) {
    return PolicySpec.diff(spec(require(id, from)), spec(require(id, to)));
  }

  /** The spec a version puts in force: none for a deletion. */
  private static Policy spec(PolicyVersion v) {
    return v.deleted() ? null : v.policy();
  }

  /** The spec fields a document would change against the version in force (all, when none). */
  public List<FieldChange> diff(PolicyDocument doc) {
    return PolicySpec.diff(
        store.inForce(doc.id(), clock.instant()).map(PolicyVersion::policy).orElse(null),
        doc.policy());
  }

  private PolicyVersion require(PolicyId id, long version) {
    return store
        .version(id, version)
        .orElseThrow(
            () -> new IllegalArgumentException("policy " + id + " has no version " + version));
  }

  /** The policy in force for a breaker by the resolution rule, empty when none applies. */
  public Optional<PolicyResolver.Resolved<PolicyVersion>> resolve(BreakerId id) {
    Map<PolicyId, PolicyVersion> inForce = store.allInForce(clock.instant());
    return PolicyResolver.resolve(id, p -> Optional.ofNullable(inForce.get(p)));
  }

  /**
   * Warms the resolved policy into every breaker that {@code policyId} governs: its own breaker, or
   * for a default every breaker in Redis that resolves to it. Nothing when no Redis is set.
   * Failures are reported per breaker, never thrown.
   */
  public List<WarmReport> warm(PolicyId policyId) {
    return warming.warm(policyId);
  }

  /**
   * Every breaker in Redis out of step with MongoDB ({@link PolicyDrift}): what MongoDB holds in
   * force for it against what its keys hold and what its live nodes report. Empty when no Redis is
   * set; breakers whose keys cannot be read are left out (status shows them).
   *
   * @param timeout each round trip's bound
   * @throws RuntimeException when Redis cannot be scanned
   */
  public List<PolicyDrift> drift(java.time.Duration timeout) {
    return warming.drift(timeout);
  }

  /**
   * The breakers {@code policyId} could govern: its own breaker, or for a default every breaker in
   * Redis it is a candidate for (none when no Redis is set).
   *
   * @throws RuntimeException when Redis cannot be scanned
   */
  public List<BreakerId> governed(PolicyId policyId) {
    return warming.governed(policyId);
  }
}
