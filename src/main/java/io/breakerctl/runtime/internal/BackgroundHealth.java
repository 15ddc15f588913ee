package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.BackgroundTask;
import io.breakerctl.runtime.BreakerRegistry;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts a registry's background failures by {@link BackgroundTask} and logs each change of
 * condition once through {@code System.Logger}: a WARNING when a task starts failing (with the
 * first failure's message), an INFO when it works again (with how many attempts failed meanwhile).
 * Never a line per attempt, so a Redis or MongoDB outage does not flood a service's log. A failure
 * that degrades the node (Redis does not answer, or refuses the work: {@code StoreGuard}) is
 * counted but not logged here: the registry reports that episode once itself (degraded, with the
 * reason, then recovered).
 */
final class BackgroundHealth {
  private static final System.Logger LOG = System.getLogger(BreakerRegistry.class.getName());

  private final String node;
  private final Map<BackgroundTask, LongAdder> failures = new EnumMap<>(BackgroundTask.class);
  private final Map<BackgroundTask, AtomicBoolean> failing = new EnumMap<>(BackgroundTask.class);
  private final Map<BackgroundTask, LongAdder> streak = new EnumMap<>(BackgroundTask.class);

  BackgroundHealth(String node) {
    this.node = node;
    for (BackgroundTask t : BackgroundTask.values()) {
      failures.put(t, new LongAdder());
      failing.put(t, new AtomicBoolean());
      streak.put(t, new LongAdder());
    }
  }

  /** One failed attempt of {@code task}. */
  void failed(BackgroundTask task, Throwable cause) {
    failures.get(task).increment();
    if (unavailable(cause)) {
      return; // the outage is the registry's one warning, not one per task
    }
    streak.get(task).increment();
    if (failing.get(task).compareAndSet(false, true)) {
      LOG.log(
          System.Logger.Level.WARNING,
          "breakerctl node {0}: {1} is failing: {2} (counted in"
              + " breakerctl.registry.background.failures; logged again when it works)",
          node,
          name(task),
          message(cause));
    }
  }

  /** One attempt of {@code task} that worked. */
  void succeeded(BackgroundTask task) {
    if (failing.get(task).get() && failing.get(task).compareAndSet(true, false)) {
      LOG.log(
          System.Logger.Level.INFO,
          "breakerctl node {0}: {1} works again after {2} failed attempts",
          node,
          name(task),
          streak.get(task).sumThenReset());
    }
  }

  /** Failed attempts of {@code task} since the registry started. */
  long failures(BackgroundTask task) {
    return failures.get(task).sum();
  }

  /** Whether {@code task}'s last attempt failed. */
  boolean failing(BackgroundTask task) {
    return failing.get(task).get();
  }

  private static boolean unavailable(Throwable t) {
    for (Throwable e = t; e != null; e = e.getCause()) {
      if (e instanceof io.breakerctl.runtime.store.StoreException se) {
        // what degrades the node (StoreGuard) is reported by the registry, once per episode
        io.breakerctl.runtime.store.StoreFault f = se.fault();
        return f.hard()
            || f == io.breakerctl.runtime.store.StoreFault.TIMEOUT
            || f == io.breakerctl.runtime.store.StoreFault.UNREACHABLE;
      }
    }
    return false;
  }

  private static String name(BackgroundTask t) {
    return t.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ');
  }

  private static String message(Throwable t) {
    Throwable e = t;
    while (e.getCause() != null
        && (e instanceof java.util.concurrent.CompletionException || e.getMessage() == null)) {
      e = e.getCause();
    }
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }
}
