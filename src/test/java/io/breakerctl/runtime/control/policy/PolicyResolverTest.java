package io.breakerctl.runtime.control.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class PolicyResolverTest {

  private static Optional<PolicyResolver.Resolved<String>> resolve(
      String breaker, Map<String, String> inForce) {
    return PolicyResolver.resolve(
        BreakerId.parse(breaker), p -> Optional.ofNullable(inForce.get(p.toString())));
  }

  @Test
  void ownPolicyBeatsCallerDefaultBeatsFleetDefault() {
    Map<String, String> all = Map.of("a:b", "own", "a:*", "caller", "*:*", "fleet");

    assertThat(resolve("a:b", all).orElseThrow().value()).isEqualTo("own");
    assertThat(resolve("a:c", all).orElseThrow().value()).isEqualTo("caller");
    assertThat(resolve("a:b:scope", all).orElseThrow().policyId()).hasToString("a:*");
    assertThat(resolve("x:y", all).orElseThrow().value()).isEqualTo("fleet");
    assertThat(resolve("x:y", Map.of("a:*", "caller"))).isEmpty();
  }

  private static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");

  private static PolicyVersion version(
      String id, long v, int threshold, boolean deleted, Instant expiresAt) {
    return new PolicyVersion(
        PolicyId.parse(id),
        v,
        Policy.builder().failureThreshold(threshold).build(),
        "",
        Map.of(),
        "it",
        "v" + v,
        "",
        NOW.minusSeconds(100 - v),
        Optional.ofNullable(expiresAt),
        0,
        0,
        "c" + v,
        deleted,
        PolicyOrigin.UNKNOWN);
  }

  private static Optional<PolicyResolver.Resolved<PolicyVersion>> resolveVersions(
      String breaker, Map<String, List<PolicyVersion>> versions) {
    return PolicyResolver.resolve(
        BreakerId.parse(breaker),
        p -> PolicyVersion.inForce(versions.getOrDefault(p.toString(), List.of()), NOW));
  }

  @Test
  @DisplayName("a deleted policy is skipped: the next more general policy governs, or none")
  void tombstonesAreSkipped() {
    Map<String, List<PolicyVersion>> versions = new HashMap<>();
    versions.put(
        "a:b", List.of(version("a:b", 1, 3, false, null), version("a:b", 2, 3, true, null)));
    versions.put("a:*", List.of(version("a:*", 1, 7, false, null)));
    versions.put(
        "*:*", List.of(version("*:*", 1, 9, false, null), version("*:*", 2, 9, true, null)));

    PolicyResolver.Resolved<PolicyVersion> r = resolveVersions("a:b", versions).orElseThrow();
    assertThat(r.policyId()).hasToString("a:*");
    assertThat(r.value().policy().failureThreshold()).isEqualTo(7);
    assertThat(resolveVersions("x:y", versions)).as("*:* is deleted").isEmpty();

    versions.put(
        "a:*", List.of(version("a:*", 1, 7, false, null), version("a:*", 2, 7, true, null)));
    assertThat(resolveVersions("a:b", versions)).as("every candidate deleted").isEmpty();

    // a version after the deletion (a rollback, a new apply) brings the policy back
    versions.put(
        "a:b",
        List.of(
            version("a:b", 1, 3, false, null),
            version("a:b", 2, 3, true, null),
            version("a:b", 3, 3, false, null)));
    assertThat(resolveVersions("a:b", versions).orElseThrow().value().version()).isEqualTo(3);
  }

  @Test
  @DisplayName("an expired temporary version over a deletion never looks past the deletion")
  void expiredVersionAfterATombstoneLeavesNothingInForce() {
    List<PolicyVersion> versions =
        List.of(
            version("a:b", 1, 3, false, null),
            version("a:b", 2, 3, true, null),
            version("a:b", 3, 4, false, NOW.minusSeconds(1)));
    assertThat(PolicyVersion.inForce(versions, NOW)).isEmpty();
    assertThat(PolicyVersion.inForce(versions, NOW.minusSeconds(2)))
        .get()
        .extracting(PolicyVersion::version)
        .isEqualTo(3L);
    assertThat(PolicyVersion.inForce(versions.subList(0, 1), NOW))
        .get()
        .extracting(PolicyVersion::version)
        .isEqualTo(1L);
    assertThat(versions.get(1).inForceAt(NOW)).as("a tombstone is never in force").isFalse();
  }

  @Test
  void policyIdsParse() {
    assertThat(PolicyId.parse("*:*")).isSameAs(PolicyId.ALL);
    assertThat(PolicyId.parse("claims:*").defaultCaller()).contains("claims");
    assertThat(PolicyId.parse("claims:members:search").breaker())
        .contains(BreakerId.parse("claims:members:search"));
    assertThatThrownBy(() -> PolicyId.parse("*:members")).hasMessageContaining("'*'");
    assertThatThrownBy(() -> PolicyId.parse("a:b:*")).hasMessageContaining("'*'");
  }

  @Test
  void canonicalSpecRoundTripsAndDiffsFieldByField() {
    Policy p =
        Policy.builder()
            .failureThreshold(3)
            .window(Duration.ofMillis(1500))
            .slowCallMillis(250)
            .failureRateThreshold(12.5)
            .build();

    assertThat(PolicySpec.fromMap(PolicySpec.toMap(p))).isEqualTo(p);
    assertThat(PolicySpec.fromMap(Map.of())).isEqualTo(Policy.DEFAULT);
    assertThat(PolicySpec.diff(Policy.DEFAULT, p))
        .extracting(Object::toString)
        .containsExactly(
            "spec.failureThreshold: 5 -> 3",
            "spec.windowSeconds: 60 -> 1.5",
            "spec.failureRateThreshold: null -> 12.5",
            "spec.slowCallMillis: null -> 250");
    assertThat(PolicySpec.diff(p, p)).isEmpty();
  }
}
