package io.breakerctl.runtime;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.StoreFailureMode;
import io.breakerctl.testing.StartSignal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Child process of the degraded-decision tests: runs {@code n} nodes of a {@link LoopbackFleet} for
 * each scenario, each scenario on its own thread at its own times (a test's schedule may put them
 * one after the other or side by side). A scenario is {@code id,mode,storeFailureMode,
 * startAtMillis,stopAtMillis[,lastKnownForMillis[,dependencyPort[,redisUri]]]} (an empty
 * lastKnownFor or dependencyPort is the default; a scenario's own dependency port, or Redis,
 * replaces the one of the arguments); the nodes are built 2.5 s before the start (then {@code READY
 * id} is printed), call from {@code startAt} (wall clock) every {@code pauseMillis} until {@code
 * stopAt}, and print {@code firstRejections id t1,t2,...}. A scenario that throws makes the child
 * exit 1 once every scenario ended.
 *
 * <p>A child that falls behind the schedule (a starved machine: building 5 registries can take
 * longer than the lead it has) still runs each scenario, late. Its calls may then overlap the next
 * scenario's time, which is why each scenario of a test should have its own dependency: a call is
 * counted against the breaker that admitted it, never against a neighbour's window.
 *
 * <p>Args: redisUri dependencyPort n nodePrefix pauseMillis threshold openMillis [@baseFile]
 * scenario... (with {@code @baseFile}, scenario times are offsets from the base: {@link
 * #awaitBase}).
 */
public final class LoopbackFleetMain {
  private LoopbackFleetMain() {}

  public static void main(String[] args) {
    String uri = args[0];
    int port = Integer.parseInt(args[1]);
    int n = Integer.parseInt(args[2]);
    String prefix = args[3];
    long pause = Long.parseLong(args[4]);
    int threshold = Integer.parseInt(args[5]);
    long openMillis = Long.parseLong(args[6]);
    int first = 7;
    long base = 0;
    if (args.length > 7 && args[7].startsWith("@")) {
      base = awaitBase(uri, java.nio.file.Path.of(args[7].substring(1)));
      first = 8;
    }
    // each scenario on its own thread at its own time: scenarios a test runs side by side (each on
    // its own Redis, field 8) run side by side here too, and a late one never delays the next
    List<Thread> runs = new ArrayList<>();
    List<Throwable> failed = java.util.Collections.synchronizedList(new ArrayList<>());
    for (String scenario : Arrays.copyOfRange(args, first, args.length)) {
      long at = base;
      Thread t =
          new Thread(
              () -> {
                try {
                  runScenario(
                      scenario.split(","), at, uri, port, n, prefix, pause, threshold, openMillis);
                } catch (Throwable e) {
                  e.printStackTrace();
                  failed.add(e);
                }
              },
              "scenario " + scenario);
      t.start();
      runs.add(t);
    }
    for (Thread t : runs) {
      try {
        t.join();
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    }
    if (!failed.isEmpty()) {
      System.exit(1); // as an exception out of main would: the test sees the stack traces
    }
    System.out.println("DONE");
  }

  /** Runs one scenario (its fields {@code s}, times offsets from {@code base}) and prints it. */
  private static void runScenario(
      String[] s,
      long base,
      String uri,
      int port,
      int n,
      String prefix,
      long pause,
      int threshold,
      long openMillis) {
    s[3] = Long.toString(base + Long.parseLong(s[3]));
    s[4] = Long.toString(base + Long.parseLong(s[4]));
    BreakerId id = BreakerId.parse(s[0]);
    // built shortly before the start, so a Redis restarted between scenarios is up again
    Fleet.sleep(Long.parseLong(s[3]) - 2500 - System.currentTimeMillis());
    Policy policy = policy(threshold, openMillis, StoreFailureMode.valueOf(s[2]));
    LoopbackFleet fleet =
        new LoopbackFleet(
            s.length > 7 && !s[7].isEmpty() ? s[7] : uri,
            id,
            n,
            prefix,
            s.length > 6 && !s[6].isEmpty() ? Integer.parseInt(s[6]) : port,
            new LoopbackFleet.Options(
                Mode.valueOf(s[1]),
                policy,
                null,
                null,
                null,
                s.length > 5 && !s[5].isEmpty() ? Duration.ofMillis(Long.parseLong(s[5])) : null));
    System.out.println("READY " + id);
    Fleet.sleep(Long.parseLong(s[3]) - System.currentTimeMillis());
    fleet.start(pause);
    Fleet.sleep(Long.parseLong(s[4]) - System.currentTimeMillis());
    fleet.close();
    printAdmissions(id, fleet);
    System.out.println(
        "firstRejections "
            + id
            + " "
            + Arrays.stream(fleet.firstRejections())
                .mapToObj(Long::toString)
                .collect(Collectors.joining(",")));
  }

  /**
   * The schedule's base time, for a test that starts its children first: this JVM warms up (one
   * registry built and closed), prints {@code UP}, and waits (at most 5 min) for the test to write
   * the base (wall clock ms) to {@code file}; scenario times are then offsets from it. A child that
   * starts slowly on a starved machine so joins the schedule instead of running it late.
   */
  static long awaitBase(String uri, java.nio.file.Path file) {
    LoopbackFleet.prewarm(uri);
    System.out.println("UP");
    return StartSignal.await("@" + file, Duration.ofMinutes(5));
  }

  /**
   * Prints a fleet's admissions ({@code node@began/returned:reason[:lease]}, wall clock ms) and its
   * nodes' degraded periods ({@code node@from-to}), which the tests judge every admission by.
   */
  static void printAdmissions(BreakerId id, LoopbackFleet fleet) {
    System.out.println("admissions " + id + " " + String.join(",", fleet.admissions));
    System.out.println("degraded " + id + " " + String.join(",", fleet.degradations));
  }

  /** The fleet tests' policy: a trip at {@code threshold}, one probe, open {@code openMillis}. */
  static Policy policy(int threshold, long openMillis, StoreFailureMode mode) {
    return Policy.builder()
        .failureThreshold(threshold)
        .open(Duration.ofMillis(openMillis))
        .maxOpen(Duration.ofMillis(openMillis * 8))
        .halfOpenPermits(1)
        .storeFailureMode(mode)
        .build();
  }
}
