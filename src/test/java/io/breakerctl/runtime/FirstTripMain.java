package io.breakerctl.runtime;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.StoreFailureMode;
import io.breakerctl.testing.StartSignal;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * Child process of {@link FirstTripIT} and the propagation benchmark's first-trip row: a fresh JVM
 * that builds {@code n} HYBRID nodes (a {@link LoopbackFleet}), prints {@code READY}, calls the
 * loopback dependency every {@code pauseMillis} (each node starting at a random point of the first
 * pause, as a service's traffic is spread) from {@code startAt} to {@code stopAt} (wall clock)
 * while a watcher polls every node's view every millisecond, then prints {@code openSeen t1,t2,...}
 * (when each node's view first showed OPEN, wall-clock ms, 0 for never) and {@code firstRejections
 * t1,t2,...}. With {@code pauseMillis} 0 the nodes do not call at all (only the view is watched).
 *
 * <p>Args: redisUri dependencyPort breakerId n nodePrefix pauseMillis startAt durationMillis
 * [openMillis, default 30000]; {@code startAt} is wall-clock ms, or {@code @FILE}: wait (at most 60
 * s) until FILE exists and read the start time from it, so a parent can start its children together
 * once all are ready.
 */
public final class FirstTripMain {
  private FirstTripMain() {}

  public static void main(String[] args) {
    BreakerId id = BreakerId.parse(args[2]);
    int n = Integer.parseInt(args[3]);
    long pause = Long.parseLong(args[5]);
    long duration = Long.parseLong(args[7]);
    LoopbackFleet fleet =
        new LoopbackFleet(
            args[0],
            id,
            n,
            args[4],
            Integer.parseInt(args[1]),
            new LoopbackFleet.Options(
                Mode.HYBRID,
                LoopbackFleetMain.policy(
                    5,
                    args.length > 8 ? Long.parseLong(args[8]) : 30_000,
                    StoreFailureMode.LOCAL_ONLY),
                null,
                null,
                null));
    long[] openSeen = new long[n];
    // how and when each node learned the trip; the listener runs on the node's message path, so it
    // only stores (no string building: a JVM's first string concatenation links a call site, ms of
    // work the measured path would pay)
    CircuitEvent.Source[] how = new CircuitEvent.Source[n];
    long[] learnedAt = new long[n];
    for (int i = 0; i < n; i++) {
      int node = i;
      fleet
          .breakers
          .get(i)
          .onEvent(
              e -> {
                if (e.type() == CircuitEvent.Type.TRANSITION
                    && e.to() == State.OPEN
                    && how[node] == null) {
                  learnedAt[node] = System.currentTimeMillis();
                  how[node] = e.source();
                }
              });
    }
    System.out.println("READY");
    long startAt = StartSignal.await(args[6], java.time.Duration.ofSeconds(60));
    long stopAt = startAt + duration;
    // the watcher and the nodes' threads start now and wait for startAt, so nothing they run is
    // linked or loaded when the measured scenario starts
    Thread watcher =
        new Thread(
            () -> {
              Fleet.sleep(startAt - System.currentTimeMillis());
              while (System.currentTimeMillis() < stopAt) {
                long now = System.currentTimeMillis();
                for (int i = 0; i < n; i++) {
                  if (openSeen[i] == 0 && fleet.breakers.get(i).view().state() == State.OPEN) {
                    openSeen[i] = now;
                  }
                }
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
              }
            },
            "open-watcher");
    watcher.setDaemon(true);
    watcher.start();
    if (pause > 0) {
      fleet.start(pause, true, startAt);
    }
    Fleet.sleep(stopAt - System.currentTimeMillis());
    try {
      watcher.join(1000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    fleet.close();
    System.out.println("openSeen " + join(openSeen));
    System.out.println("firstRejections " + join(fleet.firstRejections()));
    StringBuilder learned = new StringBuilder("learnedBy ");
    for (int i = 0; i < n; i++) {
      learned.append(i == 0 ? "" : ",").append(how[i]).append('@').append(learnedAt[i]);
    }
    System.out.println(learned);
  }

  private static String join(long[] values) {
    return Arrays.stream(values).mapToObj(Long::toString).collect(Collectors.joining(","));
  }
}
