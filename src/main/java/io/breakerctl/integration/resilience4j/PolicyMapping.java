package io.breakerctl.integration.resilience4j;

import io.breakerctl.runtime.model.Policy;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig.SlidingWindowType;
import java.time.Duration;
import java.util.Objects;

/**
 * A Resilience4j {@link CircuitBreakerConfig} as a breakerctl {@link Policy}: what the registry
 * installs as the node defaults ({@code BreakerRegistry.Builder#defaults}). The mapping, field by
 * field (the package documentation says why):
 *
 * <ul>
 *   <li>{@code failureRateThreshold} → {@code failureRateThreshold}; {@code minimumNumberOfCalls} →
 *       {@code minimumCalls} (for a COUNT_BASED window, at most {@code slidingWindowSize}, as
 *       Resilience4j reads it);
 *   <li>{@code failureThreshold} (a count of failures, which Resilience4j has not) → its maximum,
 *       1,000,000: the rate decides, as in Resilience4j;
 *   <li>TIME_BASED {@code slidingWindowSize} (seconds) → {@code windowSeconds}; a COUNT_BASED
 *       window (the last N calls) has no time twin: the base policy's window;
 *   <li>{@code waitIntervalFunctionInOpenState} (its first interval: {@code
 *       waitDurationInOpenState}) → {@code openSeconds} and {@code maxOpenSeconds} both, so the
 *       open window does not double after a failed probe (a fixed wait, as Resilience4j waits);
 *   <li>{@code permittedNumberOfCallsInHalfOpenState} → {@code halfOpenPermits} (at most 1,000);
 *   <li>{@code slowCallDurationThreshold} → {@code slowCallMillis} when {@code
 *       slowCallRateThreshold} is below 100, else off: breakerctl counts a slow call as a failure,
 *       and only a rate below 100 % says the user wants slow calls to trip the breaker;
 *   <li>every other field (probe lease, maxProbe, storeFailureMode, fallbackPolicy, criticality)
 *       from the base policy.
 * </ul>
 */
public final class PolicyMapping {

  /** What {@code failureThreshold} becomes: its maximum, so the failure rate decides. */
  public static final int NO_COUNT_THRESHOLD = 1_000_000;

  private PolicyMapping() {}

  /** {@code config} over {@link Policy#DEFAULT}. */
  public static Policy policy(CircuitBreakerConfig config) {
    return policy(config, Policy.DEFAULT);
  }

  /**
   * {@code config} over {@code base} (the fields Resilience4j has no twin for).
   *
   * @throws IllegalArgumentException when a mapped value is outside what a policy accepts (the
   *     message names the policy field and the value)
   */
  public static Policy policy(CircuitBreakerConfig config, Policy base) {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(base, "base");
    Policy.Builder b = base.toBuilder();
    b.failureThreshold(NO_COUNT_THRESHOLD);
    b.failureRateThreshold((double) config.getFailureRateThreshold());
    int minimum = config.getMinimumNumberOfCalls();
    if (config.getSlidingWindowType() == SlidingWindowType.COUNT_BASED) {
      minimum = Math.min(minimum, config.getSlidingWindowSize());
    } else {
      b.window(Duration.ofSeconds(config.getSlidingWindowSize()));
    }
    b.minimumCalls(Math.max(1, minimum));
    Duration wait = wholeMillis(waitInOpenState(config));
    b.open(wait);
    b.maxOpen(wait);
    b.halfOpenPermits(Math.min(1000, config.getPermittedNumberOfCallsInHalfOpenState()));
    if (config.getSlowCallRateThreshold() < 100f) {
      long millis = Math.max(1, config.getSlowCallDurationThreshold().toMillis());
      b.slowCallMillis((int) Math.min(millis, 3_600_000));
    } else {
      b.slowCallMillis(null);
    }
    return b.build();
  }

  /**
   * The first wait in the open state ({@code waitDurationInOpenState} unless a function is set).
   */
  static Duration waitInOpenState(CircuitBreakerConfig config) {
    return Duration.ofMillis(config.getWaitIntervalFunctionInOpenState().apply(1));
  }

  private static Duration wholeMillis(Duration d) {
    return Duration.ofMillis(Math.max(1, d.toMillis()));
  }
}
