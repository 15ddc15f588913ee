package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.BackgroundTask;
import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.RegistryOptions;
import io.breakerctl.runtime.store.BreakerStore;
import io.breakerctl.runtime.store.NodeCallCounts;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * What a registry sends for its breakers and itself: the flush tick (every breaker's due successes
 * and report, in one batch), the node's liveness beat with its call counts, and everything pending
 * at close.
 */
final class RegistryFlusher {
  private static final System.Logger LOG = System.getLogger(BreakerRegistry.class.getName());

  /** How many heartbeat intervals one liveness beat is valid for. */
  static final int ALIVE_INTERVALS = 3;

  private static final long REPORT_INTERVAL_CAP_NANOS = TimeUnit.MINUTES.toNanos(10);

  private final DefaultBreakerRegistry registry;
  private final RegistryOptions cfg;

  /**
   * How often a breaker's unchanged report is sent again: ten heartbeat intervals, at most 10
   * minutes (record.lua prunes a report not renewed in 30). Readers count reports by the node's
   * liveness, so this only ages out the reports of breakers a node no longer holds and heals a lost
   * one.
   */
  private final long reportIntervalNanos;

  /** When {@link #callCounts} last took the counts (the registry's start before the first beat). */
  private long lastCallCountsAt;

  RegistryFlusher(DefaultBreakerRegistry registry) {
    this.registry = registry;
    this.cfg = registry.options();
    this.reportIntervalNanos =
        Math.min(cfg.heartbeatInterval().toNanos() * 10, REPORT_INTERVAL_CAP_NANOS);
    this.lastCallCountsAt = registry.nanoTime();
  }

  /** See {@link #reportIntervalNanos}. */
  long reportIntervalNanos() {
    return reportIntervalNanos;
  }

  /**
   * The flush tick: every breaker's due successes and heartbeat, sent as one batch (one pipelined
   * write per master, {@link BreakerStore#batch}); each breaker sends what is due (see {@link
   * DistributedBreaker#flushIfDue}).
   */
  void flushAll() {
    inBatch(() -> registry.breakers().forEach(DistributedBreaker::flushIfDue));
  }

  /**
   * The node's liveness for the fleet view, once per heartbeat interval and valid for three: the
   * one periodic write an idle node makes whatever its breaker count (its per-breaker reports go on
   * change, see {@link #reportIntervalNanos}). Skipped while degraded, sent again at recovery.
   */
  void beatAlive() {
    beatNow();
  }

  /**
   * One liveness beat now, with the call counts since the previous one; the write's future (null
   * while degraded or not connected: nothing is sent and the counts wait for the next beat).
   */
  CompletableFuture<Long> beatNow() {
    BreakerStore s = registry.store();
    if (s == null || !registry.guard().up()) {
      return null;
    }
    BackgroundHealth health = registry.health();
    return s.alive(
            cfg.nodeId(),
            cfg.heartbeatInterval().multipliedBy(ALIVE_INTERVALS),
            callCounts(),
            registry.session())
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
    long now = registry.nanoTime();
    long window = Math.max(1, (now - lastCallCountsAt) / 1_000_000);
    lastCallCountsAt = now;
    Map<String, NodeCallCounts.Counts> counts = new LinkedHashMap<>();
    for (DistributedBreaker b : registry.breakers()) {
      NodeCallCounts.Counts c = b.takeCallCounts();
      if (!c.idle()) {
        counts.put(b.id().toString(), c);
      }
    }
    return new NodeCallCounts(window, counts);
  }

  /**
   * Everything pending, now (close): sent in one batch, and waited for up to twice the command
   * timeout (the client's own timeout ends each first). What Redis has not confirmed then (Redis
   * hung or degraded, an answer that failed or came too late) is logged once with its count: the
   * fleet's windows may miss those outcomes (a flush that timed out may still run), and none is
   * dropped unsaid.
   */
  void flushEverything() {
    List<CompletableFuture<?>> sent = new ArrayList<>();
    if (cfg.mode() != Mode.LOCAL) {
      inBatch(
          () -> {
            for (DistributedBreaker b : registry.breakers()) {
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
    for (DistributedBreaker b : registry.breakers()) {
      long n = b.unsentOutcomes();
      if (n > 0) {
        lost += n;
        of++;
      }
    }
    if (lost > 0) {
      StoreGuard down = registry.guards().downGuard();
      LOG.log(
          System.Logger.Level.WARNING,
          "breakerctl: node {0} closed with {1} outcomes of {2} breakers not sent to or not"
              + " confirmed by Redis ({3}): the fleet's windows may miss them",
          cfg.nodeId(),
          lost,
          of,
          down == null ? "no answer in time" : "degraded: " + down.reason().code());
    }
  }

  private void inBatch(Runnable work) {
    BreakerStore s = registry.store();
    if (s == null) {
      work.run();
    } else {
      s.batch(work);
    }
  }
}
