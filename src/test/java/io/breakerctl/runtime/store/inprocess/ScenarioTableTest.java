package io.breakerctl.runtime.store.inprocess;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.testing.MutableClock;
import io.breakerctl.testing.scenario.Scenario;
import io.breakerctl.testing.scenario.Scenario.Step;
import io.breakerctl.testing.scenario.ScenarioRunner;
import io.breakerctl.testing.scenario.ScenarioTable;
import io.breakerctl.testing.scenario.StoreScenarioSide;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The scenario table ({@link ScenarioTable}) on the in-process store: one {@link
 * InProcessBreakerStore} per run, on a clock the run moves to each step's time, driven by the same
 * {@link StoreScenarioSide} that {@code ScenarioTableIT} drives on the Lua scripts (standalone and
 * cluster), so the Java machine under the store and the scripts agree line by line.
 */
@DisplayName("Scenario table on the in-process store (LocalStateMachine)")
class ScenarioTableTest {

  /** Each scenario starts at the first multiple of its {@link Scenario#alignMillis} after this. */
  private static final long START = 1_700_000_000_000L;

  private static final long LATE = ScenarioTable.LATENESS_MILLIS - 1;
  private static final int JITTER_RUNS = 64;

  private static final List<Scenario> TABLE = ScenarioTable.load();

  @TestFactory
  @DisplayName("every scenario, each step at its time")
  Stream<DynamicTest> exact() {
    return TABLE.stream()
        .map(sc -> DynamicTest.dynamicTest(sc.name(), () -> assertRuns(sc, new long[0], 1)));
  }

  @TestFactory
  @DisplayName("every scenario at the Redis side's scale, each step at its time")
  Stream<DynamicTest> scaled() {
    long k = ScenarioTable.redisScale();
    return TABLE.stream()
        .map(
            sc ->
                DynamicTest.dynamicTest(sc.name(), () -> assertRuns(sc.scaled(k), new long[0], 1)));
  }

  @TestFactory
  @DisplayName("every scenario, each step up to LATENESS_MILLIS late (as on a real clock)")
  Stream<DynamicTest> late() {
    return TABLE.stream()
        .map(
            sc ->
                DynamicTest.dynamicTest(
                    sc.name(),
                    () -> {
                      Random random = new Random(sc.name().hashCode());
                      int n = sc.steps().size();
                      for (int run = 0; run < JITTER_RUNS; run++) {
                        long[] lateness = new long[n];
                        for (int i = 0; i < n; i++) {
                          boolean late = run == 1 || (run > 1 && random.nextBoolean());
                          lateness[i] = late ? LATE : 0;
                        }
                        assertRuns(sc, lateness, ScenarioTable.LATENESS_MILLIS);
                      }
                    }));
  }

  @Test
  @DisplayName("the table covers what issue 11 asks for")
  void coverage() {
    Set<String> seen = new TreeSet<>();
    for (Scenario sc : TABLE) {
      if (sc.policy().rate() != null && sc.policy().minCalls() != null) {
        seen.add("rate+minCalls");
      }
      if (sc.policy().slow() != null) {
        seen.add("slow");
      }
      for (Step s : sc.steps()) {
        seen.add(s.op());
        if (s.reason() != null) {
          seen.add(s.reason());
        }
        for (String e : s.expectedEvents()) {
          seen.add(e.substring(e.indexOf(' ') + 1));
        }
        if (s.op().equals("force") && s.forMs() != null && s.forMs() > 0) {
          seen.add("expiring " + s.kind());
        }
        if (s.open() != null
            && sc.policy().maxOpen() != null
            && s.open().equals(sc.policy().maxOpen())) {
          seen.add("maxOpen reached");
        }
      }
    }
    assertThat(TABLE).hasSizeGreaterThanOrEqualTo(60);
    assertThat(seen)
        .contains(
            "fail",
            "ok",
            "acquire",
            "probe",
            "renew",
            "force",
            "clear",
            "warm",
            "check",
            "rate+minCalls",
            "slow",
            "maxOpen reached",
            "FAILURE_THRESHOLD",
            "FAILURE_RATE",
            "OPEN_WINDOW_ENDED",
            "PROBES_SUCCEEDED",
            "PROBE_FAILED",
            "PROBE_TIMED_OUT",
            "RENEWED",
            "OVERRIDE_SET",
            "OVERRIDE_UPDATED",
            "OVERRIDE_CLEARED",
            "OVERRIDE_EXPIRED",
            "PROBE",
            "PROBES_BUSY",
            "POLICY_DISABLED",
            "STALE_GENERATION",
            "STALE_LEASE",
            "LEASE_EXPIRED",
            "NOT_COUNTED",
            "RELEASED",
            "NOT_OVERRIDDEN",
            "UPDATED",
            "CLEARED",
            "WARMED",
            "UNCHANGED",
            "STALE",
            "expiring FORCED_OPEN",
            "expiring FORCED_CLOSED",
            "expiring DISABLED",
            "expiring METRICS_ONLY");
  }

  private static void assertRuns(Scenario sc, long[] lateness, long tolerance) {
    long start = Math.floorDiv(START, sc.alignMillis()) * sc.alignMillis() + sc.alignMillis();
    MutableClock clock = new MutableClock(start);
    StoreScenarioSide side =
        StoreScenarioSide.on(
            new InProcessBreakerStore(clock),
            BreakerId.of("table", sc.name(), null),
            sc.policy().toPolicy());
    List<String> diffs =
        ScenarioRunner.run(
            sc,
            side,
            (i, step) -> {
              long target = start + step.at() + (i < lateness.length ? lateness[i] : 0);
              clock.advanceMillis(Math.max(0, target - clock.millis()));
              return start;
            },
            tolerance);
    assertThat(diffs)
        .as(
            "%s (%s), steps late by %s ms",
            sc.name(), sc.about(), java.util.Arrays.toString(lateness))
        .isEmpty();
  }
}
