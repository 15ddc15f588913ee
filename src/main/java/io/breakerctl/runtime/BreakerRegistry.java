package io.breakerctl.runtime;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.store.BreakerStore;
import io.breakerctl.runtime.store.KeyPrefix;
import io.breakerctl.runtime.store.inprocess.InProcessBreakerStore;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.UUID;
import java.util.function.LongSupplier;

/**
 * The breakers of one node (process). Build with {@link #builder()}; close on shutdown (flushes
 * pending successes, stops background work, closes the connections it opened).
 *
 * <pre>{@code
 * BreakerRegistry registry = BreakerRegistry.builder()
 *     .redisUri("redis://redis:6379").nodeId("claims-7f9c").build();
 * CircuitBreaker members = registry.breaker("claims-service:member-service");
 * Member m = members.call(() -> memberClient.get(id));
 * }</pre>
 */
public interface BreakerRegistry extends AutoCloseable {

  /** The breaker with this id (created on first use; the same instance afterwards). */
  CircuitBreaker breaker(BreakerId id);

  /** The breaker with this id. */
  default CircuitBreaker breaker(String id) {
    return breaker(BreakerId.parse(id));
  }

  /** This node's id, as it appears in heartbeats and leases. */
  String nodeId();

  /** The mode of every breaker of this registry. */
  Mode mode();

  /**
   * Whether Redis is currently unreachable or refuses this node's work (the node decides alone).
   */
  boolean degraded();

  /**
   * Why the node is degraded, while it is: a {@link io.breakerctl.runtime.store.StoreFault} code
   * ({@code timeout}, {@code unreachable}, {@code oom}, {@code readonly}, {@code noperm}, ...).
   */
  default java.util.Optional<String> degradedReason() {
    return java.util.Optional.empty();
  }

  /**
   * Failed attempts of a background task since the registry started (refresh, flush, forwarding,
   * policy resolution, subscription, unreadable messages). Each task logs once when it starts
   * failing and once when it works again.
   */
  long backgroundFailures(BackgroundTask task);

  /**
   * What this node's Redis commands have cost and how often they failed, in total and by {@link
   * StoreCommand} (every command sent through the store, timed at the store boundary), and how long
   * the node has been degraded, since it started ({@link StoreStats#NONE} in LOCAL mode).
   */
  StoreStats storeStats();

  /**
   * Hot copies of approved fallback snapshots in this registry's Redis, for {@link
   * io.breakerctl.runtime.control.fallback.FallbackSnapshots#withHotCopies}: commands timed and
   * bounded like the node's others, and missing at once while the node is degraded ({@link
   * io.breakerctl.runtime.HotSnapshots#NONE} in LOCAL mode).
   */
  default io.breakerctl.runtime.HotSnapshots hotSnapshots() {
    return io.breakerctl.runtime.HotSnapshots.NONE;
  }

  /** Flushes pending outcomes (best effort) and releases everything the registry started. */
  @Override
  void close();

  /**
   * A builder with defaults: HYBRID, 50 ms command timeout, changes by push with a 5 s canary check
   * and a 60 s stamp sweep (1 s full refresh without pub/sub), successes flushed within 20 s, the
   * node's liveness every 60 s, a breaker's report on change or every 10 minutes.
   */
  static Builder builder() {
    return new Builder();
  }

  /** The default {@link Builder#flushInterval}. */
  Duration DEFAULT_FLUSH_INTERVAL = Duration.ofSeconds(20);

  /** The default {@link Builder#historyHold}. */
  Duration DEFAULT_HISTORY_HOLD = Duration.ofDays(7);

  /** Builds a registry. */
  final class Builder {
    String redisUri;
    RedisClient redisClient;
    RedisClusterClient redisClusterClient;
    BreakerStore store;
    String nodeId = "node-" + UUID.randomUUID().toString().substring(0, 8);
    Mode mode = Mode.HYBRID;
    Policy defaults = Policy.DEFAULT;
    Duration commandTimeout = Duration.ofMillis(50);
    Duration connectTimeout = Duration.ofSeconds(1);
    Duration refreshInterval = Duration.ofSeconds(1);
    Duration checkInterval = Duration.ofSeconds(5);
    Duration sweepInterval = Duration.ofSeconds(60);
    Duration flushInterval = DEFAULT_FLUSH_INTERVAL;
    Duration heartbeatInterval = Duration.ofSeconds(60);
    Duration idleTtl = Duration.ofDays(7);
    Duration historyHold = DEFAULT_HISTORY_HOLD;
    Duration lastKnownFor = Duration.ofSeconds(30);
    String prefix = KeyPrefix.DEFAULT;
    Clock clock = Clock.systemUTC();
    boolean rejectionStackTraces;
    PolicySource policySource;
    io.breakerctl.runtime.control.ControlConfig controlPlane;
    LongSupplier ticker = System::nanoTime;
    java.util.concurrent.ScheduledExecutorService scheduler;

    Builder() {}

