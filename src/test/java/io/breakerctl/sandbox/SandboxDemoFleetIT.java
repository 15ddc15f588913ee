package io.breakerctl.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.BreakerEvent;
import io.breakerctl.runtime.redis.BreakerSnapshot;
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
 * The demo scenario on a real redis-server: one breaker trips and recovers, the rest stay closed.
 */
class SandboxDemoFleetIT {

  @RegisterExtension static final RedisExtension redis = RedisExtension.standalone();

  @Test
  void paymentsTripsAndRecoversOthersStayClosed(RedisServerProcess server) {
    StringWriter narration = new StringWriter();
    try (RedisBreakerStore store =
        RedisBreakerStore.connect(
            StoreConfig.builder().uri(server.uri()).timeout(Duration.ofSeconds(5)).build())) {

      new DemoFleet(store, new PrintWriter(narration)).run(Duration.ofSeconds(20));

      for (BreakerId id : DemoFleet.BREAKERS) {
        BreakerSnapshot s = RedisBreakerStore.await(store.snapshot(id, 20));
        assertThat(s.effectiveState()).as(id.toString()).isEqualTo(State.CLOSED);
      }
      List<BreakerEvent> events =
          RedisBreakerStore.await(store.snapshot(DemoFleet.TRIPPING, 20)).recentEvents();
      assertThat(events)
          .extracting(e -> e.from() + "->" + e.to())
          .contains("CLOSED->OPEN", "HALF_OPEN->CLOSED");
    }
    assertThat(narration.toString())
        .contains("CLOSED -> OPEN")
        .contains("waits (PROBES_BUSY)")
        .contains("HALF_OPEN -> CLOSED");
  }
}
