package io.breakerctl.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.TransitionCause;
import io.breakerctl.runtime.redis.BreakerEvent;
import io.breakerctl.runtime.redis.RedisBreakerStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.testing.ChildJvm;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The fleet table with the 20 nodes split over 2 JVM processes (10 here, 10 in a child). */
@DisplayName("Fleet table over 2 JVM processes")
class FleetSplitIT {

  @RegisterExtension
  static final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);

  @ParameterizedTest(name = "{0}")
  @EnumSource(
      value = Mode.class,
      names = {"SHARED", "HYBRID"})
  void splitFleet(Mode mode) {
    BreakerId id = BreakerId.parse("split-" + mode.name().toLowerCase() + ":dep");
    long startAt = System.currentTimeMillis() + 10_000;
    long stopAt = startAt + 4500;
    ChildJvm child =
        redis.manage(
            ChildJvm.start(
                FleetNodesMain.class,
                redis.uri(),
                id.toString(),
                mode.name(),
                "10",
                "child-",
                Long.toString(startAt),
                Long.toString(stopAt)));
    List<Long> reached = new ArrayList<>();
    try (Fleet here = new Fleet(redis.uri(), id, mode, 10, "parent-", FleetTableIT.policy())) {
      long deadline = System.nanoTime() + Duration.ofSeconds(25).toNanos();
      while (child.stdout().stream().noneMatch("READY"::equals) && System.nanoTime() < deadline) {
        Fleet.sleep(20);
      }
      assertThat(System.currentTimeMillis())
          .as("the child was ready before the start time")
          .isLessThan(startAt);
      Fleet.sleep(Math.max(0, startAt - System.currentTimeMillis()));
      here.start(2);
      Fleet.sleep(Math.max(0, stopAt - System.currentTimeMillis()));
      reached.addAll(here.dependency.times);
    }
    assertThat(child.waitFor(Duration.ofSeconds(30)))
        .as("child stderr %s", child.stderr())
        .isZero();
    String line =
        child.stdout().stream().filter(l -> l.startsWith("reached=")).findFirst().orElseThrow();
    for (String t : line.substring("reached=".length()).split(",")) {
      if (!t.isEmpty()) {
        reached.add(Long.parseLong(t));
      }
    }

    try (RedisBreakerStore store =
        RedisBreakerStore.connect(StoreConfig.builder().uri(redis.uri()).build())) {
      List<BreakerEvent> events = RedisBreakerStore.await(store.eventsAfter(id, "", 1000));
      List<TransitionCause> causes = events.stream().map(BreakerEvent::cause).toList();
      BreakerEvent trip = events.get(0);
      long windows = causes.stream().filter(c -> c == TransitionCause.OPEN_WINDOW_ENDED).count();
      long probesFailed = causes.stream().filter(c -> c == TransitionCause.PROBE_FAILED).count();
      long beforeTrip = reached.stream().filter(t -> t <= trip.atMillis()).count();
      long lagSlack = 200;
      long afterTrip = reached.stream().filter(t -> t > trip.atMillis() + lagSlack).count();
      System.out.printf(
          "fleet split %-6s failuresAtTrip=%s beforeTrip=%d halfOpenWindows=%d probesAfterTrip=%d%n",
          mode, trip.field("failures"), beforeTrip, windows, afterTrip);

      assertThat(trip.cause()).isEqualTo(TransitionCause.FAILURE_THRESHOLD);
      assertThat(trip.field("failures")).isEqualTo("5");
      assertThat(causes).containsOnlyOnce(TransitionCause.FAILURE_THRESHOLD);
      assertThat(beforeTrip).isLessThanOrEqualTo(5 + 19);
      assertThat(windows).as("half-open windows in the run").isGreaterThanOrEqualTo(2);
      assertThat(probesFailed).as("one probe per half-open window").isEqualTo(windows);
      assertThat(afterTrip)
          .as("calls that reached the dependency after the trip are the probes")
          .isEqualTo(windows);
    }
  }
}
