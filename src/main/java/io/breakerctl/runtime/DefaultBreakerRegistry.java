package io.breakerctl.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.breakerctl.runtime.control.fallback.StoreHotSnapshots;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.redis.RedisBreakerStore;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.BreakerStore;
import io.breakerctl.runtime.store.NodeCallCounts;
import io.breakerctl.runtime.store.StoreException;
import io.breakerctl.runtime.store.StoreFault;
import io.breakerctl.runtime.store.StoreFutures;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
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
 */
final class DefaultBreakerRegistry implements BreakerRegistry, BreakerContext {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final System.Logger LOG = System.getLogger(BreakerRegistry.class.getName());

  /** The flush tick's longest period: what is due is sent within this. */
  private static final long FLUSH_TICK_MILLIS = 1_000;

  /** The recovery check while degraded: first after this, then backing off with jitter. */
  private static final long RECOVERY_CHECK_MILLIS = 250;

  private static final long RECOVERY_CHECK_MAX_MILLIS = 2_000;

  /** Re-subscription after a failed (re)subscribe: first after this, doubling with jitter. */
  private static final long RESUBSCRIBE_MILLIS = 100;

  private static final long RESUBSCRIBE_MAX_MILLIS = 5_000;

  /** A subscription whose connection stayed closed this long is replaced by a new one. */
  private static final long SUBSCRIPTION_DEAD_MILLIS = 2_000;

  /** How often the warm-up runs a transition message through the view update. */
  private static final int WARM_UP_ROUNDS = 2_000;

  /**
   * How many calls the warm-up has its scratch breaker reject: the first real rejection otherwise
   * loads the classes of the view's switch and runs the rejection interpreted.
   */
  private static final int WARM_UP_REJECTIONS = 300;

  /** The breaker id of the message a node sends itself to warm its message path. */
  private static final BreakerId WARM_UP = BreakerId.parse("breakerctl-warm-up:message-path");

  private final RegistryOptions cfg;
  private final Map<BreakerId, DistributedBreaker> breakers = new ConcurrentHashMap<>();
  private final ScheduledExecutorService scheduler;

  /** The node's own guard (shard ""): every breaker's where one server holds all keys. */
  private final StoreGuard guard;

  /** One guard per shard ({@link BreakerStore#shardOf}), the node's own under "". */
  private final Map<String, StoreGuard> guards = new ConcurrentHashMap<>();

  private final java.util.concurrent.atomic.AtomicLong degradationIds =
      new java.util.concurrent.atomic.AtomicLong();
  private final BackgroundHealth health;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Map<BreakerId, Boolean> refreshQueued = new ConcurrentHashMap<>();

  /** The store the breakers and background work use: {@link #raw}, timed ({@link MeteredStore}). */
  private volatile BreakerStore store;

  private volatile BreakerStore raw;

  /**
   * The operators' port on the node's Redis connection (the history forwarder's); null otherwise.
   */
  private volatile RedisFleetStore fleet;

  private final MeteredStore.Counts commands = new MeteredStore.Counts();
  private volatile BreakerStore.Subscription subscription;
  private volatile boolean listening = true;
  private volatile long subscriptionClosedSince;
  private volatile boolean subscriptionLossReported;
  private volatile long resubscribeDelay = RESUBSCRIBE_MILLIS;

  /**
   * The last beacon this node sent itself through its subscription (see {@link #checkBeacon}), the
   * last it heard back, and when it sent one (System.nanoTime()).
   */
  private volatile long beaconSent;

  private volatile long beaconHeard;
  private volatile long beaconSentAt;
  private final AtomicBoolean resubscribeScheduled = new AtomicBoolean();

  /** Starts at a random phase, so nodes started together do not check in step. */
  private volatile long lastStampCheck =
      System.nanoTime()
          - (long) (java.util.concurrent.ThreadLocalRandom.current().nextDouble() * 5e9);

  /** When every stamp was last compared; set at a random phase by the constructor. */
  private volatile long lastSweep;

  /** The store's canary fingerprint as last read (null: not read since the last resubscribe). */
  private volatile String canary;

  private final java.util.concurrent.CountDownLatch warmedUp =
      new java.util.concurrent.CountDownLatch(1);
  private final String warmUpNonce = Long.toHexString(System.nanoTime());

  /**
   * This registry instance, in its liveness beats and its reports: readers count a node's reports
   * only of its current session (see {@link io.breakerctl.runtime.store.NodeLiveness}).
   */
  private final String session =
      Long.toString(java.util.concurrent.ThreadLocalRandom.current().nextLong() >>> 1, 36);

  private final Consumer<BreakerId> transitionsWon;
  private final ControlPlaneLink control;

