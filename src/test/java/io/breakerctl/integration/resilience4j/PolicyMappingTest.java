package io.breakerctl.integration.resilience4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.StoreFailureMode;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig.SlidingWindowType;
import io.github.resilience4j.core.IntervalFunction;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

@DisplayName("A Resilience4j config as breakerctl's node defaults, names as ids, states as states")
class PolicyMappingTest {

  @Nested
  @DisplayName("the config's tunables")
  class Tunables {

    @Test
    @DisplayName("Resilience4j's defaults: rate 50 % over 100 calls, a fixed 60 s open window")
    void defaults() {
      Policy p = PolicyMapping.policy(CircuitBreakerConfig.ofDefaults());

      assertThat(p.failureRateThreshold()).hasValue(50.0);
      assertThat(p.failureThreshold()).isEqualTo(PolicyMapping.NO_COUNT_THRESHOLD);
      assertThat(p.minimumCalls()).isEqualTo(100);
      assertThat(p.open()).isEqualTo(Duration.ofSeconds(60));
      assertThat(p.maxOpen()).as("no backoff: Resilience4j waits a fixed time").isEqualTo(p.open());
      assertThat(p.halfOpenPermits()).isEqualTo(10);
      assertThat(p.slowCallMillis()).as("slow rate 100 %: slow calls not counted apart").isEmpty();
      assertThat(p.window())
          .as("count-based: the base policy's window")
          .isEqualTo(Policy.DEFAULT_WINDOW);
    }

    @Test
    @DisplayName("a time-based window, its wait, its half-open permits and slow calls")
    void custom() {
      CircuitBreakerConfig c =
          CircuitBreakerConfig.custom()
              .failureRateThreshold(25)
              .slidingWindow(30, 8, SlidingWindowType.TIME_BASED)
              .waitDurationInOpenState(Duration.ofMillis(1500))
              .permittedNumberOfCallsInHalfOpenState(2)
              .slowCallRateThreshold(80)
              .slowCallDurationThreshold(Duration.ofMillis(750))
              .build();

      Policy p = PolicyMapping.policy(c);

      assertThat(p.failureRateThreshold()).hasValue(25.0);
      assertThat(p.window()).isEqualTo(Duration.ofSeconds(30));
      assertThat(p.minimumCalls()).isEqualTo(8);
      assertThat(p.open()).isEqualTo(Duration.ofMillis(1500));
      assertThat(p.maxOpen()).isEqualTo(Duration.ofMillis(1500));
      assertThat(p.halfOpenPermits()).isEqualTo(2);
      assertThat(p.slowCallMillis()).hasValue(750);
    }

    @Test
    @DisplayName("a count-based window caps minimumCalls at its size, as Resilience4j reads it")
    void countWindowCapsMinimum() {
      CircuitBreakerConfig c =
          CircuitBreakerConfig.custom()
              .slidingWindow(10, 50, SlidingWindowType.COUNT_BASED)
              .build();

      assertThat(PolicyMapping.policy(c).minimumCalls()).isEqualTo(10);
    }

    @Test
    @DisplayName(
        "a backoff function: its first interval opens, its longest is maxOpen, whatever the base's")
    void waitFunction() {
      CircuitBreakerConfig c =
          CircuitBreakerConfig.custom()
              .waitIntervalFunctionInOpenState(
                  IntervalFunction.ofExponentialBackoff(20_000, 2, 120_000))
              .build();
      Policy base =
          Policy.builder().open(Duration.ofSeconds(5)).maxOpen(Duration.ofSeconds(10)).build();

      Policy p = PolicyMapping.policy(c, base);

      assertThat(p.open()).isEqualTo(Duration.ofSeconds(20));
      assertThat(p.maxOpen()).isEqualTo(Duration.ofSeconds(120));
    }

    @Test
    @DisplayName("a backoff without a bound stops at the longest open window a policy accepts")
    void unboundedBackoff() {
      CircuitBreakerConfig c =
          CircuitBreakerConfig.custom()
              .waitIntervalFunctionInOpenState(IntervalFunction.ofExponentialBackoff(60_000, 2))
              .build();

      assertThat(PolicyMapping.policy(c).maxOpen()).isEqualTo(Duration.ofDays(7));
    }

    @Test
    @DisplayName("fields Resilience4j has no twin for come from the base policy")
    void base() {
      Policy base =
          Policy.builder()
              .storeFailureMode(StoreFailureMode.LAST_KNOWN)
              .probeLease(Duration.ofSeconds(3))
              .window(Duration.ofSeconds(20))
              .build();

      Policy p = PolicyMapping.policy(CircuitBreakerConfig.ofDefaults(), base);

      assertThat(p.storeFailureMode()).isEqualTo(StoreFailureMode.LAST_KNOWN);
      assertThat(p.probeLease()).isEqualTo(Duration.ofSeconds(3));
      assertThat(p.window()).isEqualTo(Duration.ofSeconds(20));
    }

    @Test
    @DisplayName("a value no policy accepts is refused with the policy field's name")
    void outOfRange() {
      CircuitBreakerConfig c =
          CircuitBreakerConfig.custom().waitDurationInOpenState(Duration.ofDays(2)).build();

      assertThatThrownBy(() -> PolicyMapping.policy(c)).hasMessageContaining("openSeconds");
    }
  }

  @Nested
  @DisplayName("names and states")
  class NamesAndStates {

    @Test
    @DisplayName("an instance name becomes <application>:<name> in id spelling")
    void ids() {
      assertThat(BreakerctlCircuitBreakerRegistry.defaultId("claims", "members"))
          .isEqualTo(BreakerId.parse("claims:members"));
      assertThat(BreakerctlCircuitBreakerRegistry.defaultId("claims", "memberService"))
          .isEqualTo(BreakerId.parse("claims:member-service"));
      assertThat(BreakerctlCircuitBreakerRegistry.defaultId("claims", "backend A"))
          .isEqualTo(BreakerId.parse("claims:backend-a"));
      assertThatThrownBy(() -> BreakerctlCircuitBreakerRegistry.defaultId("Claims!", "x"))
          .hasMessageContaining("'x'")
          .hasMessageContaining("name mapping");
    }

    @Test
    @DisplayName("every state has a Resilience4j name; FORCED_CLOSED reads METRICS_ONLY")
    void states() {
      assertThat(States.of(State.CLOSED)).isEqualTo(CircuitBreaker.State.CLOSED);
      assertThat(States.of(State.OPEN)).isEqualTo(CircuitBreaker.State.OPEN);
      assertThat(States.of(State.HALF_OPEN)).isEqualTo(CircuitBreaker.State.HALF_OPEN);
      assertThat(States.of(State.FORCED_OPEN)).isEqualTo(CircuitBreaker.State.FORCED_OPEN);
      assertThat(States.of(State.DISABLED)).isEqualTo(CircuitBreaker.State.DISABLED);
      assertThat(States.of(State.METRICS_ONLY)).isEqualTo(CircuitBreaker.State.METRICS_ONLY);
      assertThat(States.of(State.FORCED_CLOSED)).isEqualTo(CircuitBreaker.State.METRICS_ONLY);
    }
  }
}