    /** Redis to connect to: one URI, or comma-separated cluster seeds. */
    public Builder redisUri(String uri) {
      this.redisUri = Objects.requireNonNull(uri, "uri");
      return this;
    }

    /** An existing Lettuce client (its options apply; the registry opens its own connections). */
    public Builder redisClient(RedisClient client) {
      this.redisClient = Objects.requireNonNull(client, "client");
      return this;
    }

    /** An existing Lettuce cluster client. */
    public Builder redisClusterClient(RedisClusterClient client) {
      this.redisClusterClient = Objects.requireNonNull(client, "client");
      return this;
    }

    /**
     * The shared store to use instead of Redis (the registry never closes it): an {@link
     * InProcessBreakerStore} for tests, or one several registries share as an in-process fleet.
     */
    public Builder store(BreakerStore store) {
      this.store = Objects.requireNonNull(store, "store");
      return this;
    }

    /** This node's id (default: a random one). */
    public Builder nodeId(String nodeId) {
      if (nodeId == null || nodeId.isBlank() || nodeId.contains("|")) {
        throw new IllegalArgumentException(
            "nodeId must be non-blank without '|' but was '" + nodeId + "'");
      }
      this.nodeId = nodeId;
      return this;
    }

    /** The mode (default HYBRID). */
    public Builder mode(Mode mode) {
      this.mode = Objects.requireNonNull(mode, "mode");
      return this;
    }

    /** The policy used while none is warmed in Redis and no control plane resolves one. */
    public Builder defaults(Policy defaults) {
      this.defaults = Objects.requireNonNull(defaults, "defaults");
      return this;
    }

    /** Bound of every Redis command a call may wait on (default 50 ms). */
    public Builder commandTimeout(Duration timeout) {
      this.commandTimeout = positive("commandTimeout", timeout);
      return this;
    }

    /**
     * Bound of connecting to Redis (default 1 s); {@link #build()} waits at most this long, then
     * starts degraded and keeps connecting in the background.
     */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = positive("connectTimeout", timeout);
      return this;
    }

    /**
     * How often a node whose pub/sub subscription works checks that Redis kept its data (default 5
     * s): one GET of a canary key per master, whose token changes when a master lost its data
     * without closing a connection (FLUSHALL) or its slots moved to another node (a Cluster
     * failover). While the subscription's connection stays up no message is lost; when it
     * reconnects, or the canary moved, the node compares every breaker's change stamp (generation,
     * epoch, policy version: pipelined HMGETs) with what it holds and reads in full only those that
     * moved.
     */
    public Builder checkInterval(Duration interval) {
      this.checkInterval = positive("checkInterval", interval);
      return this;
    }

    /**
     * How often a node whose subscription works compares every breaker's change stamp anyway
     * (default 60 s, each node at its own phase): what covers a loss neither a connection nor the
     * canary shows, e.g. one breaker's keys deleted or evicted.
     */
    public Builder sweepInterval(Duration interval) {
      this.sweepInterval = positive("sweepInterval", interval);
      return this;
    }

    /**
     * How often a node reads every breaker's state in full while its pub/sub subscription is not
     * working (default 1 s); while it works, changes arrive by push and {@link #checkInterval}
     * covers lost messages.
     */
    public Builder refreshInterval(Duration interval) {
      this.refreshInterval = positive("refreshInterval", interval);
      return this;
    }

    /**
     * The longest a success waits on the node before it reaches the shared window (default 20 s).
     * Failures go at once; successes go earlier when the window needs them (a policy with a failure
     * rate: every tick of at most 1 s) or when many are pending. A count-only policy trips on
     * failures alone, so its successes only keep the fleet view's counts current: the default lets
     * them lag by up to a third of the default window for half the Redis cost of 10 s ({@code
     * scripts/bench scale}, src/docs/performance.md).
     */
    public Builder flushInterval(Duration interval) {
      this.flushInterval = positive("flushInterval", interval);
      return this;
    }

    /**
     * How often a node writes its liveness for the fleet view (default 60 s; one write for all its
     * breakers, valid for three intervals, so a dead node leaves the fleet view within three). Its
     * report on a breaker (state, policy version, degraded) goes at the next flush tick when it
     * changes, else every ten intervals, at most every 10 minutes; reports not renewed for 30
     * minutes are pruned.
     */
    public Builder heartbeatInterval(Duration interval) {
      this.heartbeatInterval = positive("heartbeatInterval", interval);
      return this;
    }

    /**
     * How long a breaker whose policy says {@code storeFailureMode: LAST_KNOWN} decides from the
     * fleet state it last read once Redis stops answering (default 30 s); after that it decides per
     * process. A live operator override it has seen stays in force past this, until its expiry.
     */
    public Builder lastKnownFor(Duration duration) {
      this.lastKnownFor = positive("lastKnownFor", duration);
      return this;
    }

    /** The key prefix (default {@code cb}). */
    public Builder prefix(String prefix) {
      this.prefix = KeyPrefix.check(prefix);
      return this;
    }

