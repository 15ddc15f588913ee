package io.breakerctl.runtime;

import io.breakerctl.runtime.control.ControlConfig;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.store.BreakerStore;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;

/**
 * A registry's configuration, copied out of its {@link BreakerRegistry.Builder} once by {@code
 * build()}: a running registry keeps no reference to the builder, so reusing a builder (to build
 * another node, or after changing a setting) never changes a registry built before. The fields are
 * the builder's; its setters validate them. Beside the clock, the {@code ticker} (monotonic nanos)
 * and the {@code scheduler} (null: the registry makes its own thread) are the test-only hooks
 * through which a test runs a registry's time: they have no public setter.
 */
record RegistryOptions(
    String redisUri,
    RedisClient redisClient,
    RedisClusterClient redisClusterClient,
    BreakerStore store,
    String nodeId,
    Mode mode,
    Policy defaults,
    Duration commandTimeout,
    Duration connectTimeout,
    Duration refreshInterval,
    Duration checkInterval,
    Duration sweepInterval,
    Duration flushInterval,
    Duration heartbeatInterval,
    Duration idleTtl,
    Duration historyHold,
    Duration lastKnownFor,
    String prefix,
    Clock clock,
    Ticker ticker,
    ScheduledExecutorService scheduler,
    boolean rejectionStackTraces,
    PolicySource policySource,
    ControlConfig controlPlane) {}
