package io.breakerctl.runtime.redis;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Bounded polling for integration tests: a condition with a deadline, never a bare sleep. */
public final class Poll {
  private Poll() {}

  /** Waits until {@code condition} holds, failing with {@code what} after {@code limit}. */
  public static void until(Duration limit, String what, BooleanSupplier condition) {
    until(limit, Duration.ofMillis(10), what, condition);
  }

  /**
   * Waits until {@code condition} holds, checking it every {@code every} (for a condition that
   * costs a round trip to a server), failing with {@code what} after {@code limit}.
   */
  public static void until(Duration limit, Duration every, String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + limit.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + limit + " waiting for " + what);
      }
      try {
        Thread.sleep(every.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what, e);
      }
    }
  }
}
