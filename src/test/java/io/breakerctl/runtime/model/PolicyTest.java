package io.breakerctl.runtime.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("Policy")
class PolicyTest {

  private static Policy custom() {
    return Policy.builder()
        .failureThreshold(7)
        .window(Duration.ofSeconds(20))
        .failureRateThreshold(12.5)
        .minimumCalls(40)
        .slowCallMillis(250)
        .open(Duration.ofMillis(1500))
        .maxOpen(Duration.ofMinutes(2))
        .halfOpenPermits(3)
        .probeLease(Duration.ofSeconds(4))
        .storeFailureMode(StoreFailureMode.LAST_KNOWN)
        .fallbackPolicy(FallbackPolicy.CACHED)
        .staticDefault("basic-plan")
        .enabled(false)
        .build();
  }

  @Nested
  @DisplayName("defaults")
  class Defaults {

    @Test
    @DisplayName("Policy.DEFAULT carries the documented default constants")
    void defaultsMatchConstants() {
      Policy p = Policy.DEFAULT;

      assertThat(p.failureThreshold()).isEqualTo(Policy.DEFAULT_FAILURE_THRESHOLD).isEqualTo(5);
      assertThat(p.window()).isEqualTo(Policy.DEFAULT_WINDOW).isEqualTo(Duration.ofSeconds(60));
      assertThat(p.minimumCalls()).isEqualTo(Policy.DEFAULT_MINIMUM_CALLS).isEqualTo(20);
      assertThat(p.open()).isEqualTo(Policy.DEFAULT_OPEN).isEqualTo(Duration.ofSeconds(30));
      assertThat(p.maxOpen()).isEqualTo(Policy.DEFAULT_MAX_OPEN).isEqualTo(Duration.ofMinutes(5));
      assertThat(p.halfOpenPermits()).isEqualTo(Policy.DEFAULT_HALF_OPEN_PERMITS).isEqualTo(1);
      assertThat(p.probeLease())
          .isEqualTo(Policy.DEFAULT_PROBE_LEASE)
          .isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    @DisplayName("optional checks are off, the breaker enabled, LOCAL_ONLY and no fallback")
    void optionalDefaults() {
      Policy p = Policy.DEFAULT;

      assertThat(p.failureRateThreshold()).isEmpty();
      assertThat(p.slowCallMillis()).isEmpty();
      assertThat(p.enabled()).isTrue();
      assertThat(p.storeFailureMode()).isEqualTo(StoreFailureMode.LOCAL_ONLY);
      assertThat(p.fallbackPolicy()).isEqualTo(FallbackPolicy.NONE);
      assertThat(p.staticDefault()).isEmpty();
    }

    @Test
    @DisplayName("an untouched builder builds DEFAULT")
    void builderDefaults() {
      assertThat(Policy.builder().build()).isEqualTo(Policy.DEFAULT);
    }
  }

  @Nested
  @DisplayName("setters reject out-of-range values, naming field and value")
  class Validation {

    @Test
    @DisplayName("failureThreshold 0")
    void failureThresholdZero() {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> Policy.builder().failureThreshold(0))
          .withMessage("failureThreshold must be >= 1 but was 0");
    }

    @Test
    @DisplayName("failureThreshold above 1,000,000")
    void failureThresholdTooLarge() {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> Policy.builder().failureThreshold(1_000_001))
          .withMessage("failureThreshold must be <= 1000000 but was 1000001");
      assertThat(Policy.builder().failureThreshold(1_000_000).build().failureThreshold())
          .isEqualTo(1_000_000);
    }

