package io.breakerctl.runtime.local;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/** A clock tests move by hand. */
final class MutableClock extends Clock {

  private final AtomicReference<Instant> now;

  MutableClock(long startMillis) {
    this.now = new AtomicReference<>(Instant.ofEpochMilli(startMillis));
  }

  void advance(Duration d) {
    now.updateAndGet(i -> i.plus(d));
  }

  void advanceMillis(long millis) {
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
