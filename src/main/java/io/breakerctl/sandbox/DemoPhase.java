package io.breakerctl.sandbox;

import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.BreakerEvent;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.StoreFutures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One mode's scripted run: the fleet joins and calls three healthy dependencies, the failing one
 * goes down, the breakers trip, the first half-open window passes, the dependency recovers and the
 * breakers close. Every count is taken at the loopback dependency.
 */
final class DemoPhase {
  private final DemoFleet fleet;
  private final Mode mode;
  private final Duration length;
  private final List<BreakerId> ids = new ArrayList<>();
  private final List<LoopbackDependency> dependencies = new ArrayList<>();
  private final List<DemoNode> nodes = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private final AtomicBoolean running = new AtomicBoolean(true);
  private volatile long startedAt;

  DemoPhase(DemoFleet fleet, Mode mode, Duration length) {
    this.fleet = fleet;
    this.mode = mode;
    this.length = length;
    for (String dependency : DemoFleet.DEPENDENCIES) {
      ids.add(DemoFleet.breaker(dependency, mode));
    }
  }

  FleetRow run() {
    Policy policy = fleet.policy();
    int failing = DemoFleet.DEPENDENCIES.indexOf(DemoFleet.FAILING);
    BreakerId failingId = ids.get(failing);
    try {
      List<Integer> ports = new ArrayList<>();
      for (int d = 0; d < ids.size(); d++) {
        LoopbackDependency dep = new LoopbackDependency(false);
        dependencies.add(dep);
        ports.add(dep.port());
      }
      checkNoOverride();
      for (int i = 1; i <= fleet.options().nodes(); i++) {
        nodes.add(
            new DemoNode(
                String.format(Locale.ROOT, "node-%02d", i),
                mode,
                fleet.redisUri(),
                policy,
                ids,
                ports,
                failing));
      }
      startTraffic();
      fleet.say(
          label()
              + nodes.size()
              + " nodes joined ("
              + (mode == Mode.LOCAL ? "no Redis" : "own registry and Redis connections each")
              + "), calling "
              + DemoFleet.CALLER
              + ":{"
              + String.join(",", DemoFleet.DEPENDENCIES)
              + "}"
              + (mode == Mode.LOCAL ? "" : ":" + scope()));
      DemoWaits.await(
          Duration.ofSeconds(20), "every breaker to be CLOSED with an empty window", this::settled);
      nodes.forEach(DemoNode::measure);
      startedAt = System.currentTimeMillis();
      fleet.live(this);
      String marker = mode == Mode.LOCAL ? "" : DemoWaits.lastEventId(fleet.store(), failingId);
      pauseUntil(startedAt + Math.max(1000, length.toMillis() / 5));

      LoopbackDependency down = dependencies.get(failing);
      long outage = System.currentTimeMillis();
      down.failing(true);
      nodes.forEach(n -> n.outageStarted(outage));
      fleet.say(label() + DemoFleet.FAILING + " goes down (scripted outage)");
      DemoWaits.await(
          Duration.ofSeconds(10), "every node to reject " + failingId, this::allRejected);
      long allRejected = nodes.stream().mapToLong(DemoNode::firstRejection).max().orElse(0);
      long doomed = down.failedBetween(outage, allRejected + 1);
      Long atTrip = null;
      if (mode == Mode.LOCAL) {
        fleet.say(
            label()
                + "each node trips on its own after "
                + policy.failureThreshold()
                + " failures: CLOSED -> OPEN on "
                + nodes.size()
                + " nodes");
      } else {
        BreakerEvent trip = DemoWaits.trip(fleet.store(), failingId, marker);
        atTrip = trip.failures().orElseThrow();
        fleet.say(
            label()
                + failingId
                + " CLOSED -> OPEN: "
                + atTrip
                + " failures in the shared window (threshold "
                + trip.threshold().orElseThrow()
                + "), won by "
                + trip.node());
      }
      fleet.say(
          label()
              + "every node rejects "
              + (allRejected - outage)
              + " ms after the outage began; "
              + doomed
              + " calls reached "
              + DemoFleet.FAILING
              + " after it failed");

      long windowEnd = allRejected + 1 + policy.open().toMillis() * 3 / 2;
      pauseUntil(windowEnd);
      long probes = down.reachedBetween(allRejected + 1, windowEnd);
      long degraded = nodes.stream().filter(DemoNode::wasDegraded).count();
      if (degraded > 0) {
        fleet.say(
            label()
                + degraded
                + " node(s) lost Redis for a moment (a command past its timeout on a busy"
                + " machine) and decided on their own from their last shared state meanwhile");
      }
      fleet.say(
          label()
              + "first half-open window: "
              + probes
              + (probes == 1 ? " call" : " calls")
              + " reached "
              + DemoFleet.FAILING
              + (probes == 1 ? " (the one probe)" : " (one probe per node)"));

      pauseUntil(startedAt + length.toMillis() / 2);
      down.failing(false);
      fleet.say(label() + DemoFleet.FAILING + " recovers");
      DemoWaits.await(
          Duration.ofMillis(policy.maxOpen().toMillis() + 15_000),
          failingId + " to close on every node",
          () -> nodes.stream().allMatch(n -> n.state(failing) == State.CLOSED));
      fleet.say(
          label()
              + (mode == Mode.LOCAL ? "each node probes: " : "one probe succeeded: ")
              + "HALF_OPEN -> CLOSED"
              + (mode == Mode.LOCAL ? " on every node" : " for the fleet")
              + ", traffic flows again");
      pauseUntil(startedAt + length.toMillis());
      stop();
      long admitted = nodes.stream().mapToLong(DemoNode::admitted).sum();
      long added = nodes.stream().mapToLong(DemoNode::addedNanos).sum();
      double meanMicros = admitted == 0 ? 0 : Math.round(added / 100.0 / admitted) / 10.0;
      return new FleetRow(
          mode,
          atTrip,
          doomed,
          probes,
          meanMicros,
          nodes.stream().mapToLong(DemoNode::calls).sum(),
          allRejected - outage,
          nodes.stream().filter(DemoNode::wasDegraded).count());
    } finally {
      fleet.live(null);
      stop();
      nodes.forEach(DemoNode::close);
      dependencies.forEach(LoopbackDependency::close);
    }
  }

