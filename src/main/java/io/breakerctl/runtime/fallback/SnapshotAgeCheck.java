package io.breakerctl.runtime.fallback;

import io.breakerctl.runtime.CircuitBreaker;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Reads when the breaker's newest approved snapshot was captured, in the background every {@code
 * interval}, and reports it to the breaker's observer ({@link
 * io.breakerctl.runtime.CallObserver#newestApprovedSnapshot}): the age gauge reads that value, so a
 * scrape never reads MongoDB. MongoDB being down keeps the last value.
 */
final class SnapshotAgeCheck implements AutoCloseable {
  private final CircuitBreaker breaker;
  private final SnapshotSource snapshots;
  private final ScheduledThreadPoolExecutor scheduler;

  SnapshotAgeCheck(CircuitBreaker breaker, SnapshotSource snapshots, Duration interval) {
    this.breaker = breaker;
    this.snapshots = snapshots;
    this.scheduler = daemon("breakerctl-snapshot-age-" + breaker.id());
    long every = interval.toMillis();
    scheduler.scheduleWithFixedDelay(this::check, 0, every, TimeUnit.MILLISECONDS);
  }

  /** A background read's interval: positive and at least 100 ms (a bounded load on MongoDB). */
  static Duration interval(String name, Duration interval) {
    java.util.Objects.requireNonNull(interval, name);
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException(name + " must be > 0 but was " + interval);
    }
    if (interval.toMillis() < 100) {
      throw new IllegalArgumentException(
          name + " must be >= 100 ms but was " + interval.toMillis() + " ms");
    }
    return interval;
  }

  /** A one-thread scheduler whose thread, named {@code name}, does not hold the JVM open. */
  static ScheduledThreadPoolExecutor daemon(String name) {
    return new ScheduledThreadPoolExecutor(
        1,
        r -> {
          Thread t = new Thread(r, name);
          t.setDaemon(true);
          return t;
        });
  }

  /** One read; a failure keeps the last value until the next round. */
  void check() {
    try {
      Optional<Instant> newest = snapshots.newestApproved(breaker.id());
      breaker.observer().newestApprovedSnapshot(newest.map(Instant::toEpochMilli).orElse(-1L));
    } catch (RuntimeException e) {
      // MongoDB unavailable: the gauge keeps its last value
    }
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
  }
}