  DefaultBreakerRegistry(RegistryOptions cfg) {
    this.cfg = cfg;
    this.reportIntervalNanos =
        Math.min(cfg.heartbeatInterval().toNanos() * 10, REPORT_INTERVAL_CAP_NANOS);
    this.lastSweep =
        System.nanoTime()
            - (long)
                (java.util.concurrent.ThreadLocalRandom.current().nextDouble()
                    * cfg.sweepInterval().toNanos());
    ScheduledThreadPoolExecutor s =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "breakerctl-" + cfg.nodeId());
              t.setDaemon(true);
              return t;
            });
    s.setRemoveOnCancelPolicy(true);
    this.scheduler = s;
    this.health = new BackgroundHealth(cfg.nodeId());
    this.guard = newGuard("");
    if (cfg.mode() != Mode.LOCAL) {
      if (!connect()) {
        guard.trip(connectFault);
      }
      long refresh = cfg.refreshInterval().toMillis();
      long flush = Math.min(cfg.flushInterval().toMillis(), FLUSH_TICK_MILLIS);
      scheduler.scheduleWithFixedDelay(this::refreshAll, refresh, refresh, TimeUnit.MILLISECONDS);
      scheduler.scheduleWithFixedDelay(this::flushAll, flush, flush, TimeUnit.MILLISECONDS);
      long beat = cfg.heartbeatInterval().toMillis();
      scheduler.scheduleWithFixedDelay(this::beatAlive, 0, beat, TimeUnit.MILLISECONDS);
      scheduler.scheduleWithFixedDelay(this::watchSubscription, 100, 100, TimeUnit.MILLISECONDS);
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
    return guard;
  }

  /**
   * The guard of the shard holding {@code id}'s keys: the node's own while no store is connected or
   * where one server holds every key, else that master's (made at first need).
   */
  @Override
  public StoreGuard guardFor(BreakerId id) {
    BreakerStore s = store;
    return s == null ? guard : guardOf(s.shardOf(id));
  }

  private StoreGuard guardOf(String shard) {
    return shard.isEmpty() ? guard : guards.computeIfAbsent(shard, this::newGuard);
  }

  private StoreGuard newGuard(String shard) {
    StoreGuard g =
        new StoreGuard(shard, this::onDegraded, this::confirm, cfg.clock(), degradationIds);
    g.recoveryDelay = RECOVERY_CHECK_MILLIS;
    if (shard.isEmpty()) {
      guards.put(shard, g);
    }
    return g;
  }

  /** The breakers whose decisions {@code g} guards. */
  private List<DistributedBreaker> guardedBy(StoreGuard g) {
    List<DistributedBreaker> mine = new ArrayList<>();
    for (DistributedBreaker b : breakers.values()) {
      if (b.guard() == g) {
        mine.add(b);
      }
    }
    return mine;
  }

  /** A guard that is down: the node's own first, else a master's; null when every one is up. */
  private StoreGuard downGuard() {
    if (!guard.up()) {
      return guard;
    }
    for (StoreGuard g : guards.values()) {
      if (!g.up()) {
        return g;
      }
    }
    return null;
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
    return cfg.mode() != Mode.LOCAL && downGuard() != null;
  }

  @Override
  public java.util.Optional<String> degradedReason() {
    StoreGuard g = cfg.mode() == Mode.LOCAL ? null : downGuard();
    return g == null ? java.util.Optional.empty() : java.util.Optional.of(g.reason().code());
  }

  @Override
  public io.breakerctl.runtime.control.fallback.HotSnapshots hotSnapshots() {
    if (cfg.mode() == Mode.LOCAL) {
      return io.breakerctl.runtime.control.fallback.HotSnapshots.NONE;
    }
    return new StoreHotSnapshots(
        () -> store, guard::up, guard::failure, guard::success, cfg.commandTimeout());
  }

  @Override
  public StoreStats storeStats() {
    return cfg.mode() == Mode.LOCAL ? StoreStats.NONE : StoreGuard.stats(guards.values(), commands);
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
            readNow(b);
          }
          return b;
        });
  }

  // ---- connection -----------------------------------------------------------------------------

  /** Why the last connect failed (the degradation's reason when the node starts without Redis). */
  private volatile StoreFault connectFault = StoreFault.UNREACHABLE;

  private boolean connect() {
    BreakerStore s;
    try {
      if (cfg.store() != null) {
        s = cfg.store();
      } else if (cfg.redisClient() != null) {
        s =
            RedisBreakerStore.create(
                cfg.redisClient(), cfg.prefix(), cfg.idleTtl(), cfg.commandTimeout());
      } else if (cfg.redisClusterClient() != null) {
        s =
            RedisBreakerStore.create(
                cfg.redisClusterClient(), cfg.prefix(), cfg.idleTtl(), cfg.commandTimeout());
      } else {
        s =
            RedisBreakerStore.connect(
                StoreConfig.builder()
                    .uri(cfg.redisUri())
                    .timeout(cfg.connectTimeout())
                    .commandTimeout(cfg.commandTimeout())
                    .prefix(cfg.prefix())
                    .idleTtl(cfg.idleTtl())
                    .build());
      }
    } catch (StoreException e) {
      connectFault = e.fault();
      return false;
    }
    if (s instanceof RedisBreakerStore r && cfg.controlPlane() != null) {
      r.forwardsHistory(cfg.historyHold()); // history has a destination: see historyHold
    }
    if (s instanceof RedisBreakerStore r) {
      fleet = RedisFleetStore.over(r); // the control plane's port, on the node's connection
    }
    BreakerStore connected = s;
    s = new MeteredStore(connected, commands);
    store = s; // before raw: whoever sees the connection sees its timed store
    raw = connected;
    if (subscribe(s)) {
      warmUp(s);
    }
    try {
      StoreFutures.await(s.warmUp(), cfg.connectTimeout());
    } catch (StoreException e) {
      // a node that cannot warm its script path still works; its first call pays for it
    }
    // the periodic check's baseline: its first run (checkInterval after the start) then compares
    // with what Redis held at the start, and its read path is not cold at that moment
    readCanary(s);
    warnIfEvicting(connected);
    return true;
  }

  /**
   * Logs once, at start, when Redis may evict breaker keys ({@code maxmemory} with a policy other
   * than {@code noeviction}: {@link RedisFleetStore#evictionRisk()}). A user without {@code CONFIG
   * GET} cannot tell, and nothing is logged; {@code breakerctl doctor} says so.
   */
  private static void warnIfEvicting(BreakerStore connected) {
    if (connected instanceof RedisBreakerStore r) {
      RedisFleetStore.over(r)
          .evictionRisk()
          .whenComplete(
              (risk, e) -> {
                if (e == null && risk.isPresent()) {
                  LOG.log(System.Logger.Level.WARNING, "Redis " + risk.get());
                }
              });
    }
  }

  /**
   * Subscribes to the fleet's messages; a failure closes what it opened and retries in the
   * background with a jittered, doubling delay, so pub/sub is never lost for good.
   */
  private boolean subscribe(BreakerStore s) {
    if (!listening || closed.get()) {
      return false;
    }
    try {
      BreakerStore.Subscription sub = s.subscribe(this::onMessage, () -> background(this::readAll));
      BreakerStore.Subscription old = subscription;
      subscription = sub;
      subscriptionClosedSince = 0;
      resubscribeDelay = RESUBSCRIBE_MILLIS;
      if (old != null) {
        old.close();
      }
      health.succeeded(BackgroundTask.SUBSCRIPTION);
      return true;
    } catch (StoreException e) {
      health.failed(BackgroundTask.SUBSCRIPTION, e);
      scheduleResubscribe();
      return false;
    }
  }

  private void scheduleResubscribe() {
    if (closed.get() || !resubscribeScheduled.compareAndSet(false, true)) {
      return;
    }
    long delay = jitter(resubscribeDelay);
    resubscribeDelay = Math.min(RESUBSCRIBE_MAX_MILLIS, resubscribeDelay * 2);
    try {
      scheduler.schedule(
          () -> {
            resubscribeScheduled.set(false);
            BreakerStore s = store;
            if (s != null && subscribe(s)) {
              background(this::readAll);
            }
          },
          delay,
          TimeUnit.MILLISECONDS);
    } catch (RuntimeException e) {
      resubscribeScheduled.set(false); // rejected after close
    }
  }

  /**
   * Replaces a subscription whose connection stayed closed (Lettuce reconnects and resubscribes by
   * itself while the server it chose comes back; on a Cluster whose node died it must move).
   */
  private void watchSubscription() {
    BreakerStore s = store;
    if (!listening || s == null) {
      return;
    }
    BreakerStore.Subscription sub = subscription;
    if (sub == null) {
      scheduleResubscribe();
      return;
    }
    if (sub.isOpen()) {
      subscriptionClosedSince = 0;
      subscriptionLossReported = false;
      checkBeacon(s, sub);
      return;
    }
    if (!subscriptionLossReported && guard.up()) {
      // An idle node sends nothing, so its subscription's connection is what notices a lost
      // Redis first: one failure per closure starts the guard's confirming PING.
      subscriptionLossReported = true;
      guard.failure(
          new io.breakerctl.runtime.store.StoreUnavailableException(
              "the pub/sub connection closed", null));
    }
    long now = System.nanoTime();
    if (subscriptionClosedSince == 0) {
      subscriptionClosedSince = now;
    } else if (now - subscriptionClosedSince > SUBSCRIPTION_DEAD_MILLIS * 1_000_000) {
      subscriptionClosedSince = 0;
      scheduleResubscribe();
    }
  }

  /**
   * A subscription that cannot go silent. Its connection can stay open while its server delivers
   * nothing (a stalled replica: an override went unobeyed by 4 of 6 nodes for 25.7 s with every
   * master healthy, the canary and the stamp sweep blind to it). So every half {@code
   * checkInterval} the node publishes a beacon to itself through the command connection, on a
   * channel only its subscription hears ({@link BreakerStore.Subscription#beacon}), and a beacon
   * not heard back within that half interval makes the subscription silent: counted and logged (the
   * background task {@code subscription}), replaced at once (on a Cluster by one on a master), and
   * the new subscription's start reads every breaker, as after any resubscription. A stall is so
   * noticed within one {@code checkInterval}. One PUBLISH per node per half interval, heard by that
   * node alone.
   */
  private void checkBeacon(BreakerStore s, BreakerStore.Subscription sub) {
    long now = System.nanoTime();
    if (!guard.up() || now - beaconSentAt < cfg.checkInterval().toNanos() / 2) {
      return;
    }
    beaconSentAt = now;
    if (beaconHeard < beaconSent) {
      beaconHeard = beaconSent;
      health.failed(
          BackgroundTask.SUBSCRIPTION,
          new IllegalStateException(
              "the pub/sub subscription delivered nothing for "
                  + cfg.checkInterval().toMillis() / 2
                  + " ms while its connection stayed open (its server stalled?): subscribing"
                  + " again"));
      background(
          () -> {
            if (subscription == sub && subscribe(s)) {
              background(this::readAll);
            }
          });
      return;
    }
    long seq = beaconSent + 1;
    beaconSent = seq;
    ObjectNode beacon =
        JSON.createObjectNode()
            .put("type", "beacon")
            .put("node", cfg.nodeId())
            .put("nonce", warmUpNonce)
            .put("seq", seq);
    sub.beacon(beacon.toString())
        .whenComplete(
            (n, e) -> {
              if (e != null && beaconHeard < seq) {
                beaconHeard = seq; // not sent: Redis failing is the guard's to judge, not silence
              }
            });
  }

  /**
   * Sends this node one message through its own subscription and waits (bounded) until it has run
   * through the whole message path (Lettuce's pub/sub decoding, JSON, the view update), so the
   * first real trip is not the message that pays for class loading and a cold path.
   */
  private void warmUp(BreakerStore s) {
    BreakerStore.Subscription sub = subscription;
    if (sub == null || warmedUp.getCount() == 0) {
      return;
    }
    try {
      ObjectNode hello =
          JSON.createObjectNode()
              .put("type", "hello")
              .put("node", cfg.nodeId())
              .put("nonce", warmUpNonce);
      hello.set("message", warmUpTransitions(cfg.nodeId(), System.currentTimeMillis())[0]);
      sub.publish(hello.toString());
      warmedUp.await(Math.min(cfg.connectTimeout().toMillis(), 1_000), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      // a node that cannot warm its path still works; the first message pays for it
    }
  }

  /** The guard's confirmation: one PING bounded by the command timeout. */
  private void confirm(StoreGuard g) {
    BreakerStore s = store;
    if (s == null) {
      g.confirmed(false);
      return;
    }
    s.ping(g.shard())
        .orTimeout(cfg.commandTimeout().toMillis() + 10, TimeUnit.MILLISECONDS)
        .whenComplete((v, e) -> g.confirmed(e == null));
  }

  private void onDegraded(StoreGuard g) {
    g.recoveryDelay = RECOVERY_CHECK_MILLIS;
    StoreFault why = g.reason();
    LOG.log(
        System.Logger.Level.WARNING,
        "breakerctl node {0}: degraded ({1}){2}: {3}; each breaker there decides from the fleet"
            + " state it last saw and its storeFailureMode until Redis does its work again",
        cfg.nodeId(),
        why.code(),
        g.shard().isEmpty() ? "" : " on master " + g.shard(),
        why.hard() ? "Redis refuses this node's work" : "Redis does not answer");
    guardedBy(g).forEach(DistributedBreaker::degraded);
    background(() -> checkRecovery(g));
  }

  /**
   * The recovery check of one guard, until it is up again. Breakers whose keys another shard now
   * holds (a failover promoted a replica; the first connect of a Cluster store) go there first,
   * reconciled against it while that guard is up. The breakers left are reconciled once the shard's
   * server answers quickly (and, after a hard fault, runs a script that writes); then the guard is
   * up. A master's guard left with no breaker is up at once: nothing depends on it.
   */
  private void checkRecovery(StoreGuard g) {
    if (closed.get() || g.up()) {
      return;
    }
    BreakerStore s = store;
    boolean connected = s == null && connect();
    if (connected) {
      s = store;
    }
    boolean reachable = connected;
    if (s != null) {
      moveAway(s, g);
      if (!g.shard().isEmpty() && guardedBy(g).isEmpty()) {
        g.recover(); // its breakers moved on; nothing waits for this master
        guards.remove(g.shard(), g);
        return;
      }
      if (!connected) {
        try {
          reachable = StoreGuard.answersQuickly(s, g.shard(), cfg.commandTimeout());
          if (reachable && g.reason().hard()) {
            // a PING and reads pass on a full Redis, a replica or an ACL that denies the scripts:
            // leave degraded only once a script that writes runs again
            StoreFutures.await(
                s.alive(cfg.nodeId(), cfg.heartbeatInterval().multipliedBy(ALIVE_INTERVALS)),
                cfg.commandTimeout());
          }
        } catch (StoreException e) {
          reachable = false;
        }
      }
    }
    List<DistributedBreaker> mine = guardedBy(g);
    if (reachable && reconcile(s, mine) && g.recover()) {
      LOG.log(
          System.Logger.Level.INFO,
          "breakerctl node {0}: Redis answers again{1} after {2} ms; reconciled {3} breakers",
          cfg.nodeId(),
          g.shard().isEmpty() ? "" : " on master " + g.shard(),
          cfg.clock().millis() - g.downAtMillis(),
          mine.size());
      mine.forEach(DistributedBreaker::recovered);
      beatAlive(); // back in the fleet view now, not at the next beat
      return;
    }
    long delay = jitter(g.recoveryDelay);
    g.recoveryDelay = Math.min(RECOVERY_CHECK_MAX_MILLIS, g.recoveryDelay * 2);
    try {
      scheduler.schedule(() -> checkRecovery(g), delay, TimeUnit.MILLISECONDS);
    } catch (RuntimeException e) {
      // rejected after close
    }
  }

  /**
   * Moves the breakers of a degraded guard whose keys another shard now holds: the topology is read
   * again (bounded), and a breaker whose shard's guard is up is reconciled there and recovers; one
   * whose new shard is degraded too goes there and waits with it.
   */
  private void moveAway(BreakerStore s, StoreGuard g) {
    try {
      s.refreshShards(cfg.commandTimeout().multipliedBy(10));
    } catch (StoreException e) {
      // the topology as last read
    }
    for (DistributedBreaker b : guardedBy(g)) {
      StoreGuard to = guardOf(s.shardOf(b.id()));
      if (to == g) {
        continue;
      }
      if (!to.up()) {
        b.guard(to);
      } else if (reconcile(s, List.of(b))) {
        b.guard(to);
        b.recovered();
      }
    }
  }

  /** A delay between half and all of {@code millis} (equal jitter), so nodes spread out. */
  private static long jitter(long millis) {
    return millis / 2 + java.util.concurrent.ThreadLocalRandom.current().nextLong(millis / 2 + 1);
  }

  /** Reads and reconciles each of {@code breakers}; false at the first that fails. */
  private boolean reconcile(BreakerStore s, List<DistributedBreaker> breakers) {
    try {
      for (DistributedBreaker b : breakers) {
        BreakerSnapshot shared = StoreFutures.await(s.state(b.id()), cfg.commandTimeout());
        b.reconcile(shared);
      }
      return true;
    } catch (StoreException e) {
      return false;
    }
  }

  // ---- background work -------------------------------------------------------------------------

  @Override
  public void background(Runnable task) {
    if (!closed.get()) {
      try {
        scheduler.execute(task);
      } catch (RuntimeException e) {
        // rejected after close: nothing left to do
      }
    }
  }

  /**
   * Runs {@code task} on the registry's scheduler in {@code delayMillis}; null once the registry is
   * closed (a probe's lease renewals, {@link ProbeRenewal}).
   */
  @Override
  public java.util.concurrent.ScheduledFuture<?> later(Runnable task, long delayMillis) {
    if (closed.get()) {
      return null;
    }
    try {
      return scheduler.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
    } catch (RuntimeException e) {
      return null; // rejected after close
    }
  }

  /** Schedules one state read of {@code b} (coalesced), e.g. after a message or a transition. */
  @Override
  public void refreshSoon(BreakerId id) {
    DistributedBreaker b = breakers.get(id);
    if (b != null) {
      queueRefresh(b, 0);
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
      queueRefresh(b, jitter(READ_AFTER_PUSH_MILLIS));
    }
  }

  /** One read of {@code b} in {@code delayMillis} (0: now), unless one is queued already. */
  private void queueRefresh(DistributedBreaker b, long delayMillis) {
    if (closed.get() || refreshQueued.putIfAbsent(b.id(), Boolean.TRUE) != null) {
      return;
    }
    try {
      scheduler.schedule(new QueuedRead(b), delayMillis, TimeUnit.MILLISECONDS);
    } catch (RuntimeException e) {
      refreshQueued.remove(b.id()); // rejected after close
    }
  }

  /**
   * A queued read. A class, not a lambda: a lambda's call site is linked when it first runs, and
   * the first one queued is a fresh JVM's first pushed trip, on the message thread while the JVM's
   * other nodes' messages wait (the warm-up loads this class).
   */
  private final class QueuedRead implements Runnable {
    private final DistributedBreaker b;

    QueuedRead(DistributedBreaker b) {
      this.b = b;
    }

    @Override
    public void run() {
      refreshQueued.remove(b.id());
      refresh(b);
    }
  }

  /** The longest a node waits after a pushed transition before it reads the breaker in full. */
  static final long READ_AFTER_PUSH_MILLIS = 100;

  /**
   * The first read of a new breaker, bounded by the command timeout, so a node that joins while the
   * fleet is open does not admit calls until its first refresh.
   */
  private void readNow(DistributedBreaker b) {
    BreakerStore s = store;
    if (s == null || !b.guard().up()) {
      retryFirstRead(b);
      return;
    }
    try {
      b.onSnapshot(StoreFutures.await(s.state(b.id()), cfg.commandTimeout()));
      b.guard().success();
      health.succeeded(BackgroundTask.REFRESH);
    } catch (StoreException e) {
      b.guard().failure(e);
      health.failed(BackgroundTask.REFRESH, e);
      queueRefresh(b, 0);
    }
  }

  private void refresh(DistributedBreaker b) {
    BreakerStore s = store;
    if (s == null || !b.guard().up()) {
      retryFirstRead(b);
      return;
    }
    s.state(b.id()).whenComplete(new Refreshed(b));
  }

  /**
   * A breaker never read (created, or its first read failed, while Redis did not answer) is read
   * again in {@link #FIRST_READ_RETRY_MILLIS}, until a read lands: neither the recovery's reconcile
   * (which may have run before the breaker existed) nor the stamp sweep (every 60 s) is sure to
   * read it soon. Seen: a breaker made just after a 155 ms timeout episode still had no view 30 s
   * later (CoordinatorFaultIT, a busy-core run). A breaker already read needs no retry: the sweep
   * and pushed messages keep it.
   */
  private void retryFirstRead(DistributedBreaker b) {
    if (b.neverRead()) {
      queueRefresh(b, FIRST_READ_RETRY_MILLIS);
    }
  }

  /** How soon a breaker's missing first read is tried again. */
  static final long FIRST_READ_RETRY_MILLIS = 200;

  /**
   * What a read's answer does. A class, not a lambda, for the reason {@link QueuedRead} is one: the
   * first read a fresh JVM queues follows its first trip (the warm-up loads this class).
   */
  private final class Refreshed
      implements java.util.function.BiConsumer<BreakerSnapshot, Throwable> {
    private final DistributedBreaker b;

    Refreshed(DistributedBreaker b) {
      this.b = b;
    }

    @Override
    public void accept(BreakerSnapshot snap, Throwable e) {
      if (e != null) {
        b.guard().failure(e);
        health.failed(BackgroundTask.REFRESH, e);
        retryFirstRead(b);
      } else {
        b.guard().success();
        health.succeeded(BackgroundTask.REFRESH);
        b.onSnapshot(snap);
      }
    }
  }

  /**
   * The periodic refresh. While the subscription is open the node learns every change by push, so
   * it reads no hash: every {@code checkInterval} the canary (one GET per master) shows whether
   * Redis lost data without closing the connection, and the stamps of the breakers it holds away
   * from CLOSED show whether their keys were evicted or deleted; when it did, after a
   * resubscription, and every {@code sweepInterval} anyway, pipelined rounds of change stamps
   * (three fields per breaker) find the breakers that moved, and only those are read in full.
   * Without a working subscription every breaker is read every {@code refreshInterval}.
   */
  private void refreshAll() {
    BreakerStore.Subscription sub = subscription;
    BreakerStore s = store;
    if (s == null || !guard.up()) {
      return;
    }
    regroup(s);
    if (!listening || sub == null || !sub.isOpen()) {
      breakers.values().forEach(this::refresh);
      return;
    }
    long now = System.nanoTime();
    if (now - lastStampCheck < cfg.checkInterval().toNanos()) {
      return;
    }
    lastStampCheck = now;
    background(canaryCheck);
  }

  /**
   * Puts each breaker whose keys another shard now holds (a resharding, a failover its guard never
   * saw fail) under that shard's guard, when both are up; a degraded breaker moves at its guard's
   * recovery check instead, reconciled first. A hash of each breaker's key per refresh tick.
   */
  private void regroup(BreakerStore s) {
    for (DistributedBreaker b : breakers.values()) {
      StoreGuard now = b.guard();
      if (now.up()) {
        StoreGuard to = guardOf(s.shardOf(b.id()));
        if (to != now && to.up()) {
          b.guard(to);
        }
      }
    }
  }

  /**
   * The periodic check's task, made once: a lambda made at the first check (5 s after a start) was
   * linked then, ms of a fresh JVM's CPU at a moment nothing else chose.
   */
  private final Runnable canaryCheck =
      () -> {
        BreakerStore s = store;
        if (s != null) {
          checkCanary(s);
        }
      };

  /**
   * The check every {@code checkInterval} while the subscription is up: the canary, and every stamp
   * only when the canary moved or the sweep is due. A canary read that fails or times out is a
   * background failure, not a sign that Redis is gone (as for stamps).
   */
  private void checkCanary(BreakerStore s) {
    String seen = canary;
    String now = readCanary(s);
    if (now == null) {
      return;
    }
    boolean due = System.nanoTime() - lastSweep >= cfg.sweepInterval().toNanos();
    boolean lost = seen != null && !seen.equals(now);
    if (lost) {
      // Redis lost its data (FLUSHALL, an empty replica promoted): this node's liveness went
      // with it, so it beats now rather than at its next heartbeat; the breakers whose keys moved
      // re-send their reports and policies as their reads find the new incarnation
      beatAlive();
    }
    if (due || lost) {
      lastSweep = System.nanoTime();
      checkStamps(s, List.copyOf(breakers.values()));
    } else {
      // the canary is read by every node every check and is almost never the LRU victim, while a
      // tripped breaker's hash is read only at its transitions: the coldest key. Its stamp is
      // compared every check too, so an evicted (or deleted) trip is re-asserted within one
      // checkInterval, not read as CLOSED at its window's end or found by the sweep
      List<DistributedBreaker> held = new java.util.ArrayList<>();
      for (DistributedBreaker b : breakers.values()) {
        if (b.holdsState()) {
          held.add(b);
        }
      }
      if (held.isEmpty()) {
        health.succeeded(BackgroundTask.REFRESH);
      } else {
        checkStamps(s, held);
      }
    }
  }

  /**
   * Reads every breaker's stamp, {@link #STAMP_BATCH} per pipelined round (so the calls' own
   * commands never queue behind thousands of reads), and reads in full those that moved. A bulk
   * read that times out is a background failure, not a sign that Redis is gone: it does not count
   * toward degrading the node (the calls' commands and the subscription decide that).
   */
  private void checkStamps(BreakerStore s, List<DistributedBreaker> all) {
    for (int from = 0; from < all.size() && !closed.get(); from += STAMP_BATCH) {
      List<DistributedBreaker> batch = all.subList(from, Math.min(all.size(), from + STAMP_BATCH));
      List<String> stamps;
      try {
        List<BreakerId> ids = new java.util.ArrayList<>(batch.size());
        for (DistributedBreaker b : batch) {
          ids.add(b.id());
        }
        stamps = StoreFutures.await(s.stamps(ids), cfg.commandTimeout().multipliedBy(10));
      } catch (StoreException e) {
        health.failed(BackgroundTask.REFRESH, e);
        return;
      }
      health.succeeded(BackgroundTask.REFRESH);
      for (int i = 0; i < batch.size(); i++) {
        if (!stamps.get(i).equals(batch.get(i).stamp())) {
          queueRefresh(batch.get(i), 0);
        }
      }
    }
  }

  /** Breakers per pipelined round of a stamp check. */
  private static final int STAMP_BATCH = 200;

  /**
   * After a (re)subscription, when messages may have been missed: the canary's new baseline, then a
   * stamp check now.
   */
  private void readAll() {
    BreakerStore s = store;
    if (s != null && guard.up()) {
      lastStampCheck = System.nanoTime();
      // the sweep keeps its random phase: nodes started (or reconnected) together would otherwise
      // all sweep in the same second from then on
      canary = null;
      background(
          () -> {
            readCanary(s);
            checkStamps(s, List.copyOf(breakers.values()));
          });
    }
  }

  /** Reads the canary into {@link #canary}; null (a background failure) when it cannot. */
  private String readCanary(BreakerStore s) {
    try {
      String now = StoreFutures.await(s.canary(), cfg.commandTimeout().multipliedBy(10));
      canary = now;
      return now;
    } catch (StoreException e) {
      health.failed(BackgroundTask.REFRESH, e);
      return null;
    }
  }

  /** The flush tick: each breaker sends what is due (see {@link DistributedBreaker#flushIfDue}). */
  /**
   * The flush tick: every breaker's due successes and heartbeat, sent as one batch (one pipelined
   * write per master, {@link BreakerStore#batch}).
   */
  private void flushAll() {
    inBatch(() -> breakers.values().forEach(DistributedBreaker::flushIfDue));
  }

  /**
   * The node's liveness for the fleet view, once per heartbeat interval and valid for three: the
   * one periodic write an idle node makes whatever its breaker count (its per-breaker reports go on
   * change, see {@link #reportIntervalNanos}). Skipped while degraded, sent again at recovery.
   */
  private void beatAlive() {
    beatNow();
  }

  /**
   * One liveness beat now, with the call counts since the previous one; the write's future (null
   * while degraded or not connected: nothing is sent and the counts wait for the next beat).
   */
  CompletableFuture<Long> beatNow() {
    BreakerStore s = store;
    if (s == null || !guard.up()) {
      return null;
    }
    return s.alive(
            cfg.nodeId(),
            cfg.heartbeatInterval().multipliedBy(ALIVE_INTERVALS),
            callCounts(),
            session)
        .whenComplete(
            (v, e) -> {
              if (e == null) {
                health.succeeded(BackgroundTask.HEARTBEAT);
              } else {
                health.failed(BackgroundTask.HEARTBEAT, e);
              }
            });
  }

  /**
   * The calls each breaker admitted, rejected and had answered by a fallback since the previous
   * beat, and how long ago that was: what the beat carries for the fleet's call rates. Breakers
   * without a call are left out.
   */
  private synchronized NodeCallCounts callCounts() {
    long now = System.nanoTime();
    long window = Math.max(1, (now - lastCallCountsAt) / 1_000_000);
    lastCallCountsAt = now;
    Map<String, NodeCallCounts.Counts> counts = new java.util.LinkedHashMap<>();
    for (DistributedBreaker b : breakers.values()) {
      NodeCallCounts.Counts c = b.takeCallCounts();
      if (!c.idle()) {
        counts.put(b.id().toString(), c);
      }
    }
    return new NodeCallCounts(window, counts);
  }

  /** When {@link #callCounts} last took the counts (the registry's start before the first beat). */
  private long lastCallCountsAt = System.nanoTime();

  /** How many heartbeat intervals one liveness beat is valid for. */
  static final int ALIVE_INTERVALS = 3;

  /**
   * How often a breaker's unchanged report is sent again: ten heartbeat intervals, at most 10
   * minutes (record.lua prunes a report not renewed in 30). Readers count reports by the node's
   * liveness, so this only ages out the reports of breakers a node no longer holds and heals a lost
   * one.
   */
  @Override
  public long reportIntervalNanos() {
    return reportIntervalNanos;
  }

  private final long reportIntervalNanos;

  private static final long REPORT_INTERVAL_CAP_NANOS = TimeUnit.MINUTES.toNanos(10);

  /**
   * Everything pending, now (close): sent in one batch, and waited for up to twice the command
   * timeout (the client's own timeout ends each first). What Redis has not confirmed then (Redis
   * hung or degraded, an answer that failed or came too late) is logged once with its count: the
   * fleet's windows may miss those outcomes (a flush that timed out may still run), and none is
   * dropped unsaid.
   */
  private void flushEverything() {
    List<CompletableFuture<?>> sent = new ArrayList<>();
    if (cfg.mode() != Mode.LOCAL) {
      inBatch(
          () -> {
            for (DistributedBreaker b : breakers.values()) {
              CompletableFuture<?> f = b.guard().up() ? b.flushAtClose() : null;
              if (f != null) {
                sent.add(f);
              }
            }
          });
    }
    if (!sent.isEmpty()) {
      try {
        CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new))
            .get(2 * cfg.commandTimeout().toNanos() + 20_000_000, TimeUnit.NANOSECONDS);
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
        // counted below
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (cfg.mode() == Mode.LOCAL) {
      return;
    }
    long lost = 0;
    int of = 0;
    for (DistributedBreaker b : breakers.values()) {
      long n = b.unsentOutcomes();
      if (n > 0) {
        lost += n;
        of++;
      }
    }
    if (lost > 0) {
      LOG.log(
          System.Logger.Level.WARNING,
          "breakerctl: node {0} closed with {1} outcomes of {2} breakers not sent to or not"
              + " confirmed by Redis ({3}): the fleet's windows may miss them",
          cfg.nodeId(),
          lost,
          of,
          downGuard() == null ? "no answer in time" : "degraded: " + downGuard().reason().code());
    }
  }

  private void inBatch(Runnable work) {
    BreakerStore s = store;
    if (s == null) {
      work.run();
    } else {
      s.batch(work);
    }
  }

  /**
   * The trip and the close the warm-up runs through a node's message path, shaped as {@code
   * record.lua} publishes them (the same fields, values as long as real ones), on a breaker nobody
   * uses, the trip open for an hour. A message with fewer fields warmed less than it seemed: the
   * first real trip's unseen field names de-optimized the compiled JSON parser in every JVM at
   * once, just when its 5 nodes' messages arrived ({@code WarmUpMessageIT} compares these with what
   * the scripts publish).
   */
  static ObjectNode[] warmUpTransitions(String node, long now) {
    String at = Long.toString(now);
    ObjectNode trip =
        transitionShape(node, at, "CLOSED", "OPEN", "FAILURE_THRESHOLD")
            .put("failures", "5")
            .put("calls", "5")
            .put("threshold", "5")
            .put("minimumCalls", "20")
            .put("failureRate", "")
            .put("slow", "0")
            .put("openMillis", "3600000")
            .put("until", Long.toString(now + 3_600_000));
    ObjectNode close =
        transitionShape(node, at, "HALF_OPEN", "CLOSED", "PROBES_SUCCEEDED")
            .put("lease", "1")
            .put("successes", "1")
            .put("permits", "1");
    return new ObjectNode[] {trip, close};
  }

  private static ObjectNode transitionShape(
      String node, String at, String from, String to, String cause) {
    return JSON.createObjectNode()
        .put("type", "transition")
        .put("id", WARM_UP.toString())
        .put("streamId", at + "-0")
        .put("epoch", "1796189124614293")
        .put("from", from)
        .put("to", to)
        .put("cause", cause)
        .put("generation", "1")
        .put("policyId", "")
        .put("policyVersion", "0")
        .put("node", node)
        .put("at", at);
  }

  private void onMessage(String message) {
    try {
      JsonNode m = JSON.readTree(message);
      String type = m.path("type").asText("");
      if ("beacon".equals(type)) {
        long seq = m.path("seq").asLong(0);
        if (warmUpNonce.equals(m.path("nonce").asText("")) && seq > beaconHeard) {
          beaconHeard = seq;
        }
        return;
      }
      if ("hello".equals(type)) {
        if (cfg.nodeId().equals(m.path("node").asText(""))
            && warmUpNonce.equals(m.path("nonce").asText(""))) {
          // the whole path a transition takes, on a breaker nobody uses, often enough that the
          // JIT compiles it (a few ms, once): the first trip a fresh JVM sees is not interpreted.
          // Trips and closes alternate, with a listener, so both states and the event a node's
          // listeners get are compiled too (a path that only ever saw one state is recompiled,
          // and the event classes loaded, on the first real trip's message).
          DistributedBreaker scratch = new DistributedBreaker(WARM_UP, this);
          scratch.onEvent(e -> {});
          // and the classes a first failure's classification loads
          FailureClassifier.DEFAULT.classify(new java.io.IOException("warm-up"));
          ObjectNode[] shapes = warmUpTransitions(cfg.nodeId(), System.currentTimeMillis());
          String[] transitions = {m.path("message").toString(), shapes[1].toString()};
          try {
            for (int i = 0; i < WARM_UP_ROUNDS; i++) {
              scratch.warmUp(FleetMessage.parse(JSON.readTree(transitions[i & 1])));
            }
            if (mode() == Mode.HYBRID && guard.up()) {
              // open again, then rejected calls (the view decides them: nothing is sent)
              scratch.warmUp(FleetMessage.parse(JSON.readTree(transitions[0])));
              scratch.warmUpCallPath(WARM_UP_REJECTIONS);
            }
            // loaded, not run: what a trip queues next, and what its answer does
            new QueuedRead(scratch);
            new Refreshed(scratch);
            // the queue's table is made by its first entry: made by the first trip, that was when
            // FirstTripIT's children saw ConcurrentHashMap.putVal's compiled code de-optimized
            // (which the whole JVM runs), and with this they no longer do
            refreshQueued.putIfAbsent(WARM_UP, Boolean.TRUE);
            refreshQueued.remove(WARM_UP);
          } finally {
            warmedUp.countDown();
          }
        }
        return;
      }
      FleetMessage f = FleetMessage.parse(m);
      health.succeeded(BackgroundTask.MESSAGE);
      DistributedBreaker b = breakers.get(f.id());
      if (b == null) {
        return;
      }
      if (f.transition()) {
        b.onTransitionMessage(f);
      } else {
        b.onOtherMessage();
      }
    } catch (Exception e) {
      // a malformed message must not disturb the node; the periodic refresh corrects the view
      health.failed(BackgroundTask.MESSAGE, e);
    }
  }

  /**
   * Stops listening to pub/sub (the node then learns only from its periodic refresh and its own
   * script results). Tests use it to make a node miss fleet messages.
   */
  void stopListening() {
    listening = false;
    try {
      AutoCloseable sub = subscription;
      subscription = null;
      if (sub != null) {
        sub.close();
      }
    } catch (Exception e) {
      // nothing to release
    }
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    flushEverything();
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
    if (control != null) {
      control.close();
    }
    try {
      AutoCloseable sub = subscription;
      if (sub != null) {
        sub.close();
      }
    } catch (Exception e) {
      // closing a subscription cannot fail the caller
    }
    BreakerStore s = raw;
    if (s != null && s != cfg.store()) {
      s.close(); // a store given to the builder belongs to its creator
    }
  }
}
