package io.breakerctl.sandbox;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.BreakerEvent;
import io.breakerctl.runtime.store.FleetStore;
import io.breakerctl.runtime.store.StoreFutures;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;

/** What a demo phase waits for and reads back: bounded waits, the breaker's stream. */
final class DemoWaits {
  private DemoWaits() {}

  /** The newest stream id of the breaker ("" when it has no events). */
  static String lastEventId(FleetStore store, BreakerId id) {
    List<BreakerEvent> recent = StoreFutures.await(store.snapshot(id, 1)).recentEvents();
    return recent.isEmpty() ? "" : recent.get(0).streamId();
  }

  /** The first trip (CLOSED to OPEN) after stream id {@code after}. */
  static BreakerEvent trip(FleetStore store, BreakerId id, String after) {
    return StoreFutures.await(store.eventsAfter(id, after, 100)).stream()
        .filter(e -> e.problem().isEmpty() && e.from() == State.CLOSED && e.to() == State.OPEN)
        .findFirst()
        .orElseThrow(() -> new IllegalStateException(id + " has no trip event"));
  }

  /** Polls {@code ok} every 10 ms until it holds; throws naming {@code what} after the bound. */
  static void await(Duration bound, String what, BooleanSupplier ok) {
    long deadline = System.nanoTime() + bound.toNanos();
    while (!ok.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "timed out after " + bound.toSeconds() + " s waiting for " + what);
      }
      DemoFleet.pause(10);
    }
  }
}
