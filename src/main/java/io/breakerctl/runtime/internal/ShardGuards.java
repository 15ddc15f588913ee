package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.RegistryOptions;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.BreakerStore;
import io.breakerctl.runtime.store.StoreException;
import io.breakerctl.runtime.store.StoreFault;
import io.breakerctl.runtime.store.StoreFutures;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A registry's guards ({@link StoreGuard}), one per shard, and what follows when one degrades: the
 * confirming PING, the warning, the breakers told, and the recovery check that moves breakers to
 * the shard that now holds their keys, reconciles them and brings the guard up again.
 */
final class ShardGuards {
  private static final System.Logger LOG = System.getLogger(BreakerRegistry.class.getName());

  /** The recovery check while degraded: first after this, then backing off with jitter. */
  private static final long RECOVERY_CHECK_MILLIS = 250;

  private static final long RECOVERY_CHECK_MAX_MILLIS = 2_000;

  private final DefaultBreakerRegistry registry;
  private final RegistryOptions cfg;

  /** One guard per shard ({@link BreakerStore#shardOf}), the node's own under "". */
  private final Map<String, StoreGuard> guards = new ConcurrentHashMap<>();

  private final AtomicLong degradationIds = new AtomicLong();

  /** The node's own guard (shard ""): every breaker's where one server holds all keys. */
  private final StoreGuard guard;

  ShardGuards(DefaultBreakerRegistry registry) {
    this.registry = registry;
    this.cfg = registry.options();
    this.guard = newGuard("");
  }

  /** The node's own guard (the connection, the subscription, the heartbeat). */
  StoreGuard guard() {
    return guard;
  }

  /** Every guard made so far, the node's own included. */
  Collection<StoreGuard> all() {
    return guards.values();
  }

  /**
   * The guard of the shard holding {@code id}'s keys: the node's own while no store is connected or
   * where one server holds every key, else that master's (made at first need).
   */
  StoreGuard guardFor(BreakerId id) {
    BreakerStore s = registry.store();
    return s == null ? guard : guardOf(s.shardOf(id));
  }

  StoreGuard guardOf(String shard) {
    return shard.isEmpty() ? guard : guards.computeIfAbsent(shard, this::newGuard);
  }

  private StoreGuard newGuard(String shard) {
    StoreGuard g =
        new StoreGuard(
            shard, this::onDegraded, this::confirm, cfg.clock(), registry.ticker(), degradationIds);
    g.recoveryDelay = RECOVERY_CHECK_MILLIS;
    if (shard.isEmpty()) {
      guards.put(shard, g);
    }
    return g;
  }

  /** The breakers whose decisions {@code g} guards. */
  private List<DistributedBreaker> guardedBy(StoreGuard g) {
    List<DistributedBreaker> mine = new ArrayList<>();
    for (DistributedBreaker b : registry.breakers()) {
      if (b.guard() == g) {
        mine.add(b);
      }
    }
    return mine;
  }

  /** A guard that is down: the node's own first, else a master's; null when every one is up. */
  StoreGuard downGuard() {
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

  /** The guard's confirmation: one PING bounded by the command timeout. */
  private void confirm(StoreGuard g) {
    BreakerStore s = registry.store();
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
    registry.background(() -> checkRecovery(g));
  }

  /**
   * The recovery check of one guard, until it is up again. Breakers whose keys another shard now
   * holds (a failover promoted a replica; the first connect of a Cluster store) go there first,
   * reconciled against it while that guard is up. The breakers left are reconciled once the shard's
   * server answers quickly (and, after a hard fault, runs a script that writes); then the guard is
   * up. A master's guard left with no breaker is up at once: nothing depends on it.
   */
  private void checkRecovery(StoreGuard g) {
    if (registry.isClosed() || g.up()) {
      return;
    }
    BreakerStore s = registry.store();
    boolean connected = s == null && registry.connection().connect();
    if (connected) {
      s = registry.store();
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
          reachable =
              StoreGuard.answersQuickly(s, g.shard(), cfg.commandTimeout(), registry.ticker());
          if (reachable && g.reason().hard()) {
            // a PING and reads pass on a full Redis, a replica or an ACL that denies the scripts:
            // leave degraded only once a script that writes runs again
            StoreFutures.await(
                s.alive(
                    cfg.nodeId(),
                    cfg.heartbeatInterval().multipliedBy(RegistryFlusher.ALIVE_INTERVALS)),
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
      registry.flusher().beatAlive(); // back in the fleet view now, not at the next beat
      return;
    }
    long delay = DefaultBreakerRegistry.jitter(g.recoveryDelay);
    g.recoveryDelay = Math.min(RECOVERY_CHECK_MAX_MILLIS, g.recoveryDelay * 2);
    try {
      registry.scheduler().schedule(() -> checkRecovery(g), delay, TimeUnit.MILLISECONDS);
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
}
