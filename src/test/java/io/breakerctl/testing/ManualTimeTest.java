package io.breakerctl.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link ManualTime}: tasks run only as the test moves time, in due order, on the test thread. */
class ManualTimeTest {
  private final MutableClock clock = new MutableClock(1_000L);
  private final ManualTime time = new ManualTime(clock);
  private final ScheduledExecutorService scheduler = time.newScheduler();
  private final List<String> ran = new CopyOnWriteArrayList<>();

  @Test
  void tasksRunInDueOrderOnlyAsTimeMovesAndMoveTheClockAndTickerWithThem() {
    long start = time.nanoTime();
    scheduler.schedule(() -> ran.add("b@" + (time.nanoTime() - start)), 20, TimeUnit.MILLISECONDS);
    scheduler.schedule(() -> ran.add("a@" + (time.nanoTime() - start)), 10, TimeUnit.MILLISECONDS);
    scheduler.execute(() -> ran.add("now"));
    assertEquals(List.of(), ran, "nothing runs before the test says");
    time.runDue();
    assertEquals(List.of("now"), ran);
    time.advance(Duration.ofMillis(15));
    assertEquals(List.of("now", "a@10000000"), ran, "each task at its own time");
    time.advance(Duration.ofMillis(15));
    assertEquals(List.of("now", "a@10000000", "b@20000000"), ran);
    assertEquals(30_000_000, time.nanoTime() - start);
    assertEquals(1_030, clock.millis(), "the clock moves with the ticker");
  }

  @Test
  void aFixedDelayTaskRepeatsFromTheEndOfEachRunAndStopsWhenCancelledOrShutDown() {
    ScheduledFuture<?> f =
        scheduler.scheduleWithFixedDelay(() -> ran.add("tick"), 0, 100, TimeUnit.MILLISECONDS);
    time.advance(Duration.ofMillis(250));
    assertEquals(3, ran.size(), "at 0, 100 and 200 ms");
    f.cancel(false);
    time.advance(Duration.ofSeconds(1));
    assertEquals(3, ran.size(), "a cancelled task never runs");
    scheduler.scheduleWithFixedDelay(() -> ran.add("tock"), 100, 100, TimeUnit.MILLISECONDS);
    scheduler.schedule(() -> ran.add("once"), 50, TimeUnit.MILLISECONDS);
    scheduler.shutdown();
    assertThrows(RejectedExecutionException.class, () -> scheduler.execute(() -> {}));
    time.advance(Duration.ofSeconds(1));
    assertEquals(List.of("tick", "tick", "tick", "once"), ran, "periodic ones stop at shutdown");
    assertTrue(scheduler.isTerminated());
  }

  @Test
  void runUntilMovesToEachNextTaskAndFailsPastItsBoundInTestTime() {
    scheduler.schedule(() -> ran.add("late"), 5, TimeUnit.SECONDS);
    time.runUntil("the late task", () -> !ran.isEmpty(), Duration.ofSeconds(10));
    assertEquals(List.of("late"), ran);
    scheduler.schedule(() -> ran.add("too late"), 1, TimeUnit.HOURS);
    AssertionError e =
        assertThrows(
            AssertionError.class, () -> time.runUntil("never", () -> false, Duration.ofMinutes(1)));
    assertTrue(e.getMessage().contains("never"), e.getMessage());
    assertFalse(ran.contains("too late"), "nothing past the bound ran");
  }

  @Test
  void awaitTerminationRunsWhatIsDueAndShutdownNowDropsTheRest() throws Exception {
    ScheduledExecutorService other = time.newScheduler();
    other.execute(() -> ran.add("other's"));
    scheduler.execute(() -> ran.add("due"));
    scheduler.schedule(() -> ran.add("later"), 1, TimeUnit.SECONDS);
    scheduler.shutdown();
    assertFalse(scheduler.awaitTermination(0, TimeUnit.MILLISECONDS), "one task left");
    assertEquals(List.of("due"), ran, "only this scheduler's due task");
    assertEquals(1, scheduler.shutdownNow().size());
    assertTrue(scheduler.isTerminated());
    time.advance(Duration.ofSeconds(2));
    assertEquals(List.of("due", "other's"), ran, "the other scheduler goes on");
  }
}
