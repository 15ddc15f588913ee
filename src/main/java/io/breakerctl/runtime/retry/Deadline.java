package io.breakerctl.runtime.retry;

import java.time.Duration;

/**
 * The caller's time budget for one call, all its attempts and waits included: a point on the
 * monotonic clock ({@link System#nanoTime()}). Immutable.
 */
public final class Deadline {

  /** No deadline: attempts are bounded only by the policy's attempt timeout. */
  public static final Deadline NONE = new Deadline(Long.MAX_VALUE, true);

  private final long atNanos;
  private final boolean none;

  private Deadline(long atNanos, boolean none) {
    this.atNanos = atNanos;
    this.none = none;
  }

  /**
   * A deadline {@code budget} from now.
   *
   * @throws IllegalArgumentException when the budget is not positive
   */
  public static Deadline after(Duration budget) {
    if (budget.isNegative() || budget.isZero()) {
      throw new IllegalArgumentException("deadline budget must be > 0 but was " + budget);
    }
    return new Deadline(System.nanoTime() + budget.toNanos(), false);
  }

  /** Whether this is {@link #NONE}. */
  public boolean unbounded() {
    return none;
  }

  /** Nanoseconds left (0 once passed; {@link Long#MAX_VALUE} for {@link #NONE}). */
  public long remainingNanos() {
    if (none) {
      return Long.MAX_VALUE;
    }
    return Math.max(0, atNanos - System.nanoTime());
  }

  /** Whether the deadline has passed. */
  public boolean expired() {
    return !none && atNanos - System.nanoTime() <= 0;
  }

  @Override
  public String toString() {
    return none ? "Deadline[none]" : "Deadline[" + remainingNanos() / 1_000_000 + " ms left]";
  }
}
