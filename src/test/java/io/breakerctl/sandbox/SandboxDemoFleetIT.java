package io.breakerctl.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;
import io.breakerctl.runtime.redis.BreakerEvent;
import io.breakerctl.runtime.redis.BreakerSnapshot;
import io.breakerctl.runtime.redis.NodeHeartbeat;
import io.breakerctl.runtime.redis.RedisBreakerStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.testing.RedisExtension;
import io.breakerctl.testing.RedisServerProcess;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The demo scenario on a real redis-server, driven by three HYBRID runtime registries: {@code
 * checkout:payments} trips with exactly {@code threshold} failures in its shared window, recovers
 * through exactly one probe, and every breaker ends closed on every node.
 */
class SandboxDemoFleetIT {

  @RegisterExtension static final RedisExtension redis = RedisExtension.standalone();

  @Test
  void paymentsTripsAndRecoversThroughOneProbeOthersStayClosed(RedisServerProcess server) {
    StringWriter narration = new StringWriter();
    try (RedisBreakerStore store =
        RedisBreakerStore.connect(
            StoreConfig.builder().uri(server.uri()).timeout(Duration.ofSeconds(5)).build())) {

      DemoFleet.Summary summary =
          new DemoFleet(server.uri(), store, new PrintWriter(narration))
              .run(Duration.ofSeconds(20));

      List<BreakerEvent> events =
          RedisBreakerStore.await(store.eventsAfter(DemoFleet.TRIPPING, "", 100));
      assertThat(events)
          .as(narration.toString())
          .extracting(e -> e.from() + "->" + e.to())
          .containsExactly("CLOSED->OPEN", "OPEN->HALF_OPEN", "HALF_OPEN->CLOSED");
      BreakerEvent trip = events.get(0);
      assertThat(trip.cause()).isEqualTo(TransitionCause.FAILURE_THRESHOLD);
      assertThat(trip.field("failures")).isEqualTo("5");
      assertThat(trip.field("threshold")).isEqualTo("5");
      assertThat(trip.field("node")).isIn(DemoFleet.NODES);
      BreakerEvent close = events.get(2);
      assertThat(close.cause()).isEqualTo(TransitionCause.PROBES_SUCCEEDED);
      assertThat(close.field("lease")).isNotEmpty();
      assertThat(close.field("node")).isEqualTo(summary.prober());

      assertThat(summary.tripFailures()).isEqualTo(5);
      assertThat(summary.reachedWhileDown()).isGreaterThanOrEqualTo(5);
      assertThat(summary.rejectedWhileOpen()).isGreaterThanOrEqualTo(DemoFleet.NODES.size());
      assertThat(summary.probes()).isEqualTo(1);

      for (BreakerId id : DemoFleet.BREAKERS) {
        BreakerSnapshot s = RedisBreakerStore.await(store.snapshot(id, 20));
        assertThat(s.effectiveState()).as(id.toString()).isEqualTo(State.CLOSED);
        assertThat(s.liveLeases()).as(id.toString()).isEmpty();
        assertThat(s.nodes())
            .as(id + " heartbeats")
            .extracting(NodeHeartbeat::node)
            .containsAll(DemoFleet.NODES);
        assertThat(s.nodes())
            .as(id + " heartbeats")
            .filteredOn(h -> DemoFleet.NODES.contains(h.node()))
            .allSatisfy(
                h -> {
                  assertThat(h.state()).isEqualTo(State.CLOSED);
                  assertThat(h.policyVersion()).isEqualTo(1);
                });
        if (!id.equals(DemoFleet.TRIPPING)) {
          assertThat(RedisBreakerStore.await(store.eventsAfter(id, "", 10)))
              .as(id + " never tripped")
              .isEmpty();
        }
      }
    }
    assertThat(narration.toString())
        .contains("CLOSED -> OPEN")
        .contains("held the one probe lease")
        .contains("HALF_OPEN -> CLOSED")
        .contains("3 nodes left");
  }
}
