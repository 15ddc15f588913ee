package io.breakerctl.runtime.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.breakerctl.runtime.model.FallbackPolicy;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.StoreFailureMode;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

@DisplayName("PolicyEncoding")
class PolicyEncodingTest {

  /** The p.* field names in CSV order, as warm.lua lists them. */
  private static final List<String> CSV_FIELDS =
      List.of(
          "p.failureThreshold",
          "p.windowMillis",
          "p.failureRate",
          "p.minimumCalls",
          "p.slowCallMillis",
          "p.openMillis",
          "p.maxOpenMillis",
          "p.halfOpenPermits",
          "p.probeLeaseMillis",
          "p.enabled");

  private static Policy withRateAndSlowCalls() {
    return Policy.builder()
        .failureThreshold(8)
        .window(Duration.ofSeconds(30))
        .failureRateThreshold(50.0)
        .minimumCalls(10)
        .slowCallMillis(750)
        .open(Duration.ofMillis(2500))
        .maxOpen(Duration.ofMinutes(10))
        .halfOpenPermits(3)
        .probeLease(Duration.ofMillis(1500))
        .build();
  }

  /**
   * The hash warm.lua leaves behind: CSV fields split like its gmatch, empty ones absent (HDEL),
   * plus the store failure mode, fallback policy, policyId and policyVersion.
   */
  private static Map<String, String> warmedHash(Policy p, String policyId, long version) {
    String[] values = PolicyEncoding.toArg(p).split(",", -1);
    Map<String, String> hash = new HashMap<>();
    for (int i = 0; i < CSV_FIELDS.size(); i++) {
      if (!values[i].isEmpty()) {
        hash.put(CSV_FIELDS.get(i), values[i]);
      }
    }
    hash.put("p.storeFailureMode", p.storeFailureMode().name());
    hash.put("p.fallbackPolicy", p.fallbackPolicy().name());
    p.staticDefault().ifPresent(n -> hash.put("p.staticDefault", n));
    hash.put("policyId", policyId);
    hash.put("policyVersion", Long.toString(version));
    hash.put("state", "CLOSED");
    hash.put("epoch", "1700000000000000");
    return hash;
  }

  @Nested
  @DisplayName("toArg")
  class ToCsv {

    @Test
    @DisplayName("the defaults leave the optional rate and slow-call fields empty")
    void defaults() {
      assertThat(PolicyEncoding.toArg(Policy.DEFAULT))
          .isEqualTo("5,60000,,20,,30000,300000,1,10000,1,30000");
    }

    @Test
    @DisplayName("a policy with failure rate and slow calls, durations in ms")
    void rateAndSlowCalls() {
      assertThat(PolicyEncoding.toArg(withRateAndSlowCalls()))
          .isEqualTo("8,30000,50,10,750,2500,600000,3,1500,1,30000");
    }

    @Test
    @DisplayName("a fractional rate keeps its fraction; a disabled policy ends in 0")
    void fractionalRateDisabled() {
      Policy p = Policy.builder().failureRateThreshold(12.5).enabled(false).build();

      assertThat(PolicyEncoding.toArg(p))
          .isEqualTo("5,60000,12.5,20,,30000,300000,1,10000,0,30000");
    }

    @Test
    @DisplayName("a tiny or large rate is a plain decimal, never an exponent the scripts reject")
    void plainDecimals() {
      assertThat(PolicyEncoding.toArg(Policy.builder().failureRateThreshold(0.0001).build()))
          .isEqualTo("5,60000,0.0001,20,,30000,300000,1,10000,1,30000");
      assertThat(PolicyEncoding.toArg(Policy.builder().failureRateThreshold(100.0).build()))
          .isEqualTo("5,60000,100,20,,30000,300000,1,10000,1,30000");
    }

    @Test
    @DisplayName("always has the 11 fields warm.lua requires")
    void elevenFields() {
      assertThat(PolicyEncoding.toArg(Policy.DEFAULT).split(",", -1)).hasSize(11);
      assertThat(PolicyEncoding.toArg(withRateAndSlowCalls()).split(",", -1)).hasSize(11);
    }

