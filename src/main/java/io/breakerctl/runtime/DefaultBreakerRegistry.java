package io.breakerctl.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.redis.BreakerSnapshot;
import io.breakerctl.runtime.redis.RedisBreakerStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.redis.StoreException;
import java.time.Clock;
import java.util.Map;
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
final class DefaultBreakerRegistry implements BreakerRegistry {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final System.Logger LOG = System.getLogger(BreakerRegistry.class.getName());

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

  /** The breaker id of the message a node sends itself to warm its message path. */
  private static final BreakerId WARM_UP = BreakerId.parse("breakerctl-warm-up:message-path");

  private final RegistryOptions cfg;
  private final Map<BreakerId, DistributedBreaker> breakers = new ConcurrentHashMap<>();
  private final ScheduledExecutorService scheduler;
  private final StoreGuard guard;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Map<BreakerId, Boolean> refreshQueued = new ConcurrentHashMap<>();
  private volatile RedisBreakerStore store;
  private volatile RedisBreakerStore.Subscription subscription;
  private volatile boolean listening = true;
  private volatile long subscriptionClosedSince;
  private volatile long resubscribeDelay = RESUBSCRIBE_MILLIS;
  private final AtomicBoolean resubscribeScheduled = new AtomicBoolean();
  private volatile long degradedAt;
  private volatile long recoveryDelay = RECOVERY_CHECK_MILLIS;
  private final java.util.concurrent.CountDownLatch warmedUp =
      new java.util.concurrent.CountDownLatch(1);
  private final String warmUpNonce = Long.toHexString(System.nanoTime());
  private final Consumer<BreakerId> transitionsWon;
  private final ControlPlaneLink control;

  DefaultBreakerRegistry(RegistryOptions cfg) {
    this.cfg = cfg;
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
    this.guard = new StoreGuard(this::onDegraded, this::confirm);
    if (cfg.mode() != Mode.LOCAL) {
      if (!connect()) {
        guard.trip();
      }
      long refresh = cfg.refreshInterval().toMillis();
      long flush = cfg.flushInterval().toMillis();
      scheduler.scheduleWithFixedDelay(this::refreshAll, refresh, refresh, TimeUnit.MILLISECONDS);
      scheduler.scheduleWithFixedDelay(this::flushAll, flush, flush, TimeUnit.MILLISECONDS);
      scheduler.scheduleWithFixedDelay(this::watchSubscription, 500, 500, TimeUnit.MILLISECONDS);
    }
    this.control =
        cfg.controlPlane() != null && cfg.mode() != Mode.LOCAL
            ? new ControlPlaneLink(
                cfg.controlPlane(), this::store, cfg.nodeId(), cfg.clock(), scheduler)
            : null;
    this.transitionsWon = control == null ? id -> {} : control::handOff;
  }

  // ---- configuration read by breakers ---------------------------------------------------------

  Policy defaults() {
    return cfg.defaults();
  }

  Clock clock() {
    return cfg.clock();
  }

  boolean rejectionStackTraces() {
    return cfg.rejectionStackTraces();
  }

  PolicySource policySource() {
    return cfg.policySource() != null ? cfg.policySource() : control;
  }

  long lastKnownMillis() {
    return cfg.lastKnownFor().toMillis();
  }

  java.time.Duration commandTimeout() {
    return cfg.commandTimeout();
  }

  StoreGuard guard() {
    return guard;
  }

  RedisBreakerStore store() {
    return store;
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
    return cfg.mode() != Mode.LOCAL && !guard.up();
  }

  @Override
  public StoreStats storeStats() {
    return cfg.mode() == Mode.LOCAL ? StoreStats.NONE : guard.stats();
  }

