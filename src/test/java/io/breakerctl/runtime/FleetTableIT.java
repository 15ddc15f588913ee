package io.breakerctl.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.TransitionCause;
import io.breakerctl.runtime.redis.BreakerEvent;
import io.breakerctl.runtime.redis.RedisBreakerStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The fleet table: 20 nodes calling one failing dependency, threshold 5, one call in flight per
 * node. Prints the measured row for each mode (see the README's Performance section).
 */
@DisplayName("Fleet table: 20 nodes, one failing dependency")
class FleetTableIT {

  @RegisterExtension
  static final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);

  private static final AtomicInteger SEQ = new AtomicInteger();
  private static final int NODES = 20;

  static Policy policy() {
    return Policy.builder()
        .failureThreshold(5)
        .open(Duration.ofMillis(1000))
        .maxOpen(Duration.ofMillis(1000))
        .probeLease(Duration.ofSeconds(5))
        .build();
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Mode.class)
  void fleetTable(Mode mode) {
    BreakerId id =
        BreakerId.parse("fleet-" + mode.name().toLowerCase() + ":dep-" + SEQ.incrementAndGet());
    try (RedisBreakerStore store =
            RedisBreakerStore.connect(StoreConfig.builder().uri(redis.uri()).build());
        Fleet fleet = new Fleet(redis.uri(), id, mode, NODES, "n", policy())) {
      long start = System.currentTimeMillis();
      fleet.start(2);
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (fleet.allRejectedAt() == 0 && System.nanoTime() < deadline) {
        Fleet.sleep(5);
      }
      long allRejected = fleet.allRejectedAt();
      assertThat(allRejected).as("every node rejects within 10 s").isPositive();
      long doomed = fleet.reachedBetween(start, allRejected + 1);
      Fleet.sleep(1500);
      long probes = fleet.reachedBetween(allRejected + 1, allRejected + 1501);

      if (mode == Mode.LOCAL) {
        System.out.printf(
            "fleet table %-6s failuresAtTrip=n/a doomedRequests=%d probesPerWindow=%d%n",
            mode, doomed, probes);
        assertThat(doomed).isEqualTo(5L * NODES);
        assertThat(probes).isEqualTo(NODES);
        return;
      }
      List<BreakerEvent> events = RedisBreakerStore.await(store.eventsAfter(id, "", 100));
      BreakerEvent trip = events.get(0);
      assertThat(trip.cause()).isEqualTo(TransitionCause.FAILURE_THRESHOLD);
      long failuresAtTrip = Long.parseLong(trip.field("failures"));
      long lag = allRejected - trip.atMillis();
      long beforeTrip = fleet.reachedBetween(start, trip.atMillis() + 1);
      long duringLag = doomed - beforeTrip;
      System.out.printf(
          "fleet table %-6s failuresAtTrip=%d doomedRequests=%d (before trip %d, during %d ms lag %d) probesPerWindow=%d%n",
          mode, failuresAtTrip, doomed, beforeTrip, lag, duringLag, probes);

      assertThat(failuresAtTrip).isEqualTo(5);
      assertThat(events)
          .extracting(BreakerEvent::cause)
          .containsOnlyOnce(TransitionCause.FAILURE_THRESHOLD);
      if (mode == Mode.SHARED) {
        assertThat(doomed).isLessThanOrEqualTo(5 + NODES - 1);
      } else {
        assertThat(beforeTrip).isLessThanOrEqualTo(5 + NODES - 1);
        assertThat(lag).as("propagation lag").isLessThan(1000);
      }
      assertThat(probes).as("probes in one half-open window").isEqualTo(policy().halfOpenPermits());
      assertThat(events)
          .extracting(BreakerEvent::cause)
          .contains(TransitionCause.OPEN_WINDOW_ENDED, TransitionCause.PROBE_FAILED);
    }
  }
}
