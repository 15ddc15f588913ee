package io.breakerctl.integration.resilience4j;

import io.breakerctl.runtime.model.Policy;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig.SlidingWindowType;
import io.github.resilience4j.core.IntervalFunction;
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
 *   <li>{@code waitIntervalFunctionInOpenState}: its first interval ({@code
 *       waitDurationInOpenState}) → {@code openSeconds}, its longest over the first {@value
 *       #BACKOFF_ATTEMPTS} attempts → {@code maxOpenSeconds} (at most seven days). A fixed wait,
 *       Resilience4j's default, gives both the same: the open window does not double after a failed
 *       probe. A backoff function gives breakerctl's doubling up to its longest interval
 *       (breakerctl doubles whatever the function's multiplier);
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

  /** How many of the wait function's intervals are read for the longest open window. */
  public static final int BACKOFF_ATTEMPTS = 30;

  /** The longest open window a policy accepts. */
  static final Duration MAX_OPEN = Duration.ofDays(7);

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
    IntervalFunction waits = config.getWaitIntervalFunctionInOpenState();
    long first = Math.max(1, waits.apply(1));
    long longest = first;
    for (int attempt = 2; attempt <= BACKOFF_ATTEMPTS; attempt++) {
      longest = Math.max(longest, waits.apply(attempt));
    }
    b.open(Duration.ofMillis(first));
    b.maxOpen(Duration.ofMillis(Math.min(longest, MAX_OPEN.toMillis())));
    b.halfOpenPermits(Math.min(1000, config.getPermittedNumberOfCallsInHalfOpenState()));
    if (config.getSlowCallRateThreshold() < 100f) {
      long millis = Math.max(1, config.getSlowCallDurationThreshold().toMillis());
      b.slowCallMillis((int) Math.min(millis, 3_600_000));
    } else {
      b.slowCallMillis(null);
    }
    return b.build();
  }
}
