package io.breakerctl.runtime.control.timeline;

import io.breakerctl.runtime.control.BreakerPattern;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.store.BreakerEvent;
import io.breakerctl.runtime.store.FleetStore;
import io.breakerctl.runtime.store.StoreFutures;
import java.util.ArrayList;
import java.util.List;

/** Reads breakers' event streams in Redis for the control plane's readers. */
public final class StreamTail {
  private StreamTail() {}

  /** Events read per Redis call (the history forwarder reads as many). */
  public static final int BATCH = 500;

  /** The most events read from one breaker's stream at once. */
  static final int MAX_EVENTS = 20_000;

  /** The selected breakers that have keys in Redis (an exact id is taken as is). */
  public static List<BreakerId> breakers(FleetStore redis, BreakerPattern pattern) {
    if (pattern.exact().isPresent()) {
      return List.of(pattern.exact().get());
    }
    List<BreakerId> out = new ArrayList<>();
    redis.forEachBreaker(
        id -> {
          if (pattern.matches(id)) {
            out.add(id);
          }
        });
    return out;
  }

  /** The stream's events after {@code after} ("" for all), oldest first, at most MAX_EVENTS. */
  public static List<BreakerEvent> after(FleetStore redis, BreakerId id, String after) {
    List<BreakerEvent> out = new ArrayList<>();
    String from = after;
    while (out.size() < MAX_EVENTS) {
      List<BreakerEvent> batch = StoreFutures.await(redis.eventsAfter(id, from, BATCH));
      out.addAll(batch);
      if (batch.size() < BATCH) {
        break;
      }
      from = batch.get(batch.size() - 1).streamId();
    }
    return out;
  }
}
