package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.PolicySource;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.store.BreakerStore;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;

/**
 * What a breaker needs from the registry that holds it: the node's settings, the store, the guard
 * of its shard, and the registry's background work. The breaker and its parts (reports, probe
 * renewals, in-flight calls) see the registry only through this interface, so a test can see what a
 * breaker asks of its registry and the registry's own jobs (connection, refresh, flush) stay behind
 * it.
 */
interface BreakerContext {

  /** How this node's breakers decide (fixed for the registry's life). */
  Mode mode();

  /** This node's id (lease owner, heartbeat, events). */
  String nodeId();

  /** This registry's session (the prefix of its lease names). */
  String session();

  /** The policy a breaker runs before the control plane or the store gave one. */
  Policy defaults();

  /** The clock the local machine and overrides follow. */
  Clock clock();

  /** The monotonic time every interval a breaker's parts measure reads. */
  Ticker ticker();

  /** Whether rejections fill in their stack traces. */
  boolean rejectionStackTraces();

  /** Where versioned policies come from (null: none). */
  PolicySource policySource();

  /** How long a view learned from the store is trusted once the store is down, in millis. */
  long lastKnownMillis();

  /** How long one store command may take. */
  Duration commandTimeout();

  /** The store, timed and metered (null while none is connected). */
  BreakerStore store();

  /** The guard of the shard holding {@code id}'s keys. */
  StoreGuard guardFor(BreakerId id);

  /** The failures of the registry's background tasks. */
  BackgroundHealth health();

  /** Counts a transition this node's script call won. */
  void transitionWon(BreakerId id);

  /** Runs {@code task} on the registry's scheduler now (nothing once closed). */
  void background(Runnable task);

  /**
   * Runs {@code task}, which may wait on user code for as long as a dependency hangs (a
   * health-check probe), on a thread of its own, never on the scheduler or the timer (nothing once
   * closed).
   */
  void onOwnThread(Runnable task);

  /**
   * Runs {@code task} on the registry's timer in {@code delayMillis}, which runs only work that
   * never waits (lease renewals, in-flight sweeps), so it goes on time; null once closed.
   */
  ScheduledFuture<?> later(Runnable task, long delayMillis);

  /** Schedules one coalesced state read of the breaker {@code id} holds, now. */
  void refreshSoon(BreakerId id);

  /** Schedules one coalesced state read of {@code id} after a pushed transition (jittered). */
  void refreshAfterPush(BreakerId id);

  /** The interval of the batched flush, in nanos. */
  long flushIntervalNanos();

  /** How often an unchanged report is sent again, in nanos. */
  long reportIntervalNanos();
}
