package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.BackgroundTask;
import io.breakerctl.runtime.RegistryOptions;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.BreakerStore;
import io.breakerctl.runtime.store.StoreException;
import io.breakerctl.runtime.store.StoreFutures;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * How a registry's breakers learn the shared state by reading it: the first read of a breaker, the
 * coalesced reads queued after a message or a transition, the periodic refresh (the canary, the
 * stamps of held breakers, the sweep of every stamp, or every breaker read while pub/sub does not
 * work) and the regrouping of breakers under the guard of the shard that holds their keys.
 */
final class ViewRefresher {
  /** The longest a node waits after a pushed transition before it reads the breaker in full. */
  static final long READ_AFTER_PUSH_MILLIS = 100;

  /** How soon a breaker's missing first read is tried again. */
  static final long FIRST_READ_RETRY_MILLIS = 200;

  /** Breakers per pipelined round of a stamp check. */
  private static final int STAMP_BATCH = 200;

  private final DefaultBreakerRegistry registry;
  private final RegistryOptions cfg;
  private final BackgroundHealth health;
  private final Map<BreakerId, Boolean> refreshQueued = new ConcurrentHashMap<>();

  /** Starts at a random phase, so nodes started together do not check in step. */
  private volatile long lastStampCheck;

  /** When every stamp was last compared; set at a random phase by the constructor. */
  private volatile long lastSweep;

  /** The store's canary fingerprint as last read (null: not read since the last resubscribe). */
  private volatile String canary;

  /**
   * The periodic check's task, made once: a lambda made at the first check (5 s after a start) was
   * linked then, ms of a fresh JVM's CPU at a moment nothing else chose.
   */
  private final Runnable canaryCheck;

  ViewRefresher(DefaultBreakerRegistry registry) {
    this.registry = registry;
    this.cfg = registry.options();
    this.health = registry.health();
    this.lastStampCheck =
        registry.nanoTime() - (long) (ThreadLocalRandom.current().nextDouble() * 5e9);
    this.lastSweep =
        registry.nanoTime()
            - (long) (ThreadLocalRandom.current().nextDouble() * cfg.sweepInterval().toNanos());
    this.canaryCheck =
        () -> {
          BreakerStore s = registry.store();
          if (s != null) {
            checkCanary(s);
          }
        };
  }

  /** One read of {@code b} in {@code delayMillis} (0: now), unless one is queued already. */
  void queueRefresh(DistributedBreaker b, long delayMillis) {
    if (registry.isClosed() || refreshQueued.putIfAbsent(b.id(), Boolean.TRUE) != null) {
      return;
    }
    try {
      registry.scheduler().schedule(new QueuedRead(b), delayMillis, TimeUnit.MILLISECONDS);
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

  /**
   * The first read of a new breaker, bounded by the command timeout, so a node that joins while the
   * fleet is open does not admit calls until its first refresh.
   */
  void readNow(DistributedBreaker b) {
    BreakerStore s = registry.store();
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
    BreakerStore s = registry.store();
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
   * Loads what a fresh JVM's first pushed trip runs next (the message path's warm-up): the classes
   * of a queued read and of its answer, loaded, not run, and the queue's table. The table is made
   * by its first entry: made by the first trip, that was when FirstTripIT's children saw
   * ConcurrentHashMap.putVal's compiled code de-optimized (which the whole JVM runs), and with this
   * they no longer do.
   */
  void warmUp(DistributedBreaker scratch, BreakerId id) {
    new QueuedRead(scratch);
    new Refreshed(scratch);
    refreshQueued.putIfAbsent(id, Boolean.TRUE);
    refreshQueued.remove(id);
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
  void refreshAll() {
    StoreConnection connection = registry.connection();
    BreakerStore.Subscription sub = connection.subscription();
    BreakerStore s = registry.store();
    if (s == null || !registry.guard().up()) {
      return;
    }
    regroup(s);
    if (!connection.listening() || sub == null || !sub.isOpen()) {
      registry.breakers().forEach(this::refresh);
      return;
    }
    long now = registry.nanoTime();
    if (now - lastStampCheck < cfg.checkInterval().toNanos()) {
      return;
    }
    lastStampCheck = now;
    registry.background(canaryCheck);
  }

  /**
   * Puts each breaker whose keys another shard now holds (a resharding, a failover its guard never
   * saw fail) under that shard's guard, when both are up; a degraded breaker moves at its guard's
   * recovery check instead, reconciled first. A hash of each breaker's key per refresh tick.
   */
  private void regroup(BreakerStore s) {
    ShardGuards guards = registry.guards();
    for (DistributedBreaker b : registry.breakers()) {
      StoreGuard now = b.guard();
      if (now.up()) {
        StoreGuard to = guards.guardOf(s.shardOf(b.id()));
        if (to != now && to.up()) {
          b.guard(to);
        }
      }
    }
  }

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
    boolean due = registry.nanoTime() - lastSweep >= cfg.sweepInterval().toNanos();
    boolean lost = seen != null && !seen.equals(now);
    if (lost) {
      // Redis lost its data (FLUSHALL, an empty replica promoted): this node's liveness went
      // with it, so it beats now rather than at its next heartbeat; the breakers whose keys moved
      // re-send their reports and policies as their reads find the new incarnation
      registry.flusher().beatAlive();
    }
    if (due || lost) {
      lastSweep = registry.nanoTime();
      checkStamps(s, List.copyOf(registry.breakers()));
    } else {
      // the canary is read by every node every check and is almost never the LRU victim, while a
      // tripped breaker's hash is read only at its transitions: the coldest key. Its stamp is
      // compared every check too, so an evicted (or deleted) trip is re-asserted within one
      // checkInterval, not read as CLOSED at its window's end or found by the sweep
      List<DistributedBreaker> held = new ArrayList<>();
      for (DistributedBreaker b : registry.breakers()) {
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
    for (int from = 0; from < all.size() && !registry.isClosed(); from += STAMP_BATCH) {
      List<DistributedBreaker> batch = all.subList(from, Math.min(all.size(), from + STAMP_BATCH));
      List<String> stamps;
      try {
        List<BreakerId> ids = new ArrayList<>(batch.size());
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

  /**
   * After a (re)subscription, when messages may have been missed: the canary's new baseline, then a
   * stamp check now.
   */
  void readAll() {
    BreakerStore s = registry.store();
    if (s != null && registry.guard().up()) {
      lastStampCheck = registry.nanoTime();
      // the sweep keeps its random phase: nodes started (or reconnected) together would otherwise
      // all sweep in the same second from then on
      canary = null;
      registry.background(
          () -> {
            readCanary(s);
            checkStamps(s, List.copyOf(registry.breakers()));
          });
    }
  }

  /** Reads the canary into {@link #canary}; null (a background failure) when it cannot. */
  String readCanary(BreakerStore s) {
    try {
      String now = StoreFutures.await(s.canary(), cfg.commandTimeout().multipliedBy(10));
      canary = now;
      return now;
    } catch (StoreException e) {
      health.failed(BackgroundTask.REFRESH, e);
      return null;
    }
  }
}
