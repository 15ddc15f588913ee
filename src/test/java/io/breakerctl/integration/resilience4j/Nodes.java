package io.breakerctl.integration.resilience4j;

import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.Mode;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/** The integration tests' nodes on one Redis, and their bounded wait. */
final class Nodes {
  static final Duration BOUND = Duration.ofSeconds(15);

  private Nodes() {}

  /**
   * Node {@code i} of application {@code app} on {@code redisUri} (HYBRID, a command timeout a
   * loaded machine keeps), with {@link Resilience4jFleetIT#CONFIG} as its default config.
   */
  static BreakerctlCircuitBreakerRegistry.Builder node(String redisUri, String app, int i) {
    return BreakerctlCircuitBreakerRegistry.builder(
            BreakerRegistry.builder()
                .redisUri(redisUri)
                .nodeId(app + "-n" + i)
                .mode(Mode.HYBRID)
                .commandTimeout(Duration.ofSeconds(1)))
        .application(app)
        .defaultConfig(Resilience4jFleetIT.CONFIG);
  }

  /** Waits until {@code condition} holds, at most {@link #BOUND}. */
  static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + BOUND.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + BOUND + ": " + what);
      }
      sleep(5);
    }
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