    @Test
    @DisplayName("the ten fields of a node built before maxProbeSeconds decode, with its default")
    void tenFieldsOfAnOlderNode() {
      Policy p = PolicyEncoding.fromArg("8,30000,50,10,750,2500,600000,3,1500,1");
      assertThat(p.failureThreshold()).isEqualTo(8);
      assertThat(p.maxProbe()).isEqualTo(Policy.DEFAULT_MAX_PROBE);
      assertThat(PolicyEncoding.fromArg("5,60000,,20,,30000,300000,1,10000,1,0").maxProbe())
          .isZero();
      assertThatThrownBy(() -> PolicyEncoding.fromArg("5,60000,,20,,30000,300000,1,10000"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("11 comma-separated fields");
    }
  }

  @Nested
  @DisplayName("fromFields")
  class FromFields {

    @Test
    @DisplayName("reads the hash exactly as warm.lua writes it")
    void literalHash() {
      // given the fields warm.lua writes for policy "payments-default" v3
      Map<String, String> hash = new HashMap<>();
      hash.put("policyId", "payments-default");
      hash.put("policyVersion", "3");
      hash.put("p.failureThreshold", "8");
      hash.put("p.windowMillis", "30000");
      hash.put("p.failureRate", "50");
      hash.put("p.minimumCalls", "10");
      hash.put("p.slowCallMillis", "750");
      hash.put("p.openMillis", "2500");
      hash.put("p.maxOpenMillis", "600000");
      hash.put("p.halfOpenPermits", "3");
      hash.put("p.probeLeaseMillis", "1500");
      hash.put("p.enabled", "1");
      hash.put("p.storeFailureMode", "LAST_KNOWN");
      hash.put("p.fallbackPolicy", "CACHED");

      // when
      Optional<PolicyEncoding.WarmedPolicy> warmed = PolicyEncoding.fromFields(hash);

      // then
      assertThat(warmed)
          .contains(
              new PolicyEncoding.WarmedPolicy(
                  "payments-default",
                  3,
                  withRateAndSlowCalls().toBuilder()
                      .storeFailureMode(StoreFailureMode.LAST_KNOWN)
                      .fallbackPolicy(FallbackPolicy.CACHED)
                      .build()));
    }

    @Test
    @DisplayName("a policy round-trips through toArg and the warmed hash")
    void roundTrip() {
      Policy p =
          withRateAndSlowCalls().toBuilder()
              .failureRateThreshold(33.3)
              .storeFailureMode(StoreFailureMode.ALLOW_ALL)
              .fallbackPolicy(FallbackPolicy.STATIC_DEFAULT)
              .staticDefault("basic-plan")
              .enabled(false)
              .build();

      Optional<PolicyEncoding.WarmedPolicy> warmed =
          PolicyEncoding.fromFields(warmedHash(p, "orders", 12));

      assertThat(warmed).isPresent();
      assertThat(warmed.get().policy()).isEqualTo(p);
      assertThat(warmed.get().policyId()).isEqualTo("orders");
      assertThat(warmed.get().version()).isEqualTo(12);
    }

    @Test
    @DisplayName("the default policy round-trips with its optional fields absent")
    void defaultRoundTrip() {
      Map<String, String> hash = warmedHash(Policy.DEFAULT, "global", 1);
      assertThat(hash).doesNotContainKeys("p.failureRate", "p.slowCallMillis", "p.staticDefault");

      assertThat(PolicyEncoding.fromFields(hash).map(PolicyEncoding.WarmedPolicy::policy))
          .contains(Policy.DEFAULT);
    }

    @Test
    @DisplayName("p.enabled 0 disables the policy, any other value enables it")
    void enabledFlag() {
      Map<String, String> hash = warmedHash(Policy.DEFAULT, "g", 1);

      hash.put("p.enabled", "0");
      assertThat(PolicyEncoding.fromFields(hash).orElseThrow().policy().enabled()).isFalse();

      hash.put("p.enabled", "1");
      assertThat(PolicyEncoding.fromFields(hash).orElseThrow().policy().enabled()).isTrue();
    }

    @Test
    @DisplayName("without policyVersion nothing was warmed")
    void absentVersion() {
      Map<String, String> hash = warmedHash(withRateAndSlowCalls(), "orders", 2);
      hash.remove("policyVersion");

      assertThat(PolicyEncoding.fromFields(hash)).isEmpty();
      assertThat(PolicyEncoding.fromFields(Map.of())).isEmpty();
      assertThat(PolicyEncoding.fromFields(Map.of("state", "OPEN", "epoch", "1"))).isEmpty();
    }

    @Test
    @DisplayName("a missing policyId reads as empty")
    void absentPolicyId() {
      Map<String, String> hash = warmedHash(Policy.DEFAULT, "x", 4);
      hash.remove("policyId");

      assertThat(PolicyEncoding.fromFields(hash).orElseThrow().policyId()).isEmpty();
    }
  }
}