  void transitionWon(BreakerId id) {
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

  private boolean connect() {
    RedisBreakerStore s;
    try {
      if (cfg.redisClient() != null) {
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
      return false;
    }
    store = s;
    if (subscribe(s)) {
      warmUp(s);
    }
    try {
      RedisBreakerStore.await(s.warmUp(), cfg.connectTimeout());
    } catch (StoreException e) {
      // a node that cannot warm its script path still works; its first call pays for it
    }
    return true;
  }

  /**
   * Subscribes to the fleet's messages; a failure closes what it opened and retries in the
   * background with a jittered, doubling delay, so pub/sub is never lost for good.
   */
  private boolean subscribe(RedisBreakerStore s) {
    if (!listening || closed.get()) {
      return false;
    }
    try {
      RedisBreakerStore.Subscription sub =
          s.subscribe(this::onMessage, () -> background(this::refreshAll));
      RedisBreakerStore.Subscription old = subscription;
      subscription = sub;
      subscriptionClosedSince = 0;
      resubscribeDelay = RESUBSCRIBE_MILLIS;
      if (old != null) {
        old.close();
      }
      return true;
    } catch (StoreException e) {
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
            RedisBreakerStore s = store;
            if (s != null && subscribe(s)) {
              background(this::refreshAll);
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
    RedisBreakerStore s = store;
    if (!listening || s == null) {
      return;
    }
    RedisBreakerStore.Subscription sub = subscription;
    if (sub == null) {
      scheduleResubscribe();
      return;
    }
    if (sub.isOpen()) {
      subscriptionClosedSince = 0;
      return;
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
   * Sends this node one message through its own subscription and waits (bounded) until it has run
   * through the whole message path (Lettuce's pub/sub decoding, JSON, the view update), so the
   * first real trip is not the message that pays for class loading and a cold path.
   */
  private void warmUp(RedisBreakerStore s) {
    RedisBreakerStore.Subscription sub = subscription;
    if (sub == null || warmedUp.getCount() == 0) {
      return;
    }
    try {
      String hello =
          JSON.writeValueAsString(
              Map.of(
                  "type",
                  "hello",
                  "node",
                  cfg.nodeId(),
                  "nonce",
                  warmUpNonce,
                  "message",
                  Map.of(
                      "type", "transition",
                      "id", WARM_UP.toString(),
                      "from", "CLOSED",
                      "to", "OPEN",
                      "cause", "FAILURE_THRESHOLD",
                      "generation", "1",
                      "epoch", "0",
                      "until", "1",
                      "openMillis", "1")));
      sub.publish(hello);
      warmedUp.await(Math.min(cfg.connectTimeout().toMillis(), 1_000), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      // a node that cannot warm its path still works; the first message pays for it
    }
  }

  /** The guard's confirmation: one PING bounded by the command timeout. */
  private void confirm(StoreGuard g) {
    RedisBreakerStore s = store;
    if (s == null) {
      g.confirmed(false);
      return;
    }
    s.ping()
        .orTimeout(cfg.commandTimeout().toMillis() + 10, TimeUnit.MILLISECONDS)
        .whenComplete((v, e) -> g.confirmed(e == null));
  }

  private void onDegraded() {
    degradedAt = System.currentTimeMillis();
    recoveryDelay = RECOVERY_CHECK_MILLIS;
    LOG.log(
        System.Logger.Level.WARNING,
        "breakerctl node {0}: Redis does not answer; each breaker decides from the fleet state it"
            + " last saw and its storeFailureMode until Redis answers again",
        cfg.nodeId());
    breakers.values().forEach(DistributedBreaker::degraded);
    background(this::checkRecovery);
  }

  private void checkRecovery() {
    if (closed.get() || guard.up()) {
      return;
    }
    boolean reachable;
    RedisBreakerStore s = store;
    if (s == null) {
      reachable = connect();
    } else {
      try {
        RedisBreakerStore.await(s.ping());
        reachable = true;
      } catch (StoreException e) {
        reachable = false;
      }
    }
    if (reachable && reconcileAll() && guard.recover()) {
      LOG.log(
          System.Logger.Level.INFO,
          "breakerctl node {0}: Redis answers again after {1} ms; reconciled {2} breakers",
          cfg.nodeId(),
          System.currentTimeMillis() - degradedAt,
          breakers.size());
      breakers.values().forEach(DistributedBreaker::recovered);
      return;
    }
    long delay = jitter(recoveryDelay);
    recoveryDelay = Math.min(RECOVERY_CHECK_MAX_MILLIS, recoveryDelay * 2);
    try {
      scheduler.schedule(this::checkRecovery, delay, TimeUnit.MILLISECONDS);
    } catch (RuntimeException e) {
      // rejected after close
    }
  }

  /** A delay between half and all of {@code millis} (equal jitter), so nodes spread out. */
  private static long jitter(long millis) {
    return millis / 2 + java.util.concurrent.ThreadLocalRandom.current().nextLong(millis / 2 + 1);
  }

  private boolean reconcileAll() {
    RedisBreakerStore s = store;
    try {
      for (DistributedBreaker b : breakers.values()) {
        BreakerSnapshot shared = RedisBreakerStore.await(s.state(b.id()), cfg.commandTimeout());
        b.reconcile(shared);
      }
      return true;
    } catch (StoreException e) {
      return false;
    }
  }

  // ---- background work -------------------------------------------------------------------------

  void background(Runnable task) {
    if (!closed.get()) {
      try {
        scheduler.execute(task);
      } catch (RuntimeException e) {
        // rejected after close: nothing left to do
      }
    }
  }

  /** Schedules one state read of {@code b} (coalesced), e.g. after a message or a transition. */
  void refreshSoon(DistributedBreaker b) {
    if (refreshQueued.putIfAbsent(b.id(), Boolean.TRUE) == null) {
      background(
          () -> {
            refreshQueued.remove(b.id());
            refresh(b);
          });
    }
  }

  /**
   * The first read of a new breaker, bounded by the command timeout, so a node that joins while the
   * fleet is open does not admit calls until its first refresh.
   */
  private void readNow(DistributedBreaker b) {
    RedisBreakerStore s = store;
    if (s == null || !guard.up()) {
      return;
    }
    try {
      b.onSnapshot(RedisBreakerStore.await(s.state(b.id()), cfg.commandTimeout()));
      guard.success();
    } catch (StoreException e) {
      guard.failure(e);
      refreshSoon(b);
    }
  }

  private void refresh(DistributedBreaker b) {
    RedisBreakerStore s = store;
    if (s == null || !guard.up()) {
      return;
    }
    s.state(b.id())
        .whenComplete(
            (snap, e) -> {
              if (e != null) {
                guard.failure(e);
              } else {
                guard.success();
                b.onSnapshot(snap);
              }
            });
  }

  private void refreshAll() {
    breakers.values().forEach(this::refresh);
  }

  private void flushAll() {
    breakers.values().forEach(DistributedBreaker::flush);
  }

  private void onMessage(String message) {
    try {
      JsonNode m = JSON.readTree(message);
      if ("hello".equals(m.path("type").asText(""))) {
        if (cfg.nodeId().equals(m.path("node").asText(""))
            && warmUpNonce.equals(m.path("nonce").asText(""))) {
          // the whole path a transition takes, on a breaker nobody uses, often enough that the
          // JIT compiles it (a few ms, once): the first trip a fresh JVM sees is not interpreted
          DistributedBreaker scratch = new DistributedBreaker(WARM_UP, this);
          String transition = m.path("message").toString();
          try {
            for (int i = 0; i < WARM_UP_ROUNDS; i++) {
              scratch.warmUp(FleetMessage.parse(JSON.readTree(transition)));
            }
          } finally {
            warmedUp.countDown();
          }
        }
        return;
      }
      FleetMessage f = FleetMessage.parse(m);
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
    if (cfg.mode() != Mode.LOCAL && guard.up()) {
      flushAll();
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
    RedisBreakerStore s = store;
    if (s != null) {
      s.close();
    }
  }
}
