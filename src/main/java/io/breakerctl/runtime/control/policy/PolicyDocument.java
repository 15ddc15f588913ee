package io.breakerctl.runtime.control.policy;

import io.breakerctl.runtime.model.Policy;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * One valid policy document ({@code apiVersion: breakerctl/v1, kind: Policy}).
 *
 * @param source the file it came from
 * @param document its 1-based index in the file
 * @param id {@code metadata.id}
 * @param owner {@code metadata.owner}, empty string when absent
 * @param labels {@code metadata.labels}
 * @param expiresAt {@code metadata.expiresAt}: a temporary policy stops being in force then
 * @param policy the spec, with defaults for the fields it leaves out
 */
public record PolicyDocument(
    String source,
    int document,
    PolicyId id,
    String owner,
    Map<String, String> labels,
    Optional<Instant> expiresAt,
    Policy policy) {

  /** Validates and copies. */
  public PolicyDocument {
    owner = owner == null ? "" : owner;
    labels = Map.copyOf(labels);
  }

  /** A document for {@code id} with no owner, labels or expiry. */
  public static PolicyDocument of(PolicyId id, Policy policy) {
    return new PolicyDocument("(api)", 1, id, "", Map.of(), Optional.empty(), policy);
  }

  /** This document with another expiry. */
  public PolicyDocument withExpiresAt(Instant at) {
    return new PolicyDocument(source, document, id, owner, labels, Optional.ofNullable(at), policy);
  }
}