    @Test
    @DisplayName("halfOpenPermits 0 and 1001")
    void halfOpenPermits() {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> Policy.builder().halfOpenPermits(0))
          .withMessage("halfOpenPermits must be >= 1 but was 0");
      assertThatIllegalArgumentException()
          .isThrownBy(() -> Policy.builder().halfOpenPermits(1001))
          .withMessage("halfOpenPermits must be <= 1000 but was 1001");
      assertThat(Policy.builder().halfOpenPermits(1000).build().halfOpenPermits()).isEqualTo(1000);
    }

    @Test
    @DisplayName("windowSeconds 0")
    void windowZero() {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> Policy.builder().window(Duration.ZERO))
          .withMessage("windowSeconds must be >= 0.01 but was 0");
      assertThat(Policy.builder().window(Duration.ofMillis(10)).build().window())
          .isEqualTo(Duration.ofMillis(10));
    }

    @Test
    @DisplayName("windowSeconds above one day")
    void windowTooLong() {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> Policy.builder().window(Duration.ofDays(1).plusMillis(1)))
          .withMessage("windowSeconds must be <= 86400 but was 86400.001");
    }

    @Test
    @DisplayName("failureRateThreshold 0, 101 and NaN")
    void failureRate() {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> Policy.builder().failureRateThreshold(0.0))
          .withMessage("failureRateThreshold must be > 0 and <= 100 but was 0.0");
      assertThatIllegalArgumentException()
          .isThrownBy(() -> Policy.builder().failureRateThreshold(101.0))
          .withMessage("failureRateThreshold must be > 0 and <= 100 but was 101.0");
      assertThatIllegalArgumentException()
          .isThrownBy(() -> Policy.builder().failureRateThreshold(Double.NaN))
          .withMessage("failureRateThreshold must be > 0 and <= 100 but was NaN");
      assertThat(Policy.builder().failureRateThreshold(100.0).build().failureRateThreshold())
          .hasValue(100.0);
    }

    @Test
    @DisplayName("failureRateThreshold null turns the rate check off")
    void failureRateNull() {
      Policy p = custom().toBuilder().failureRateThreshold(null).build();

      assertThat(p.failureRateThreshold()).isEmpty();
    }

    @Test
    @DisplayName("minimumCalls 0")
    void minimumCallsZero() {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> Policy.builder().minimumCalls(0))
          .withMessage("minimumCalls must be >= 1 but was 0");
    }

    @Test
    @DisplayName("slowCallMillis 0 and above one hour")
    void slowCall() {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> Policy.builder().slowCallMillis(0))
          .withMessage("slowCallMillis must be >= 1 but was 0");
      assertThatIllegalArgumentException()
          .isThrownBy(() -> Policy.builder().slowCallMillis(3_600_001))
          .withMessage("slowCallMillis must be <= 3600000 but was 3600001");
      assertThat(custom().toBuilder().slowCallMillis(null).build().slowCallMillis()).isEmpty();
    }

    @Test
    @DisplayName("probeLeaseSeconds 0")
    void probeLeaseZero() {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> Policy.builder().probeLease(Duration.ZERO))
          .withMessage("probeLeaseSeconds must be >= 0.001 but was 0");
    }

    @Test
    @DisplayName("openSeconds that is not a whole number of milliseconds (1.5 ms)")
    void openFractionalMillis() {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> Policy.builder().open(Duration.ofNanos(1_500_000)))
          .withMessage("openSeconds must be a whole number of milliseconds but was 0.0015");
    }

    @Test
    @DisplayName("a negative openSeconds")
    void openNegative() {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> Policy.builder().open(Duration.ofSeconds(-1)))
          .withMessage("openSeconds must be >= 0.001 but was -1");
    }

    @Test
    @DisplayName("null durations and enums name the field")
    void nulls() {
      assertThatNullPointerException()
          .isThrownBy(() -> Policy.builder().open(null))
          .withMessage("openSeconds");
      assertThatNullPointerException()
          .isThrownBy(() -> Policy.builder().storeFailureMode(null))
          .withMessage("storeFailureMode");
      assertThatNullPointerException()
          .isThrownBy(() -> Policy.builder().fallbackPolicy(null))
          .withMessage("fallbackPolicy");
    }

    @Test
    @DisplayName("a staticDefault name is a lower-case name; the error quotes the value")
    void staticDefaultNames() {
      assertThat(Policy.builder().staticDefault("plan-b.v2").build().staticDefault())
          .contains("plan-b.v2");
      assertThat(Policy.builder().staticDefault("x").staticDefault(null).build().staticDefault())
          .isEmpty();
      for (String bad : new String[] {"", "Plan", "-a", "a b", "a".repeat(64), "a\nb"}) {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> Policy.builder().staticDefault(bad))
            .withMessage(
                "staticDefault must be a name matching [a-z0-9][a-z0-9._-]{0,62} but was \""
                    + bad
                    + "\"");
      }
    }

    @Test
    @DisplayName("a rejected value leaves the builder unchanged")
    void rejectionKeepsBuilder() {
      Policy.Builder b = Policy.builder().failureThreshold(9);

      assertThatIllegalArgumentException().isThrownBy(() -> b.failureThreshold(0));

      assertThat(b.build().failureThreshold()).isEqualTo(9);
    }
  }

  @Nested
  @DisplayName("build()")
  class Build {

    @Test
    @DisplayName("rejects maxOpenSeconds below openSeconds")
    void maxOpenBelowOpen() {
      Policy.Builder b =
          Policy.builder().open(Duration.ofSeconds(30)).maxOpen(Duration.ofSeconds(10));

      assertThatIllegalArgumentException()
          .isThrownBy(b::build)
          .withMessage("maxOpenSeconds must be >= openSeconds (30) but was 10");
    }

    @Test
    @DisplayName("accepts maxOpenSeconds equal to openSeconds")
    void maxOpenEqualsOpen() {
      Policy p =
          Policy.builder().open(Duration.ofSeconds(45)).maxOpen(Duration.ofSeconds(45)).build();

      assertThat(p.maxOpen()).isEqualTo(p.open());
    }
  }

  @Nested
  @DisplayName("value semantics")
  class ValueSemantics {

    @Test
    @DisplayName("toBuilder().build() round-trips every field")
    void toBuilderRoundTrip() {
      Policy p = custom();

      Policy copy = p.toBuilder().build();

      assertThat(copy).isEqualTo(p).hasSameHashCodeAs(p);
      assertThat(copy.failureThreshold()).isEqualTo(7);
      assertThat(copy.window()).isEqualTo(Duration.ofSeconds(20));
      assertThat(copy.failureRateThreshold()).hasValue(12.5);
      assertThat(copy.minimumCalls()).isEqualTo(40);
      assertThat(copy.slowCallMillis()).hasValue(250);
      assertThat(copy.open()).isEqualTo(Duration.ofMillis(1500));
      assertThat(copy.maxOpen()).isEqualTo(Duration.ofMinutes(2));
      assertThat(copy.halfOpenPermits()).isEqualTo(3);
      assertThat(copy.probeLease()).isEqualTo(Duration.ofSeconds(4));
      assertThat(copy.storeFailureMode()).isEqualTo(StoreFailureMode.LAST_KNOWN);
      assertThat(copy.fallbackPolicy()).isEqualTo(FallbackPolicy.CACHED);
      assertThat(copy.enabled()).isFalse();
    }

    @Test
    @DisplayName("toBuilder does not alias the original")
    void toBuilderIsIndependent() {
      Policy p = custom();

      Policy changed = p.toBuilder().failureThreshold(8).build();

      assertThat(p.failureThreshold()).isEqualTo(7);
      assertThat(changed).isNotEqualTo(p);
    }

    @Test
    @DisplayName("equals and hashCode see every field")
    void equalsSeesEveryField() {
      Policy base = custom();

      assertThat(base).isEqualTo(custom()).hasSameHashCodeAs(custom());
      assertThat(base.toBuilder().failureThreshold(8).build()).isNotEqualTo(base);
      assertThat(base.toBuilder().window(Duration.ofSeconds(21)).build()).isNotEqualTo(base);
      assertThat(base.toBuilder().failureRateThreshold(12.6).build()).isNotEqualTo(base);
      assertThat(base.toBuilder().failureRateThreshold(null).build()).isNotEqualTo(base);
      assertThat(base.toBuilder().minimumCalls(41).build()).isNotEqualTo(base);
      assertThat(base.toBuilder().slowCallMillis(251).build()).isNotEqualTo(base);
      assertThat(base.toBuilder().open(Duration.ofMillis(1501)).build()).isNotEqualTo(base);
      assertThat(base.toBuilder().maxOpen(Duration.ofMinutes(3)).build()).isNotEqualTo(base);
      assertThat(base.toBuilder().halfOpenPermits(4).build()).isNotEqualTo(base);
      assertThat(base.toBuilder().probeLease(Duration.ofSeconds(5)).build()).isNotEqualTo(base);
      assertThat(base.toBuilder().storeFailureMode(StoreFailureMode.ALLOW_ALL).build())
          .isNotEqualTo(base);
      assertThat(base.toBuilder().fallbackPolicy(FallbackPolicy.NONE).build()).isNotEqualTo(base);
      assertThat(base.toBuilder().staticDefault("other").build()).isNotEqualTo(base);
      assertThat(base.toBuilder().staticDefault(null).build()).isNotEqualTo(base);
      assertThat(base.toBuilder().enabled(true).build()).isNotEqualTo(base);
      assertThat(base).isNotEqualTo(null).isNotEqualTo("policy");
    }
  }

  @Nested
  @DisplayName("seconds()")
  class Seconds {

    @ParameterizedTest(name = "{0} ms -> \"{1}\"")
    @CsvSource({"500,0.5", "30000,30", "0,0", "1,0.001", "10,0.01", "1500,1.5", "86400000,86400"})
    @DisplayName("formats as the policy document spells it")
    void formats(long millis, String expected) {
      assertThat(Policy.seconds(Duration.ofMillis(millis))).isEqualTo(expected);
    }
  }
}
