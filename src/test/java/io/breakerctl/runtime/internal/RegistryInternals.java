package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.redis.RedisBreakerStore;
import io.breakerctl.runtime.redis.RedisFleetStore;

/**
 * Test-side access to a registry's internals for the benchmarks in {@code io.breakerctl.bench}
 * (e.g. PING on the very connection the breakers' scripts use) and the tests that need a beat now.
 * Not part of the runtime's API.
 */
public final class RegistryInternals {
  private RegistryInternals() {}

  /**
   * The store (and so the connection) a registry's breakers use, with the operators' port over it;
   * null while never connected.
   */
  public static RedisFleetStore store(BreakerRegistry registry) {
    Object raw = ((DefaultBreakerRegistry) registry).rawStore();
    return raw == null ? null : RedisFleetStore.over((RedisBreakerStore) raw);
  }

  /**
   * A liveness beat now, with the call counts since the previous beat (as the heartbeat timer sends
   * it); its write's future, null while the registry is degraded or not connected.
   */
  public static java.util.concurrent.CompletableFuture<Long> beat(BreakerRegistry registry) {
    return ((DefaultBreakerRegistry) registry).beatNow();
  }

  /** Stops the registry's subscription: the node misses every pub/sub message from now on. */
  public static void stopListening(BreakerRegistry registry) {
    ((DefaultBreakerRegistry) registry).stopListening();
  }
}
