package io.breakerctl.runtime.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.RedisExtension;
import io.breakerctl.testing.scenario.Scenario;
import io.breakerctl.testing.scenario.ScenarioRunner;
import io.breakerctl.testing.scenario.ScenarioTable;
import io.breakerctl.testing.scenario.StoreScenarioSide;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The scenario table ({@link ScenarioTable}) on the Lua scripts, through {@link RedisFleetStore}
 * driven by {@link StoreScenarioSide}, on every target (standalone and 3-master cluster, each
 * redis-server binary available). {@code ScenarioTableTest} runs the same table with the same side
 * on the in-process store (the Java machine).
 *
 * <p>The scripts take time only from Redis {@code TIME}, which on this host is the test's own wall
 * clock (checked first). Every clock time of the table runs {@link ScenarioTable#redisScale} times
 * longer here (3 by default). Each scenario starts on a multiple of its {@link
 * Scenario#alignMillis} and each step is sent at its time; a step that answers {@code
 * LATENESS_MILLIS * scale} or more after its time proves nothing (the table holds only within that
 * lateness, which {@code ScenarioTableTest} checks), so that run of the scenario is repeated on a
 * fresh breaker, up to {@link #ATTEMPTS} times. {@link #PARALLEL} scenarios run at once, each on
 * its own breaker.
 */
@DisplayName("Scenario table on the Lua scripts (standalone and cluster)")
class ScenarioTableIT {

  private static final int ATTEMPTS = 5;
  private static final int PARALLEL = 24;
  private static final long SCALE = ScenarioTable.redisScale();
  private static final long LATENESS = ScenarioTable.LATENESS_MILLIS * SCALE;

  @RegisterExtension static final RedisExtension redis = RedisExtension.manual();

  private static final List<Scenario> TABLE = ScenarioTable.load();
  private static List<StoreTarget> targets;
  private static ExecutorService pool;

  /** A step answered too late for the table to apply. */
  private static final class Late extends RuntimeException {
    Late(String message) {
      super(message, null, false, false);
    }
  }

  private record Run(List<String> diffs, int attempts, String lastLate) {}

  @BeforeAll
  static void start() {
    targets = StoreTarget.startAll(redis, true);
    pool = Executors.newFixedThreadPool(PARALLEL);
  }

  @AfterAll
  static void stop() throws InterruptedException {
    pool.shutdownNow();
    pool.awaitTermination(10, TimeUnit.SECONDS);
  }

  @TestFactory
  @DisplayName("every scenario answers as the table says")
  Stream<DynamicContainer> scenarios() {
    return targets.stream()
        .map(
            t -> {
              assertRedisTimeIsLocalTime(t);
              Map<String, CompletableFuture<Run>> runs = new LinkedHashMap<>();
              for (Scenario sc : TABLE) {
                runs.put(sc.name(), CompletableFuture.supplyAsync(() -> runUntimed(t, sc), pool));
              }
              return DynamicContainer.dynamicContainer(
                  t.toString(),
                  TABLE.stream()
                      .map(
                          sc ->
                              DynamicTest.dynamicTest(
                                  sc.name(), () -> check(sc, runs.get(sc.name()).join()))));
            });
  }

  private static void check(Scenario sc, Run run) {
    assertThat(run.lastLate())
        .as("%s: every attempt had a step answer %d ms or more late", sc.name(), LATENESS)
        .isNull();
    assertThat(run.diffs())
        .as("%s (%s) on Redis, attempt %d", sc.name(), sc.about(), run.attempts())
        .isEmpty();
  }

  /** Runs the scenario until one attempt has every step on time. */
  private static Run runUntimed(StoreTarget t, Scenario table) {
    Scenario sc = table.scaled(SCALE);
    long align = sc.alignMillis();
    String late = null;
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      BreakerId id = StoreTarget.freshId(sc.name());
      StoreScenarioSide side = StoreScenarioSide.on(t.store, id, sc.policy().toPolicy());
      long start = Math.floorDiv(System.currentTimeMillis() + 100, align) * align + align;
      try {
        List<String> diffs =
            ScenarioRunner.run(
                sc,
                side,
                new ScenarioRunner.Timing() {
                  @Override
                  public long before(int index, Scenario.Step step) {
                    sleepUntil(start + step.at());
                    return start;
                  }

                  @Override
                  public void after(int index, Scenario.Step step) {
                    long lateBy = System.currentTimeMillis() - (start + step.at());
                    if (lateBy >= LATENESS) {
                      throw new Late("step " + (index + 1) + " answered " + lateBy + " ms late");
                    }
                  }
                },
                LATENESS);
        t.assertEventsLegal(id);
        return new Run(diffs, attempt, null);
      } catch (Late e) {
        late = e.getMessage();
      }
    }
    return new Run(List.of(), ATTEMPTS, late);
  }

  private static void sleepUntil(long atMillis) {
    long wait;
    while ((wait = atMillis - System.currentTimeMillis()) > 0) {
      try {
        Thread.sleep(wait);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
  }

  /** The table's times are wall-clock times only if Redis TIME is this host's clock. */
  private static void assertRedisTimeIsLocalTime(StoreTarget t) {
    BreakerId id = StoreTarget.freshId("clock");
    long before = System.currentTimeMillis();
    long redisTime = StoreFutures.await(t.store.redisTimeMillis(id));
    long after = System.currentTimeMillis();
    assertThat(redisTime).as("Redis TIME on %s", t).isBetween(before - 1, after + 1);
  }
}
