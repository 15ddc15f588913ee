package io.breakerctl.runtime.control.policy;

import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * Who applies a policy change and under which conditions.
 *
 * @param actor who acts (recorded as the version's author and in the audit)
 * @param reason why (required)
 * @param approvedBy who approved the change, empty when not given
 * @param expectedVersion the version the change was reviewed against; the apply fails with {@link
 *     PolicyConflictException} when the policy moved since. Empty: the version read at apply time
 * @param expiresAt makes the new version temporary (overrides the document's {@code
 *     metadata.expiresAt})
 * @param correlationId links the version to its audit record; generated when empty
 * @param origin where an applied version comes from ({@link PolicyOrigin#HAND} unless a CI rollout
 *     says so); a rollback and a revert record their own
 * @param onlyOverCi refuse ({@link HandChangeException}) to change a policy whose version in force
 *     no CI rollout made (a CI run must not silently undo a person's change)
 */
public record ApplyOptions(
    String actor,
    String reason,
    String approvedBy,
    OptionalLong expectedVersion,
    Optional<Instant> expiresAt,
    String correlationId,
    PolicyOrigin origin,
    boolean onlyOverCi) {

  /** Validates and fills in defaults. */
  public ApplyOptions {
    if (actor == null || actor.isBlank()) {
      throw new IllegalArgumentException("actor must not be empty");
    }
    if (reason == null || reason.isBlank()) {
      throw new IllegalArgumentException("reason must not be empty");
    }
    approvedBy = approvedBy == null ? "" : approvedBy;
    expectedVersion = expectedVersion == null ? OptionalLong.empty() : expectedVersion;
    if (expectedVersion.isPresent() && expectedVersion.getAsLong() < 0) {
      throw new IllegalArgumentException(
          "expected version must be >= 0 but was " + expectedVersion.getAsLong());
    }
    expiresAt = expiresAt == null ? Optional.empty() : expiresAt;
    correlationId =
        correlationId == null || correlationId.isBlank()
            ? UUID.randomUUID().toString()
            : correlationId;
    origin = origin == null ? PolicyOrigin.HAND : origin;
  }

  /** Options for {@code actor} and {@code reason}, everything else empty. */
  public static ApplyOptions by(String actor, String reason) {
    return new ApplyOptions(
        actor, reason, "", OptionalLong.empty(), Optional.empty(), "", PolicyOrigin.HAND, false);
  }

  /** These options with an approver. */
  public ApplyOptions approvedBy(String approver) {
    return new ApplyOptions(
        actor, reason, approver, expectedVersion, expiresAt, correlationId, origin, onlyOverCi);
  }

  /** These options expecting {@code version} to be the newest (0: the policy does not exist). */
  public ApplyOptions expecting(long version) {
    return new ApplyOptions(
        actor,
        reason,
        approvedBy,
        OptionalLong.of(version),
        expiresAt,
        correlationId,
        origin,
        onlyOverCi);
  }

  /** These options making the new version temporary. */
  public ApplyOptions expiringAt(Instant at) {
    return new ApplyOptions(
        actor,
        reason,
        approvedBy,
        expectedVersion,
        Optional.of(at),
        correlationId,
        origin,
        onlyOverCi);
  }

  /** These options recording {@code from} as the origin of the versions they apply. */
  public ApplyOptions from(PolicyOrigin from) {
    return new ApplyOptions(
        actor, reason, approvedBy, expectedVersion, expiresAt, correlationId, from, onlyOverCi);
  }

  /**
   * These options refusing to change a policy whose version in force no CI rollout made ({@link
   * HandChangeException}).
   */
  public ApplyOptions refusingOverNonCi() {
    return new ApplyOptions(
        actor, reason, approvedBy, expectedVersion, expiresAt, correlationId, origin, true);
  }

  /** These options with a fresh correlation id (for the next document of a set). */
  ApplyOptions next() {
    return new ApplyOptions(
        actor, reason, approvedBy, expectedVersion, expiresAt, "", origin, onlyOverCi);
  }
}
