package io.breakerctl.runtime.control.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
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
