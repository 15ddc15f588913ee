package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.StoreStats;
import io.breakerctl.runtime.store.BreakerStore;
import io.breakerctl.runtime.store.StoreException;
import io.breakerctl.runtime.store.StoreFault;
import io.breakerctl.runtime.store.StoreFutures;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The small breaker around the coordinator: the node is degraded when Redis does not answer, and no
 * call waits on Redis until a background check sees it answer again.
 *
 * <p>The first unavailable answer of a streak starts a confirmation (the registry sends one PING,
 * bounded by the command timeout): when that fails too the node is degraded at once, so the loss is
 * detected within about one command timeout of the first failed command, not after several periodic
 * commands. {@link #TRIP_AFTER} consecutive unavailable answers degrade it as well. A single slow
 * answer on a CPU-starved machine followed by a PING that answers does not.
 *
 * <p>An answer that refuses the work ({@link StoreFault#hard()}: {@code -OOM}, {@code -READONLY},
 * {@code -NOPERM}, {@code -LOADING}, ...) degrades the node at once: Redis is there, so a PING
 * would answer, and every further command would get the same refusal while the breakers follow a
 * shared view nobody can update. The fault is kept as the degradation's {@link #reason()}, and the
 * recovery check then also writes through a script before the node leaves degraded, since a PING
 * and reads pass on a full Redis, a replica or an ACL that denies only the scripts.
 *
 * <pre>
 *   UP --(hard fault | TRIP_AFTER unavailable in a row | unavailable + PING fails)--> DEGRADED
 *   DEGRADED --(recovery check: 8 quick PINGs, a script write after a hard fault, reconcile)--> UP
 *   (checks back off from 250 ms to 2 s with jitter while they fail)
 * </pre>
 *
 * <p>One guard per shard ({@link BreakerStore#shardOf}): where one server holds every key (a
 * standalone Redis, Sentinel) that is the node's one guard; on a Cluster each master has its own,
 * and a dead master degrades only the breakers whose slots it owns while the others keep deciding
 * from the fleet's shared state (a SHARED fleet degraded as a whole for 9-10 s when one master of
 * three died, and a breaker on a healthy master then tripped per node: {@code threshold x nodes}
 * calls). The node's own guard (shard {@code ""}) also stands for the node's own work on a Cluster
 * (the connection, the subscription, the heartbeat).
 */
final class StoreGuard {
  /** Consecutive unavailable answers that mark Redis as down without waiting for the PING. */
  static final int TRIP_AFTER = 3;

  /**
   * The PINGs of one recovery check, {@link #RECOVERY_PING_GAP_MILLIS} apart: each must answer
   * within the command timeout and their median within a fifth of it (10 ms of 50). A Redis
   * answering just under the timeout (about 40 ms of 50: a client pausing it in bursts, a saturated
   * server) is not yet one the node's calls can wait on, so the node stays in its one degraded
   * episode instead of flapping in and out of it with every answer that happens to arrive in time.
   * The median, not each answer: on a CPU-starved machine a few answers come late for the node's
   * own want of a core, and a bound on every one of them kept a node degraded for seconds after a
   * 150 ms stall, long enough for its seeded open window to end and a local probe to go out beside
   * the fleet's (RedisStallIT, two test JVMs and a busy core). Spread over about 70 ms, the PINGs
   * sample several of the bursts rather than one gap between two; a healthy Redis answers each in a
   * fraction of a millisecond.
   */
  static final int RECOVERY_PINGS = 8;

  static final long RECOVERY_PING_GAP_MILLIS = 10;

  /** Checks Redis once, bounded by the command timeout, and reports to {@link #confirmed}. */
  interface Confirmation {
    void start(StoreGuard guard);
  }

  private final AtomicBoolean down = new AtomicBoolean();
  private final AtomicBoolean confirming = new AtomicBoolean();
  private final AtomicInteger consecutive = new AtomicInteger();
  private final AtomicLong degradationIds;
  private volatile long degradation;
  private final AtomicLong degradedNanos = new AtomicLong();
  private volatile long downSince;
  private volatile long downAtMillis;
  private volatile StoreFault reason = StoreFault.TIMEOUT;
  private final String shard;
  private final java.util.function.Consumer<StoreGuard> onDown;
  private final Confirmation confirmation;
  private final java.time.Clock clock;
  private final Ticker ticker;

  /** The delay before the next recovery check (the registry's scheduler alone changes it). */
  long recoveryDelay;

  /**
   * @param shard the shard it guards ({@link BreakerStore#shardOf}; "" for the node's own)
   * @param onDown told once per degradation, after it is visible
   * @param confirmation the PING that confirms a streak's first unavailable answer
   * @param clock the registry's clock ({@link #downAtMillis})
   * @param ticker the registry's ticker (how long it has been degraded, {@link #stats})
   * @param degradationIds the node's counter of degradations, shared by its guards ({@link
   *     #degradations})
   */
  StoreGuard(
      String shard,
      java.util.function.Consumer<StoreGuard> onDown,
      Confirmation confirmation,
      java.time.Clock clock,
      Ticker ticker,
      AtomicLong degradationIds) {
    this.shard = shard;
    this.onDown = onDown;
    this.confirmation = confirmation;
    this.clock = clock;
    this.ticker = ticker;
    this.degradationIds = degradationIds;
  }

  /** The shard it guards: "" for the node's own guard. */
  String shard() {
    return shard;
  }

  boolean up() {
    return !down.get();
  }

  /**
   * The current (or last) degradation, numbered across the node's guards (0: never degraded): a
   * breaker seeds its local machine once per, and one that moved to another master's guard (a
   * failover) never takes that guard's number for the one it was seeded for.
   */
  long degradations() {
    return degradation;
  }

  /**
   * When the current (or last) degradation began, on the registry's clock: stamped before the
   * degradation is counted, so every seed made for it (which reads the count) comes at or after
   * this time. The DEGRADED events carry it: the listeners' own clock would be late by whatever ran
   * in between (a warning logged to a blocked stderr, a starved thread), and a local probe one open
   * window after the seed would look early against it.
   */
  long downAtMillis() {
    return downAtMillis;
  }

  void success() {
    consecutive.set(0);
  }

  /**
   * The registry-level meters' figures: the commands' counts (timed at the store boundary, {@link
   * MeteredStore}) with the time the node's guards have been degraded, the current degradations
   * included, summed over them (two masters down for a second each count two); degraded while any
   * one is. {@code now} is on the guards' ticker.
   */
  static StoreStats stats(
      java.util.Collection<StoreGuard> guards, MeteredStore.Counts commands, long now) {
    long nanos = 0;
    boolean anyDown = false;
    for (StoreGuard g : guards) {
      long since = g.downSince;
      boolean isDown = g.down.get();
      nanos += g.degradedNanos.get() + (isDown && since != 0 ? now - since : 0);
      anyDown |= isDown;
    }
    return commands.stats(nanos, anyDown);
  }

  /** Why the node is (or was last) degraded. */
  StoreFault reason() {
    return reason;
  }

  void failure(Throwable t) {
    Throwable e = t;
    while (e != null && !(e instanceof StoreException)) {
      e = e.getCause();
    }
    if (e == null || down.get()) {
      return;
    }
    StoreFault fault = ((StoreException) e).fault();
    if (fault.hard()) {
      trip(fault);
      return;
    }
    if (fault != StoreFault.TIMEOUT && fault != StoreFault.UNREACHABLE) {
      return; // a fault of the request (a bad argument, a malformed breaker), not of Redis
    }
    if (consecutive.incrementAndGet() >= TRIP_AFTER) {
      trip(fault);
    } else if (confirming.compareAndSet(false, true)) {
      try {
        confirmation.start(this);
      } catch (RuntimeException ex) {
        confirming.set(false);
      }
    }
  }

  /**
   * The confirmation's answer: Redis answered the PING, or it did not within the timeout. An answer
   * does not end the streak (on a Cluster the PING may reach a node other than the one that
   * failed); only a command that succeeds does.
   */
  void confirmed(boolean answered) {
    confirming.set(false);
    if (!answered) {
      trip(StoreFault.TIMEOUT);
    }
  }

  /**
   * Marks Redis as down. The degradation is counted before it becomes visible: a caller that sees
   * the node degraded also sees the new count, so its breaker seeds its local machine for this
   * degradation and never decides from a machine left by an earlier one.
   */
  void trip(StoreFault why) {
    synchronized (this) {
      if (down.get()) {
        return;
      }
      reason = why;
      downSince = ticker.read();
      downAtMillis = clock.millis();
      degradation = degradationIds.incrementAndGet();
      down.set(true);
    }
    onDown.accept(this);
  }

  /** Marks Redis reachable again; true when it was down. */
  boolean recover() {
    consecutive.set(0);
    synchronized (this) {
      if (!down.get()) {
        return false;
      }
      down.set(false);
    }
    long since = downSince;
    if (since != 0) {
      degradedNanos.addAndGet(ticker.read() - since);
    }
    return true;
  }

  /**
   * The recovery check's PINGs ({@link #RECOVERY_PINGS}): each within the timeout, the median
   * within a fifth, timed on {@code ticker}.
   */
  static boolean answersQuickly(
      BreakerStore s, String shard, java.time.Duration timeout, Ticker ticker) {
    long limit = Math.max(timeout.toNanos() / 5, 2_000_000);
    long[] took = new long[RECOVERY_PINGS];
    for (int i = 0; i < RECOVERY_PINGS; i++) {
      if (i > 0) {
        try {
          Thread.sleep(RECOVERY_PING_GAP_MILLIS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
      long start = ticker.read();
      StoreFutures.await(s.ping(shard), timeout); // each within the timeout, or the check fails
      took[i] = ticker.read() - start;
    }
    java.util.Arrays.sort(took);
    return took[RECOVERY_PINGS / 2] <= limit;
  }
}
