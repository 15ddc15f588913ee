package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.BackgroundTask;
import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.PolicySource;
import io.breakerctl.runtime.RegistryOptions;
import io.breakerctl.runtime.StoreStats;
import io.breakerctl.runtime.control.fallback.StoreHotSnapshots;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.store.BreakerStore;
import io.breakerctl.runtime.store.StoreFutures;
import java.time.Clock;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The registry behind {@link BreakerRegistry}: one store connection, one pub/sub subscription and
 * one scheduler thread for the periodic refresh, the batched flush, the Redis health check while
 * degraded and other background work. Calls never run on it and never wait for it.
 *
 * <p>Beside it, a timer thread runs only what must go on time and never waits (the probe leases'
 * renewals, the in-flight calls' sweeps): a renewal queued behind a background read that waited on
 * a loaded Redis lost its lease and a second probe went beside a live one. Health-check probes
 * ({@code CircuitBreaker.probe}) run user code for as long as the dependency hangs, so each runs on
 * a thread of its own. A scheduler given in the options (tests) runs all three.
 *
 * <p>It holds the breakers, the store, the scheduler and the ticker; its jobs are parts of their
 * own: the connection and subscription ({@link StoreConnection}), the guards and the recovery from
 * degradation ({@link ShardGuards}), the reads that keep the views ({@link ViewRefresher}), the
 * flush and the liveness beat ({@link RegistryFlusher}) and the fleet messages with the warm-up of
 * their path ({@link MessagePath}).
 */
final class DefaultBreakerRegistry implements BreakerRegistry, BreakerContext {
  /** The flush tick's longest period: what is due is sent within this. */
  private static final long FLUSH_TICK_MILLIS = 1_000;

  private final RegistryOptions cfg;
  private final Map<BreakerId, DistributedBreaker> breakers = new ConcurrentHashMap<>();
  private final ScheduledExecutorService scheduler;

  /** What must run on time and never waits: {@link #later}. */
  private final ScheduledExecutorService timer;

  /** Health-check probes, each on a thread of its own: {@link #onOwnThread}. */
  private final java.util.concurrent.ExecutorService checks;

  /** The source of monotonic time (nanos) of every interval the registry and its parts measure. */
  private final Ticker ticker;

  private final BackgroundHealth health;
  private final AtomicBoolean closed = new AtomicBoolean();

  /** The store the breakers and background work use: {@link #raw}, timed ({@link MeteredStore}). */
  private volatile BreakerStore store;

  private volatile BreakerStore raw;

  /**
   * The operators' port on the node's Redis connection (the history forwarder's); null otherwise.
   */
  private volatile RedisFleetStore fleet;

  private final MeteredStore.Counts commands = new MeteredStore.Counts();

  /**
   * This registry instance, in its liveness beats and its reports: readers count a node's reports
   * only of its current session (see {@link io.breakerctl.runtime.store.NodeLiveness}).
   */
  private final String session =
      Long.toString(java.util.concurrent.ThreadLocalRandom.current().nextLong() >>> 1, 36);

  private final ShardGuards guards;
  private final ViewRefresher refresher;
  private final RegistryFlusher flusher;
  private final MessagePath messages;
  private final StoreConnection connection;
  private final Consumer<BreakerId> transitionsWon;
  private final ControlPlaneLink control;

  DefaultBreakerRegistry(RegistryOptions cfg) {
    this.cfg = cfg;
    this.ticker = cfg.ticker()::getAsLong;
    this.scheduler =
        cfg.scheduler() != null ? cfg.scheduler() : newScheduler("breakerctl-" + cfg.nodeId());
    this.timer =
        cfg.scheduler() != null
            ? cfg.scheduler()
            : newScheduler("breakerctl-timer-" + cfg.nodeId());
    this.checks =
        cfg.scheduler() != null
            ? cfg.scheduler()
            : java.util.concurrent.Executors.newCachedThreadPool(
                daemon("breakerctl-probe-" + cfg.nodeId()));
    this.health = new BackgroundHealth(cfg.nodeId());
    this.guards = new ShardGuards(this);
    this.refresher = new ViewRefresher(this);
    this.flusher = new RegistryFlusher(this);
    this.messages = new MessagePath(this);
    this.connection = new StoreConnection(this);
    if (cfg.mode() != Mode.LOCAL) {
      if (!connection.connect()) {
        guard().trip(connection.connectFault());
      }
      long refresh = cfg.refreshInterval().toMillis();
      long flush = Math.min(cfg.flushInterval().toMillis(), FLUSH_TICK_MILLIS);
      scheduler.scheduleWithFixedDelay(
          refresher::refreshAll, refresh, refresh, TimeUnit.MILLISECONDS);
      scheduler.scheduleWithFixedDelay(flusher::flushAll, flush, flush, TimeUnit.MILLISECONDS);
      long beat = cfg.heartbeatInterval().toMillis();
      scheduler.scheduleWithFixedDelay(flusher::beatAlive, 0, beat, TimeUnit.MILLISECONDS);
      scheduler.scheduleWithFixedDelay(
          connection::watchSubscription, 100, 100, TimeUnit.MILLISECONDS);
    }
    this.control =
        cfg.controlPlane() != null && cfg.mode() != Mode.LOCAL
            ? new ControlPlaneLink(
                cfg.controlPlane(),
                () -> fleet,
                () -> store,
                cfg.nodeId(),
                cfg.clock(),
                scheduler,
                health)
            : null;
    this.transitionsWon = control == null ? id -> {} : control::handOff;
  }

  /** The scheduler a registry runs on unless its options give one: one daemon thread. */
  private static ScheduledExecutorService newScheduler(String thread) {
    ScheduledThreadPoolExecutor s = new ScheduledThreadPoolExecutor(1, daemon(thread));
    s.setRemoveOnCancelPolicy(true);
    return s;
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  // ---- what the registry's parts share -------------------------------------------------------

  RegistryOptions options() {
    return cfg;
  }

  /** Now on the registry's ticker (nanos; only differences mean anything). */
  long nanoTime() {
    return ticker.read();
  }

  /** The registry's ticker ({@link RegistryOptions#ticker}). */
  @Override
  public Ticker ticker() {
    return ticker;
  }

  ScheduledExecutorService scheduler() {
    return scheduler;
  }

  boolean isClosed() {
    return closed.get();
  }

  /** The breakers made so far (a live view). */
  Collection<DistributedBreaker> breakers() {
    return breakers.values();
  }

  /** The breaker of {@code id} when this node made one, else null (a message for another node). */
  DistributedBreaker breakerOrNull(BreakerId id) {
    return breakers.get(id);
  }

  ShardGuards guards() {
    return guards;
  }

  ViewRefresher refresher() {
    return refresher;
  }

  RegistryFlusher flusher() {
    return flusher;
  }

  MessagePath messages() {
    return messages;
  }

  StoreConnection connection() {
    return connection;
  }

  /**
   * Takes {@code connected} as the registry's store: the breakers and background work use it timed
   * ({@link MeteredStore}), which is returned.
   */
  BreakerStore connected(BreakerStore connected) {
    BreakerStore timed = new MeteredStore(connected, commands);
    store = timed; // before raw: whoever sees the connection sees its timed store
    raw = connected;
    return timed;
  }

  /** Takes the operators' port on the node's Redis connection (the history forwarder's). */
  void fleet(RedisFleetStore f) {
    fleet = f;
  }

  /** A delay between half and all of {@code millis} (equal jitter), so nodes spread out. */
  static long jitter(long millis) {
    return millis / 2 + java.util.concurrent.ThreadLocalRandom.current().nextLong(millis / 2 + 1);
  }

  // ---- configuration read by breakers ---------------------------------------------------------

  @Override
  public String session() {
    return session;
  }

  @Override
  public Policy defaults() {
    return cfg.defaults();
  }

  @Override
  public Clock clock() {
    return cfg.clock();
  }

  @Override
  public boolean rejectionStackTraces() {
    return cfg.rejectionStackTraces();
  }

  @Override
  public PolicySource policySource() {
    return cfg.policySource() != null ? cfg.policySource() : control;
  }

  @Override
  public long lastKnownMillis() {
    return cfg.lastKnownFor().toMillis();
  }

  @Override
  public java.time.Duration commandTimeout() {
    return cfg.commandTimeout();
  }

  /** The node's own guard (the connection, the subscription, the heartbeat). */
  StoreGuard guard() {
    return guards.guard();
  }

  /**
   * The guard of the shard holding {@code id}'s keys: the node's own while no store is connected or
   * where one server holds every key, else that master's (made at first need).
   */
  @Override
  public StoreGuard guardFor(BreakerId id) {
    return guards.guardFor(id);
  }

  @Override
  public long flushIntervalNanos() {
    return cfg.flushInterval().toNanos();
  }

  @Override
  public BackgroundHealth health() {
    return health;
  }

  @Override
  public long backgroundFailures(BackgroundTask task) {
    return health.failures(task);
  }

  @Override
  public BreakerStore store() {
    return store;
  }

  /** The store as connected or given, untimed (test-side access, {@code RegistryInternals}). */
  BreakerStore rawStore() {
    return raw;
  }

  @Override
  public String nodeId() {
    return cfg.nodeId();
  }

  @Override
  public Mode mode() {
    return cfg.mode();
  }

  @Override
  public boolean degraded() {
    return cfg.mode() != Mode.LOCAL && guards.downGuard() != null;
  }

  @Override
  public java.util.Optional<String> degradedReason() {
    StoreGuard g = cfg.mode() == Mode.LOCAL ? null : guards.downGuard();
    return g == null ? java.util.Optional.empty() : java.util.Optional.of(g.reason().code());
  }

  @Override
  public io.breakerctl.runtime.HotSnapshots hotSnapshots() {
    if (cfg.mode() == Mode.LOCAL) {
      return io.breakerctl.runtime.HotSnapshots.NONE;
    }
    return new StoreHotSnapshots(
        () -> store, guard()::up, guard()::failure, guard()::success, cfg.commandTimeout());
  }

  @Override
  public StoreStats storeStats() {
    return cfg.mode() == Mode.LOCAL
        ? StoreStats.NONE
        : StoreGuard.stats(guards.all(), commands, ticker.read());
  }

  @Override
  public void transitionWon(BreakerId id) {
    transitionsWon.accept(id);
  }

  @Override
  public CircuitBreaker breaker(BreakerId id) {
    return breakers.computeIfAbsent(
        id,
        k -> {
          DistributedBreaker b = new DistributedBreaker(k, this);
          if (cfg.mode() != Mode.LOCAL) {
            refresher.readNow(b);
          }
          return b;
        });
  }

  // ---- background work -------------------------------------------------------------------------

  @Override
  public void background(Runnable task) {
    runOn(scheduler, task);
  }

  @Override
  public void onOwnThread(Runnable task) {
    runOn(checks, task);
  }

  private void runOn(java.util.concurrent.Executor executor, Runnable task) {
    if (!closed.get()) {
      try {
        executor.execute(task);
      } catch (RuntimeException e) {
        // rejected after close: nothing left to do
      }
    }
  }

  /**
   * Runs {@code task} on the registry's timer in {@code delayMillis}; null once the registry is
   * closed (a probe's lease renewals, {@link ProbeRenewal}; the in-flight calls' sweeps).
   */
  @Override
  public java.util.concurrent.ScheduledFuture<?> later(Runnable task, long delayMillis) {
    if (closed.get()) {
      return null;
    }
    try {
      return timer.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
    } catch (RuntimeException e) {
      return null; // rejected after close
    }
  }

  /** Schedules one state read of {@code b} (coalesced), e.g. after a message or a transition. */
  @Override
  public void refreshSoon(BreakerId id) {
    DistributedBreaker b = breakers.get(id);
    if (b != null) {
      refresher.queueRefresh(b, 0);
    }
  }

  /**
   * Schedules one state read of {@code b} (coalesced) after a pushed transition, in 50-100 ms: the
   * message already set the view, and the read only completes it. Every node gets the same message
   * at once, so reading at once would send the whole fleet's reads of the breaker to Redis in the
   * same instant, and a fresh JVM would run the read's cold path while its other nodes' messages
   * wait (on the 2-core build machine that was most of the first trip's propagation time).
   */
  @Override
  public void refreshAfterPush(BreakerId id) {
    DistributedBreaker b = breakers.get(id);
    if (b != null) {
      refresher.queueRefresh(b, jitter(ViewRefresher.READ_AFTER_PUSH_MILLIS));
    }
  }

  /**
   * One liveness beat now, with the call counts since the previous one; the write's future (null
   * while degraded or not connected: nothing is sent and the counts wait for the next beat).
   */
  CompletableFuture<Long> beatNow() {
    return flusher.beatNow();
  }

  /** See {@link RegistryFlusher#reportIntervalNanos}. */
  @Override
  public long reportIntervalNanos() {
    return flusher.reportIntervalNanos();
  }

  /**
   * Stops listening to pub/sub (the node then learns only from its periodic refresh and its own
   * script results). Tests use it to make a node miss fleet messages.
   */
  void stopListening() {
    connection.stopListening();
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    flusher.flushEverything();
    // The periodic tasks stop before the node says it leaves: a beat sent after that mark (a
    // scheduler thread that checked the guard just before close) would put the node back in the
    // fleet view for three intervals. Beats are issued on the store's connection in order, so
    // once the scheduler has ended every beat is ahead of the mark.
    scheduler.shutdown();
    try {
      scheduler.awaitTermination(cfg.commandTimeout().toMillis() + 100, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (cfg.mode() != Mode.LOCAL) {
      BreakerStore st = store;
      if (st != null) {
        try {
          // out of the fleet view now rather than when its last beat runs out; tried even while
          // degraded (one write bounded by the command timeout): a node degraded by a slow
          // answer still reaches Redis, and one that cannot fails at once
          StoreFutures.await(st.alive(cfg.nodeId(), java.time.Duration.ZERO), cfg.commandTimeout());
        } catch (RuntimeException e) {
          // its last beat runs out on its own
        }
      }
    }
    scheduler.shutdownNow();
    timer.shutdownNow();
    checks.shutdownNow();
    if (control != null) {
      control.close();
    }
    connection.close();
    BreakerStore s = raw;
    if (s != null && s != cfg.store()) {
      s.close(); // a store given to the builder belongs to its creator
    }
  }
}
