package io.breakerctl.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.Executors;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Time that moves only when a test says: a {@link MutableClock}, a monotonic ticker ({@link
 * #nanoTime}) and any number of schedulers ({@link #newScheduler}) whose tasks run on the test's
 * own thread, in the order of their due times, as the test {@link #advance advances} time or {@link
 * #runUntil runs until} a condition holds. Moving it moves the clock and the ticker together; the
 * clock may also be moved alone (a wall clock that jumps), the ticker never.
 *
 * <p>A scheduler behaves as a one-thread {@code ScheduledThreadPoolExecutor} with its default
 * policies: a task's exception ends it (a periodic one stops), a cancelled task never runs, after
 * {@code shutdown} new tasks are rejected and periodic ones stop while delayed ones stay, and
 * {@code shutdownNow} drops what is left. {@code awaitTermination} runs the scheduler's tasks due
 * now and never waits.
 */
public final class ManualTime {
  private final MutableClock clock;
  private final Object lock = new Object();
  private final PriorityQueue<Task<?>> queue = new PriorityQueue<>();
  private volatile long nanos = 1_000_000_000_000L;
  private long sequence;

  /** Time that starts at {@code clock}'s instant (the clock then moves with it). */
  public ManualTime(MutableClock clock) {
    this.clock = clock;
  }

  /** The clock that moves with this time. */
  public MutableClock clock() {
    return clock;
  }

  /** Now on the ticker, in nanoseconds (only differences mean anything). */
  public long nanoTime() {
    return nanos;
  }

  /** A new scheduler on this time (one per registry: closing a registry shuts its own down). */
  public ScheduledExecutorService newScheduler() {
    return new Scheduler();
  }

  /**
   * Runs every task due now, in due order, including those the tasks run submit due now.
   *
   * @return how many ran
   */
  public int runDue() {
    int ran = 0;
    for (Task<?> t = nextDue(nanos, null); t != null; t = nextDue(nanos, null)) {
      t.run();
      ran++;
    }
    return ran;
  }

  /** Moves time forward by {@code d}, running each task as its due time comes. */
  public void advance(Duration d) {
    long until = nanos + d.toNanos();
    runDue();
    for (Long next = nextDueTime(); next != null && next <= until; next = nextDueTime()) {
      moveTo(next);
      runDue();
    }
    moveTo(until);
    runDue();
  }

  /**
   * Runs the tasks due now, then moves time to each next task, until {@code condition} holds.
   *
   * @throws AssertionError when it does not hold within {@code within} of this time (not of the
   *     machine's: a slow machine takes longer, never fails sooner)
   */
  public void runUntil(String what, BooleanSupplier condition, Duration within) {
    long limit = nanos + within.toNanos();
    while (true) {
      runDue();
      if (condition.getAsBoolean()) {
        return;
      }
      Long next = nextDueTime();
      if (next == null || next > limit) {
        throw new AssertionError("not within " + within + " of test time: " + what);
      }
      moveTo(next);
    }
  }

  private void moveTo(long to) {
    long by = to - nanos;
    if (by > 0) {
      nanos = to;
      clock.advance(Duration.ofNanos(by));
    }
  }

  private Long nextDueTime() {
    synchronized (lock) {
      Task<?> t;
      while ((t = queue.peek()) != null && t.isCancelled()) {
        queue.poll();
      }
      return t == null ? null : t.due;
    }
  }

  /** The first task due at {@code now} (of {@code only}, when not null), taken off the queue. */
  private Task<?> nextDue(long now, Scheduler only) {
    synchronized (lock) {
      List<Task<?>> skipped = new ArrayList<>();
      Task<?> found = null;
      while (!queue.isEmpty() && queue.peek().due <= now) {
        Task<?> t = queue.poll();
        if (t.isCancelled()) {
          continue;
        }
        if (only == null || t.owner == only) {
          found = t;
          break;
        }
        skipped.add(t);
      }
      queue.addAll(skipped);
      return found;
    }
  }

  /** A task on a scheduler of this time: one-shot, or periodic with a fixed delay or rate. */
  private final class Task<V> extends FutureTask<V> implements ScheduledFuture<V> {
    final Scheduler owner;
    final long period; // 0: once; > 0: at a fixed rate; < 0: with a fixed delay
    final long seq;
    long due;

    Task(Scheduler owner, Callable<V> c, long due) {
      super(c);
      this.owner = owner;
      this.period = 0;
      this.due = due;
      this.seq = sequence++;
    }

    Task(Scheduler owner, Runnable r, long due, long period) {
      super(r, null);
      this.owner = owner;
      this.period = period;
      this.due = due;
      this.seq = sequence++;
    }

    @Override
    public void run() {
      if (period == 0) {
        super.run();
      } else if (runAndReset() && !owner.isShutdown()) {
        due = period > 0 ? due + period : nanos - period;
        synchronized (lock) {
          queue.add(this);
        }
      }
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(due - nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed o) {
      Task<?> t = (Task<?>) o;
      int c = Long.compare(due, t.due);
      return c != 0 ? c : Long.compare(seq, t.seq);
    }
  }

  /** One scheduler: its tasks share this time's queue. */
  private final class Scheduler extends AbstractExecutorService
      implements ScheduledExecutorService {
    private volatile boolean shutdown;

    private <V> Task<V> submit(Task<V> t) {
      synchronized (lock) {
        if (shutdown) {
          throw new RejectedExecutionException("shut down");
        }
        queue.add(t);
      }
      return t;
    }

    private long dueIn(long delay, TimeUnit unit) {
      return nanos + Math.max(0, unit.toNanos(delay));
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
      return schedule(Executors.callable(command), delay, unit);
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
      synchronized (lock) {
        return submit(new Task<>(this, callable, dueIn(delay, unit)));
      }
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(
        Runnable command, long initialDelay, long period, TimeUnit unit) {
      return periodic(command, initialDelay, unit, unit.toNanos(period), true);
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(
        Runnable command, long initialDelay, long delay, TimeUnit unit) {
      return periodic(command, initialDelay, unit, unit.toNanos(delay), false);
    }

    /** A periodic task, at a fixed rate or with a fixed delay of {@code nanos}. */
    private ScheduledFuture<?> periodic(
        Runnable command, long initialDelay, TimeUnit unit, long nanos, boolean fixedRate) {
      if (nanos <= 0) {
        throw new IllegalArgumentException("a period or delay must be > 0 but was " + nanos);
      }
      synchronized (lock) {
        return submit(
            new Task<>(this, command, dueIn(initialDelay, unit), fixedRate ? nanos : -nanos));
      }
    }

    @Override
    public void execute(Runnable command) {
      schedule(command, 0, TimeUnit.NANOSECONDS);
    }

    @Override
    public void shutdown() {
      synchronized (lock) {
        shutdown = true;
        queue.removeIf(t -> t.owner == this && t.period != 0);
      }
    }

    @Override
    public List<Runnable> shutdownNow() {
      List<Runnable> left = new ArrayList<>();
      synchronized (lock) {
        shutdown = true;
        queue.removeIf(
            t -> {
              if (t.owner == this) {
                left.add(t);
                return true;
              }
              return false;
            });
      }
      return left;
    }

    @Override
    public boolean isShutdown() {
      return shutdown;
    }

    @Override
    public boolean isTerminated() {
      if (!shutdown) {
        return false;
      }
      synchronized (lock) {
        return queue.stream().noneMatch(t -> t.owner == this);
      }
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
      for (Task<?> t = nextDue(nanos, this); t != null; t = nextDue(nanos, this)) {
        t.run();
      }
      return isTerminated();
    }
  }
}
