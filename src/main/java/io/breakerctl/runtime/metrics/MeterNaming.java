package io.breakerctl.runtime.metrics;

/**
 * Which names a breaker's meters are registered under ({@link BreakerMetrics}, {@link
 * BreakerRegistryMetrics}).
 */
public enum MeterNaming {
  /**
   * breakerctl's own meters only ({@code breakerctl.breaker.*}, tag {@code breaker}): the default.
   */
  BREAKERCTL,

  /**
   * breakerctl's own meters and, beside them, the meters Resilience4j's Micrometer binder registers
   * for its own breakers ({@code resilience4j.circuitbreaker.*}, tag {@code name} = the breaker id,
   * lower-case {@code state} and {@code kind}), so Resilience4j's dashboards and alerts work on a
   * breakerctl fleet. What each carries is in {@code Resilience4jMeters}; Resilience4j itself is
   * not needed on the class path.
   */
  WITH_RESILIENCE4J
}
