package io.breakerctl.testing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs independent scenarios of one test at the same time, each on its own thread (and, as the
 * scenario arranges, its own breaker id, child JVMs or Redis server), and waits for every one of
 * them: a scenario that fails never cuts another short. Then fails with every scenario's failure
 * (the first as the cause, the others suppressed, each named), or returns when all of them passed.
 * Each scenario asserts exactly what it asserted when it ran alone; only the wall time is shared.
 */
public final class SideBySide {
  private SideBySide() {}

  /** One scenario: its assertions throw. */
  @FunctionalInterface
  public interface Scenario {
    void run() throws Exception;
  }

  /** Runs every scenario of {@code scenarios} (name to body) at once and waits for all of them. */
  public static void run(Map<String, Scenario> scenarios) throws InterruptedException {
    start(scenarios).await();
  }

  /**
   * Scenarios started together whose verdicts a test collects later: a class can start the
   * scenarios of all its tests at once (in {@code @BeforeAll}) and have each test {@link #await}
   * only its own, so every test keeps its name, its scenarios and its assertions while the class
   * pays the wall time of its longest test instead of the sum.
   */
  public static final class Running {
    private final Map<String, Throwable> failures = new LinkedHashMap<>();
    private final List<Thread> threads = new ArrayList<>();

    private Running() {}

    /**
     * Waits for every scenario; then fails with every scenario's failure (the first as the cause,
     * the others suppressed, each named), or returns when all of them passed.
     */
    public void await() throws InterruptedException {
      for (Thread t : threads) {
        t.join(); // every scenario bounds its own waits
      }
      synchronized (failures) {
        if (failures.isEmpty()) {
          return;
        }
        AssertionError all = null;
        for (Map.Entry<String, Throwable> f : failures.entrySet()) {
          AssertionError named = new AssertionError(f.getKey() + ": " + f.getValue(), f.getValue());
          if (all == null) {
            all = named;
          } else {
            all.addSuppressed(named);
          }
        }
        throw all;
      }
    }
  }

  /** Starts every scenario of {@code scenarios} (name to body) at once; see {@link Running}. */
  public static Running start(Map<String, Scenario> scenarios) {
    Running running = new Running();
    Map<String, Throwable> failures = running.failures;
    List<Thread> threads = running.threads;
    for (Map.Entry<String, Scenario> s : scenarios.entrySet()) {
      Thread t =
          new Thread(
              () -> {
                try {
                  s.getValue().run();
                } catch (Throwable e) {
                  synchronized (failures) {
                    failures.put(s.getKey(), e);
                  }
                }
              },
              "scenario-" + s.getKey());
      t.setDaemon(true);
      t.start();
      threads.add(t);
    }
    return running;
  }

  /** One scenario per item, named by the item. */
  @FunctionalInterface
  public interface Body<T> {
    void run(T item) throws Exception;
  }

  /** Runs {@code body} for every one of {@code items} at once (see {@link #run(Map)}). */
  public static <T> void each(Iterable<T> items, Body<T> body) throws InterruptedException {
    startEach(items, body).await();
  }

  /** Starts {@code body} for every one of {@code items} at once (see {@link Running}). */
  public static <T> Running startEach(Iterable<T> items, Body<T> body) {
    Map<String, Scenario> scenarios = new LinkedHashMap<>();
    for (T item : items) {
      scenarios.put(String.valueOf(item), () -> body.run(item));
    }
    return start(scenarios);
  }
}