  /** The live line of this phase: the failing breaker's states on the nodes and the counts. */
  String liveLine() {
    int failing = DemoFleet.DEPENDENCIES.indexOf(DemoFleet.FAILING);
    int closed = 0;
    int open = 0;
    int half = 0;
    for (DemoNode n : nodes) {
      switch (n.state(failing)) {
        case CLOSED -> closed++;
        case OPEN -> open++;
        case HALF_OPEN -> half++;
        default -> {
          // overrides: the demo refuses to start under one
        }
      }
    }
    LoopbackDependency down = dependencies.get(failing);
    long now = System.currentTimeMillis();
    return String.format(
        Locale.ROOT,
        "%-6s %4.1fs/%ds  %s %-4s  breakers: %2d CLOSED %2d OPEN %2d HALF_OPEN  reached: %d (%d"
            + " failed)",
        mode,
        (now - startedAt) / 1000.0,
        length.toSeconds(),
        DemoFleet.FAILING,
        down.failedBetween(now - 300, now + 1) > 0 ? "DOWN" : "up",
        closed,
        open,
        half,
        down.reachedBetween(0, Long.MAX_VALUE),
        down.failedBetween(0, Long.MAX_VALUE));
  }

  private String label() {
    return mode + ": ";
  }

  private String scope() {
    return mode.name().toLowerCase(Locale.ROOT);
  }

  private void startTraffic() {
    long pause = DemoFleet.ROUND_PAUSE_MILLIS;
    for (int i = 0; i < nodes.size(); i++) {
      DemoNode n = nodes.get(i);
      long offset = i * pause / nodes.size();
      Duration bound = length.plus(Duration.ofSeconds(60));
      Thread t =
          new Thread(() -> n.run(running, pause, offset, bound), "demo-" + mode + "-" + n.id);
      t.setDaemon(true);
      t.start();
      threads.add(t);
    }
  }

  private void stop() {
    running.set(false);
    for (Thread t : threads) {
      try {
        t.join(2_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    threads.clear();
  }

  private void checkNoOverride() {
    if (mode == Mode.LOCAL) {
      return;
    }
    for (BreakerId id : ids) {
      BreakerSnapshot s = StoreFutures.await(fleet.store().snapshot(id, 0));
      if (s.effectiveState().isOverride()) {
        throw new IllegalStateException(
            id
                + " is "
                + s.effectiveState()
                + " by an operator override: the demo needs it free (breakerctl force clear "
                + id
                + " --reason ...)");
      }
    }
  }

  private boolean settled() {
    for (DemoNode n : nodes) {
      for (int d = 0; d < ids.size(); d++) {
        if (n.state(d) != State.CLOSED) {
          return false;
        }
      }
    }
    if (mode == Mode.LOCAL) {
      return true;
    }
    for (BreakerId id : ids) {
      if (StoreFutures.await(fleet.store().state(id)).window().failures() > 0) {
        return false;
      }
    }
    return true;
  }

  private boolean allRejected() {
    return nodes.stream().allMatch(n -> n.firstRejection() > 0);
  }

  private static void pauseUntil(long wallMillis) {
    DemoFleet.pause(wallMillis - System.currentTimeMillis());
  }
}
