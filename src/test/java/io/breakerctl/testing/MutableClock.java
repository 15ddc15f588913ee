package io.breakerctl.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/** A clock tests move by hand (the one copy every test uses). */
public final class MutableClock extends Clock {

  private final AtomicReference<Instant> now;

  /** A clock at {@code start}. */
  public MutableClock(Instant start) {
    this.now = new AtomicReference<>(start);
  }

  /** A clock at {@code startMillis} ms after the epoch. */
  public MutableClock(long startMillis) {
    this(Instant.ofEpochMilli(startMillis));
  }

  /** Moves the clock forward by {@code d}. */
  public void advance(Duration d) {
    now.updateAndGet(i -> i.plus(d));
  }

  /** Moves the clock forward by {@code millis} ms. */
  public void advanceMillis(long millis) {
    advance(Duration.ofMillis(millis));
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public Instant instant() {
    return now.get();
  }
}
