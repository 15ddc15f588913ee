package io.breakerctl.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
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
  private static final long RECONNECT_MILLIS = 250;

  private final BreakerRegistry.Builder cfg;
  private final Map<BreakerId, DistributedBreaker> breakers = new ConcurrentHashMap<>();
  private final ScheduledExecutorService scheduler;
  private final StoreGuard guard;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Map<BreakerId, Boolean> refreshQueued = new ConcurrentHashMap<>();
  private volatile RedisBreakerStore store;
  private volatile AutoCloseable subscription;
  private final Consumer<BreakerId> transitionsWon;
  private final ControlPlaneLink control;

  DefaultBreakerRegistry(BreakerRegistry.Builder cfg) {
    this.cfg = cfg;
    ScheduledThreadPoolExecutor s =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "breakerctl-" + cfg.nodeId);
              t.setDaemon(true);
              return t;
            });
    s.setRemoveOnCancelPolicy(true);
    this.scheduler = s;
    this.guard = new StoreGuard(this::onDegraded);
    if (cfg.mode != Mode.LOCAL) {
      if (!connect()) {
        guard.trip();
      }
      long refresh = cfg.refreshInterval.toMillis();
      long flush = cfg.flushInterval.toMillis();
      scheduler.scheduleWithFixedDelay(this::refreshAll, refresh, refresh, TimeUnit.MILLISECONDS);
      scheduler.scheduleWithFixedDelay(this::flushAll, flush, flush, TimeUnit.MILLISECONDS);
    }
    this.control =
        cfg.controlPlane != null && cfg.mode != Mode.LOCAL
            ? new ControlPlaneLink(cfg.controlPlane, this::store, cfg.nodeId, cfg.clock, scheduler)
            : null;
    this.transitionsWon = control == null ? id -> {} : control::handOff;
  }

  // ---- configuration read by breakers ---------------------------------------------------------

  Policy defaults() {
    return cfg.defaults;
  }

  Clock clock() {
    return cfg.clock;
  }

  boolean rejectionStackTraces() {
    return cfg.rejectionStackTraces;
  }

  PolicySource policySource() {
    return cfg.policySource != null ? cfg.policySource : control;
  }

  java.time.Duration commandTimeout() {
    return cfg.commandTimeout;
  }

  StoreGuard guard() {
    return guard;
  }

  RedisBreakerStore store() {
    return store;
  }

  @Override
  public String nodeId() {
    return cfg.nodeId;
  }

  @Override
  public Mode mode() {
    return cfg.mode;
  }

  @Override
  public boolean degraded() {
    return cfg.mode != Mode.LOCAL && !guard.up();
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
          if (cfg.mode != Mode.LOCAL) {
            readNow(b);
          }
          return b;
        });
  }

  // ---- connection -----------------------------------------------------------------------------

  private boolean connect() {
    try {
      RedisBreakerStore s;
      if (cfg.redisClient != null) {
        s = RedisBreakerStore.create(cfg.redisClient, cfg.prefix, cfg.idleTtl, cfg.commandTimeout);
      } else if (cfg.redisClusterClient != null) {
        s =
            RedisBreakerStore.create(
                cfg.redisClusterClient, cfg.prefix, cfg.idleTtl, cfg.commandTimeout);
      } else {
        s =
            RedisBreakerStore.connect(
                StoreConfig.builder()
                    .uri(cfg.redisUri)
                    .timeout(cfg.connectTimeout)
                    .commandTimeout(cfg.commandTimeout)
                    .prefix(cfg.prefix)
                    .idleTtl(cfg.idleTtl)
                    .build());
      }
      store = s;
      subscription = s.subscribe(this::onMessage, () -> background(this::refreshAll));
      return true;
    } catch (StoreException e) {
      return false;
    }
  }

  private void onDegraded() {
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
      breakers.values().forEach(DistributedBreaker::recovered);
      return;
    }
    scheduler.schedule(this::checkRecovery, RECONNECT_MILLIS, TimeUnit.MILLISECONDS);
  }

  private boolean reconcileAll() {
    RedisBreakerStore s = store;
    try {
      for (DistributedBreaker b : breakers.values()) {
        BreakerSnapshot shared = RedisBreakerStore.await(s.state(b.id()));
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
      b.onSnapshot(RedisBreakerStore.await(s.state(b.id()), cfg.commandTimeout));
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
      String id = m.path("id").asText("");
      DistributedBreaker b = breakers.get(io.breakerctl.runtime.model.BreakerId.parse(id));
      if (b == null) {
        return;
      }
      String type = m.path("type").asText("");
      if ("transition".equals(type)) {
        b.onMessage(
            type,
            State.fromCode(m.path("to").asText("CLOSED")),
            m.path("cause").asText(""),
            m.path("generation").asLong(0),
            m.path("epoch").asText(""),
            m.path("until").asLong(0));
      } else {
        b.onMessage(type, null, "", 0, "", 0);
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
    if (cfg.mode != Mode.LOCAL && guard.up()) {
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
