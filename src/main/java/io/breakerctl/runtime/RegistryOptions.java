package io.breakerctl.runtime;

import io.breakerctl.runtime.control.ControlConfig;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.store.BreakerStore;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongSupplier;

/**
 * A registry's configuration, copied out of its {@link BreakerRegistry.Builder} once by {@code
 * build()}: a running registry keeps no reference to the builder, so reusing a builder (to build
 * another node, or after changing a setting) never changes a registry built before. The fields are
 * the builder's; its setters validate them. Beside the clock, the {@code ticker} (monotonic nanos)
 * and the {@code scheduler} (null: the registry makes its own threads) are the test-only hooks
 * through which a test runs a registry's time.
 *
 * <p>A service never makes one: {@link BreakerRegistry.Builder#build()} hands it to the runtime's
 * {@link BreakerRegistry.Provider}.
 *
 * @param redisUri Redis to connect to (one URI or comma-separated cluster seeds), or null
 * @param redisClient a Lettuce client the service owns, or null
 * @param redisClusterClient a Lettuce cluster client the service owns, or null
 * @param store a store given instead of Redis (tests, the sandbox), or null
 * @param nodeId this node's id
 * @param mode how the breakers decide
 * @param defaults the policy of a breaker before any is warmed or resolved
 * @param commandTimeout how long a command a call waits on may take
 * @param connectTimeout how long a connect may take
 * @param refreshInterval the full refresh without pub/sub
 * @param checkInterval the canary check
 * @param sweepInterval the stamp sweep
 * @param flushInterval the longest a success waits to be sent
 * @param heartbeatInterval the node's liveness beat
 * @param idleTtl the expiry of an idle breaker's keys
 * @param historyHold how long unforwarded events hold the keys
 * @param lastKnownFor how long LAST_KNOWN trusts the last view once degraded
 * @param prefix the key prefix
 * @param clock the clock of the local machines and overrides
 * @param ticker monotonic nanos for every interval the registry measures
 * @param scheduler the scheduler of all the registry's own work (null: its own threads)
 * @param rejectionStackTraces whether rejections fill in their stack traces
 * @param policySource where versioned policies come from, or null
 * @param controlPlane the control plane's MongoDB, or null
 */
public record RegistryOptions(
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
    LongSupplier ticker,
    ScheduledExecutorService scheduler,
    boolean rejectionStackTraces,
    PolicySource policySource,
    ControlConfig controlPlane) {}