    /** Idle expiry of breaker keys (default 7 days). */
    public Builder idleTtl(Duration ttl) {
      this.idleTtl = positive("idleTtl", ttl);
      return this;
    }

    /**
     * With a {@link #controlPlane control plane}: how long, at most, events the history forwarder
     * has not stored hold a breaker's keys in Redis (default 7 days). After it the keys expire when
     * idle as any others, and the events still unforwarded are given up and counted ({@code
     * eventsExpired}, shown by {@code breakerctl describe} and {@code doctor}). Without a control
     * plane history has no destination: the stream keeps a bounded tail and holds nothing.
     */
    public Builder historyHold(Duration hold) {
      this.historyHold = positive("historyHold", hold);
      return this;
    }

    /** The clock of the local state machines (tests). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * The monotonic time (nanos) the registry measures its intervals with (tests: a ticker they
     * advance; default {@link System#nanoTime}).
     */
    public Builder ticker(LongSupplier ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /**
     * The scheduler the registry runs all its own work on, shut down by the registry's close
     * (tests: one whose time they advance). By default a registry runs three daemon threads' worth:
     * one for the periodic and background work, a timer for what must go on time and never waits
     * (lease renewals, in-flight sweeps), and a thread per running health-check probe.
     */
    public Builder scheduler(java.util.concurrent.ScheduledExecutorService scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /** Whether rejections carry a stack trace (default false: they are expected and frequent). */
    public Builder rejectionStackTraces(boolean enabled) {
      this.rejectionStackTraces = enabled;
      return this;
    }

    /**
     * Where to resolve a policy when Redis holds none for a breaker (e.g. the MongoDB control
     * plane); the source also warms what it resolves.
     */
    public Builder policySource(PolicySource source) {
      this.policySource = source;
      return this;
    }

    /**
     * The MongoDB control plane: transitions this node wins are handed to it asynchronously, the
     * node takes part in electing the fleet's history forwarder (a Redis lease), and breakers
     * without a policy in Redis resolve one from it (own id, {@code caller:*}, {@code *:*}) and
     * warm it. MongoDB being down never affects a call.
     */
    public Builder controlPlane(io.breakerctl.runtime.control.ControlConfig config) {
      this.controlPlane = Objects.requireNonNull(config, "config");
      return this;
    }

    /**
     * Builds the registry. Never fails because Redis is down: the registry then starts degraded and
     * connects in the background.
     */
    public BreakerRegistry build() {
      if (mode != Mode.LOCAL
          && redisUri == null
          && redisClient == null
          && redisClusterClient == null
          && store == null) {
        throw new IllegalStateException(
            mode + " mode needs Redis: set redisUri, redisClient or a store");
      }
      return Provider.installed()
          .create(
              new RegistryOptions(
                  redisUri,
                  redisClient,
                  redisClusterClient,
                  store,
                  nodeId,
                  mode,
                  defaults,
                  commandTimeout,
                  connectTimeout,
                  refreshInterval,
                  checkInterval,
                  sweepInterval,
                  flushInterval,
                  heartbeatInterval,
                  idleTtl,
                  historyHold,
                  lastKnownFor,
                  prefix,
                  clock,
                  ticker,
                  scheduler,
                  rejectionStackTraces,
                  policySource,
                  controlPlane));
    }

    private static Duration positive(String name, Duration d) {
      Objects.requireNonNull(d, name);
      if (d.isZero() || d.isNegative()) {
        throw new IllegalArgumentException(name + " must be > 0 but was " + d);
      }
      return d;
    }
  }

  /**
   * The implementation behind {@link #builder()}: the runtime's own ({@code
   * io.breakerctl.runtime.internal}), registered as a service in its jar ({@code
   * META-INF/services/io.breakerctl.runtime.BreakerRegistry$Provider}). The API names no
   * implementation class, so the packages a service uses ({@code io.breakerctl.runtime}, {@code
   * io.breakerctl.runtime.model}) depend on nothing of the implementation, and the implementation,
   * which depends on them, stays free to change. A service never implements or calls this.
   */
  interface Provider {

    /** Makes a registry of {@code options}; never fails because Redis is down. */
    BreakerRegistry create(RegistryOptions options);

    /**
     * The provider installed with the runtime (looked up once, at the first build).
     *
     * @throws IllegalStateException when none is on the class path (a jar repackaged without its
     *     service files)
     */
    static Provider installed() {
      return Installed.PROVIDER;
    }
  }

  /** The provider lookup, run once at first use. */
  final class Installed {
    private Installed() {}

    static final Provider PROVIDER =
        ServiceLoader.load(Provider.class, Provider.class.getClassLoader())
            .findFirst()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "no io.breakerctl.runtime.BreakerRegistry.Provider on the class path: the"
                            + " breakerctl runtime's jar is missing or was repackaged without its"
                            + " META-INF/services files"));
  }
}
