package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.BackgroundTask;
import io.breakerctl.runtime.local.LocalStateMachine;
import io.breakerctl.runtime.model.FallbackPolicy;
import io.breakerctl.runtime.store.BreakerStore;
import io.breakerctl.runtime.store.NodeHeartbeat;
import io.breakerctl.runtime.store.Outcome;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

/**
 * What one breaker ({@link DistributedBreaker}) sends on its own, off the callers' path: the
 * successes it batches and its report (record.lua's heartbeat), each only when due.
 */
final class BreakerReports {
  private final BreakerState breaker;
  private final BreakerContext registry;
  private final LocalStateMachine local;
  private final LongAdder pendingSuccesses;

  /** The registry's ticker: when successes and reports are due. */
  private final Ticker ticker;

  /** Pending successes past this many are flushed at the next tick. */
  static final long MAX_PENDING = 10_000;

  /** The fallbacks code registered for this breaker on this node (none: empty). */
  private volatile Set<FallbackPolicy> fallbacks = Set.of();

  /** What each call site on this node accepts, by its registration (see {@link #callSite}). */
  private final java.util.Map<Object, Set<FallbackPolicy>> callSites = new java.util.HashMap<>();

  /** The kinds every call site accepts, as reported (empty: no call site declared any). */
  private volatile String accepts = "";

  private volatile NodeHeartbeat lastBeat;
  private volatile long lastBeatAt;
  private volatile long lastFlushAt;

  /**
   * Up to a fifth of the report interval earlier, fixed per breaker: breakers created together (a
   * node's start) do not all re-send their heartbeats in the same tick, which would queue thousands
   * of scripts at once. Successes start at a random phase of the flush interval.
   */
  private final long beatSpread;

  BreakerReports(BreakerState breaker, BreakerContext registry) {
    this.breaker = breaker;
    this.registry = registry;
    this.local = breaker.local;
    this.pendingSuccesses = breaker.pendingSuccesses;
    this.ticker = registry.ticker();
    ThreadLocalRandom random = ThreadLocalRandom.current();
    this.beatSpread = (long) (random.nextDouble() * registry.reportIntervalNanos() / 5);
    this.lastFlushAt = ticker.read() - (long) (random.nextDouble() * registry.flushIntervalNanos());
  }

  /**
   * The registry's flush tick: sends only what is due (flush by need). Pending successes go when
   * the window needs them (a rate policy: every tick, since they move the failure rate), when over
   * {@link #MAX_PENDING}, or once they are {@code flushInterval} old; a count-only policy trips on
   * failures alone, which go to Redis at once. The report (record.lua's heartbeat) goes when what
   * this node reports (state, policy, degraded) changed, else every report interval (ten heartbeat
   * intervals, at most 10 minutes; the node's liveness goes once per heartbeat interval for all its
   * breakers). An idle breaker sends nothing but that report.
   */
  void flushIfDue() {
    long now = ticker.read();
    long n = pendingSuccesses.sum();
    boolean successes =
        n > 0
            && (breaker.resolved.policy().failureRateThreshold().isPresent()
                || n >= MAX_PENDING
                || now - lastFlushAt >= registry.flushIntervalNanos());
    NodeHeartbeat beat = heartbeat(breaker.guard().up());
    boolean beatDue =
        !beat.equals(lastBeat) || now - lastBeatAt >= registry.reportIntervalNanos() - beatSpread;
    if (successes || beatDue) {
      flush(successes, beatDue ? beat : null);
    }
  }

  /** Sends the report again at the next flush tick: the keys that held it were lost. */
  void resend() {
    lastBeat = null;
  }

  /**
   * At close: the pending successes, if any, without a report (the node's liveness says it left; a
   * report per breaker would be a burst of one script per breaker for nothing).
   */
  java.util.concurrent.CompletableFuture<?> flushAtClose() {
    return pendingSuccesses.sum() > 0 ? flush(true, null) : null;
  }

  /** Flushes every pending success with this node's heartbeat now (tests). */
  void flush() {
    flush(true, heartbeat(breaker.guard().up()));
  }

  /** Sends what is pending; the answer's future (null when there is no store to send to). */
  private java.util.concurrent.CompletableFuture<?> flush(
      boolean withSuccesses, NodeHeartbeat beat) {
    BreakerStore store = registry.store();
    if (store == null) {
      return null;
    }
    boolean up = breaker.guard().up();
    long n = up && withSuccesses ? pendingSuccesses.sumThenReset() : 0;
    breaker.tally.completed(n);
    if (n > 0) {
      local.record(0, n, -1, -1, null, registry.nodeId());
    }
    if (withSuccesses) {
      lastFlushAt = ticker.read();
    }
    return store
        .record(
            breaker.id,
            new Outcome(registry.nodeId(), 0, n, -1, "", ""),
            breaker.resolved.policy(),
            beat)
        .whenComplete(
            (res, e) -> {
              if (e != null) {
                pendingSuccesses.add(n);
                breaker.tally.completed(-n); // counted again as they are taken again
                registry.health().failed(BackgroundTask.FLUSH, e);
                if (up) {
                  breaker.guard().failure(e);
                }
              } else {
                breaker.windowSeen(res);
                if (beat != null) {
                  lastBeat = beat;
                  lastBeatAt = ticker.read();
                }
                registry.health().succeeded(BackgroundTask.FLUSH);
                if (up) {
                  breaker.guard().success();
                }
              }
            });
  }

  /** The report as the flush tick compares and encodes it; nothing is sent (the warm-up). */
  void warmUp() {
    NodeHeartbeat beat = heartbeat(true);
    beat.equals(lastBeat);
    beat.toJson();
  }

  /** Takes the fallback kinds code registered for the breaker on this node (reported). */
  void fallbacksRegistered(Set<FallbackPolicy> kinds) {
    fallbacks = Set.copyOf(kinds);
  }

  /**
   * Takes the kinds one call site accepts; the returned action withdraws them. The report carries
   * their intersection over the call sites registered (computed here, not at each tick).
   */
  Runnable callSite(Set<FallbackPolicy> kinds) {
    Object site = new Object();
    synchronized (callSites) {
      callSites.put(site, Set.copyOf(kinds));
      accepts = intersection();
    }
    return () -> {
      synchronized (callSites) {
        if (callSites.remove(site) != null) {
          accepts = intersection();
        }
      }
    };
  }

  private String intersection() {
    if (callSites.isEmpty()) {
      return "";
    }
    Set<FallbackPolicy> all = java.util.EnumSet.allOf(FallbackPolicy.class);
    callSites.values().forEach(all::retainAll);
    return all.stream().map(Enum::name).collect(Collectors.joining(","));
  }

  /** What this node reports about the breaker in record.lua's heartbeat. */
  NodeHeartbeat heartbeat(boolean up) {
    BreakerState.Resolved r = breaker.resolved;
    Set<FallbackPolicy> kinds = fallbacks;
    return new NodeHeartbeat(
        registry.nodeId(),
        breaker.acting(),
        r.policyId(),
        r.version(),
        !up,
        0,
        r.policyId().isEmpty() ? r.defaultsArg() : "",
        up ? "" : breaker.guard().reason().code(),
        kinds.isEmpty() || r.policy().fallbackPolicy() != FallbackPolicy.NONE
            ? ""
            : kinds.stream().map(Enum::name).collect(Collectors.joining(",")),
        registry.session(),
        accepts);
  }
}
