package io.breakerctl.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.StoreFailureMode;
import io.breakerctl.runtime.model.TransitionCause;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.BreakerEvent;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.sandbox.LoopbackDependency;
import io.breakerctl.testing.ChildJvm;
import io.breakerctl.testing.Promises;
import io.breakerctl.testing.RedisExtension;
import io.breakerctl.testing.RedisServerProcess;
import io.breakerctl.testing.SideBySide;
import io.breakerctl.testing.StartSignal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A 150 ms Redis stall ({@code CLIENT PAUSE}) never lets the fleet through: 20 nodes in 4 JVMs (5
 * here, 5 in each of 3 children) with the default 50 ms command timeout call a real loopback
 * dependency that keeps failing. A stall as the open window ends lets at most {@code
 * halfOpenPermits} (1) calls reach it in that half-open window; a stall in the middle of the window
 * lets none through. SHARED and HYBRID, LOCAL_ONLY and LAST_KNOWN; counted at the dependency.
 *
 * <p>The SHARED and HYBRID scenarios run as two lanes side by side, each lane on its own
 * redis-server (a stall pauses only its lane's Redis) with its own breaker ids and dependencies;
 * the children run both lanes' nodes (10 per child JVM at once). Within a lane the scenarios run
 * one after the other, each judged exactly as when all eight ran in turn.
 */
@DisplayName("A Redis stall at the window end or mid-window lets no extra call through")
class RedisStallIT {

  /** Closes the lanes' redis-servers after the test. */
  @RegisterExtension static final RedisExtension redis = RedisExtension.manual();

  private static final int CHILDREN = 3;
  private static final int PER_JVM = 5;
  private static final int THRESHOLD = 5;
  private static final long OPEN_MILLIS = 1500;
  private static final long PAUSE_MILLIS = 2;

  /** Start to stop of one scenario, and from one scenario's start to the next one's. */
  private static final long RUN_MILLIS = 4700;

  private static final long SLOT_MILLIS = 7000;

  /**
   * Which scenarios run ({@code stall.only}: a part of the scenario's name such as {@code
   * shared-local-only-window-end}; default all), each {@link Promises#ROUNDS} times: {@code
   * scripts/stress} turns these up.
   */
  private static final String ONLY = System.getProperty("stall.only", "");

  enum Moment {
    WINDOW_END,
    MID_WINDOW
  }

  record Scenario(Mode mode, StoreFailureMode failureMode, Moment moment, BreakerId id) {}

  @Test
  @DisplayName("20 nodes in 4 JVMs: SHARED and HYBRID x LOCAL_ONLY and LAST_KNOWN x end and middle")
  void stalls() throws Exception {
    List<Scenario> scenarios = new ArrayList<>();
    for (int round = 0; round < Promises.ROUNDS; round++) {
      for (Mode mode : List.of(Mode.HYBRID, Mode.SHARED)) {
        for (StoreFailureMode f :
            List.of(StoreFailureMode.LOCAL_ONLY, StoreFailureMode.LAST_KNOWN)) {
          for (Moment m : Moment.values()) {
            String name =
                (mode.name() + "-" + f.name() + "-" + m.name()).toLowerCase().replace('_', '-');
            if (name.contains(ONLY)) {
              scenarios.add(
                  new Scenario(mode, f, m, BreakerId.parse("stall:" + name + "." + round)));
            }
          }
        }
      }
    }
    // one lane per mode, side by side, each on its own redis-server: a lane's stalls pause only its
    // own Redis, and within a lane the scenarios run one after the other as before
    java.util.Map<Mode, List<Integer>> lanes = new java.util.LinkedHashMap<>();
    for (int i = 0; i < scenarios.size(); i++) {
      lanes.computeIfAbsent(scenarios.get(i).mode(), m -> new ArrayList<>()).add(i);
    }
    java.util.Map<Mode, RedisServerProcess> servers = new java.util.HashMap<>();
    for (Mode mode : lanes.keySet()) {
      servers.put(mode, redis.manage(RedisServerProcess.start(redis.binary())));
    }
    String firstUri = servers.get(scenarios.get(0).mode()).uri();
    LoopbackFleet.prewarm(firstUri);
    java.nio.file.Path baseFile = StartSignal.newFile("stall-schedule");
    // one dependency per scenario: a JVM that falls behind the schedule on a starved machine runs
    // a scenario late, and its calls must never count against the next scenario's window
    List<LoopbackDependency> dependencies = new ArrayList<>();
    try (AutoCloseable closeAll = () -> dependencies.forEach(LoopbackDependency::close)) {
      for (int i = 0; i < scenarios.size(); i++) {
        dependencies.add(new LoopbackDependency());
      }
      List<String> args = new ArrayList<>();
      args.addAll(
          List.of(
              firstUri,
              Integer.toString(dependencies.get(0).port()),
              Integer.toString(PER_JVM),
              "",
              Long.toString(PAUSE_MILLIS),
              Integer.toString(THRESHOLD),
              Long.toString(OPEN_MILLIS),
              "@" + baseFile));
      for (int i = 0; i < scenarios.size(); i++) {
        Scenario s = scenarios.get(i);
        long start = slot(lanes, i) * SLOT_MILLIS; // offsets from the base the children wait for
        args.add(
            s.id()
                + ","
                + s.mode()
                + ","
                + s.failureMode()
                + ","
                + start
                + ","
                + (start + RUN_MILLIS)
                + ",,"
                + dependencies.get(i).port()
                + ","
                + servers.get(s.mode()).uri());
      }
      List<ChildJvm> children = new ArrayList<>();
      for (int c = 0; c < CHILDREN; c++) {
        List<String> a = new ArrayList<>(args);
        a.set(3, "child" + c + "-");
        children.add(
            redis.manage(ChildJvm.start(LoopbackFleetMain.class, a.toArray(String[]::new))));
      }
      // the schedule starts once every child JVM is up (bounded), never on a guess of how long
      // a JVM takes to start on this machine
      long upBy = System.nanoTime() + Duration.ofMinutes(3).toNanos();
      for (ChildJvm c : children) {
        while (!c.stdout().contains("UP")) {
          assertThat(c.isAlive()).as("child alive, stderr %s", c.stderr()).isTrue();
          assertThat(System.nanoTime()).as("every child up within 3 min").isLessThan(upBy);
          Fleet.sleep(20);
        }
      }
      long first = System.currentTimeMillis() + 3000;
      StartSignal.write(baseFile, first);
      Run[] runs = new Run[scenarios.size()];
      SideBySide.each(
          lanes.keySet(),
          mode -> {
            RedisServerProcess server = servers.get(mode);
            try (RedisFleetStore store =
                RedisFleetStore.connect(StoreConfig.builder().uri(server.uri()).build())) {
              for (int i : lanes.get(mode)) {
                long start = first + slot(lanes, i) * SLOT_MILLIS;
                runs[i] = run(scenarios.get(i), server, start, dependencies.get(i), store);
              }
            }
          });
      for (ChildJvm c : children) {
        assertThat(c.waitFor(Duration.ofSeconds(120))).as("child stderr %s", c.stderr()).isZero();
      }
      Promises promises = new Promises();
      for (int i = 0; i < scenarios.size(); i++) {
        Run r = runs[i];
        List<Node> nodes = new ArrayList<>(r.parent());
        for (int c = 0; c < children.size(); c++) {
          nodes.addAll(Node.parse("child" + c + "-", r.scenario().id(), children.get(c).stdout()));
        }
        String line = r.judge(nodes, dependencies.get(i));
        System.out.println(line);
        String name = r.scenario().id().dependency().replaceAll("\\.\\d+$", "");
        promises.verdict("stall-" + name, line.endsWith(" ok"), line);
      }
      promises.assertHeld();
    }
  }

  /**
   * One admitted call: when its decision began and when it returned ({@code at}), why ({@code
   * AdmissionReason}) and under which lease ("" for none).
   */
  record Admission(long began, long at, String reason, String lease) {
    /** A probe under a lease Redis granted (the runtime names them {@code prefix-counter}). */
    boolean fleetProbe() {
      return reason.equals("PROBE") && lease.contains("-");
    }

    /** A degraded node's own probe (the local machine's lease). */
    boolean localProbe() {
      return reason.equals("PROBE") && !lease.contains("-");
    }
  }

  /**
   * One node's log of a scenario: its admissions, its first rejection (0 for none: it never learned
   * that the breaker was not closed) and its degraded periods ({from, to}, to 0 while degraded at
   * the end).
   */
  record Node(String name, List<Admission> admissions, long firstRejection, List<long[]> degraded) {

    /**
     * The start of the degraded period that overlaps the decision {@code a} (from its beginning to
     * its return), or -1: a node decides from the state it is in as the decision begins, and the
     * RECOVERED that ends a period may come before the decision returns.
     */
    long degradedSince(Admission a) {
      for (long[] d : degraded) {
        if (d[0] <= a.at() && (d[1] == 0 || a.began() <= d[1])) {
          return d[0];
        }
      }
      return -1;
    }

    static List<Node> of(String prefix, LoopbackFleet fleet) {
      return build(
          prefix,
          List.copyOf(fleet.admissions),
          fleet.firstRejections(),
          List.copyOf(fleet.degradations));
    }

    /** The nodes of one child JVM, from the lines {@link LoopbackFleetMain} printed. */
    static List<Node> parse(String prefix, BreakerId id, List<String> stdout) {
      List<String> admissions = field(stdout, "admissions " + id + " ");
      List<String> degraded = field(stdout, "degraded " + id + " ");
      List<String> rejections = field(stdout, "firstRejections " + id + " ");
      long[] first = rejections.stream().mapToLong(Long::parseLong).toArray();
      return build(prefix, admissions, first, degraded);
    }

    private static List<String> field(List<String> stdout, String head) {
      for (String l : stdout) {
        if (l.startsWith(head)) {
          String rest = l.substring(head.length()).trim();
          return rest.isEmpty() ? List.of() : List.of(rest.split(","));
        }
      }
      throw new AssertionError("a child printed no '" + head.trim() + "' line: " + stdout);
    }

    private static List<Node> build(
        String prefix, List<String> admissions, long[] firstRejection, List<String> degraded) {
      List<Node> nodes = new ArrayList<>();
      for (int n = 0; n < firstRejection.length; n++) {
        List<Admission> mine = new ArrayList<>();
        for (String a : admissions) {
          String[] p = a.split("[@:]");
          if (Integer.parseInt(p[0]) == n) {
            String[] when = p[1].split("/");
            mine.add(
                new Admission(
                    Long.parseLong(when[0]),
                    Long.parseLong(when[1]),
                    p[2],
                    p.length > 3 ? p[3] : ""));
          }
        }
        List<long[]> periods = new ArrayList<>();
        for (String d : degraded) {
          String[] p = d.split("[@-]");
          if (Integer.parseInt(p[0]) == n) {
            periods.add(new long[] {Long.parseLong(p[1]), Long.parseLong(p[2])});
          }
        }
        nodes.add(new Node(prefix + n, mine, firstRejection[n], periods));
      }
      return nodes;
    }
  }

  /** What the parent saw of one scenario: the trip, the stall, and its own nodes' logs. */
  record Run(Scenario scenario, BreakerEvent trip, long stallAt, List<Node> parent) {

    /**
     * Judges every admission of every node (all four JVMs) from the trip to the end of the reopened
     * window (WINDOW_END) or of the window (MID_WINDOW), by the rules of degraded decisions, so
     * that no verdict depends on how fast the machine is:
     *
     * <ul>
     *   <li>a probe under a lease Redis granted: at most {@code halfOpenPermits} (1) in that time
     *       at a window's end, none in the middle of a window;
     *   <li>a degraded node's own probe: only after it was degraded for a whole open window (its
     *       local machine is seeded with a fresh open window when it degrades);
     *   <li>any other admission (CLOSED, LAST_KNOWN): only by a node that had not yet rejected,
     *       i.e. never learned that the breaker is open (a node that did must not admit again until
     *       a probe closes it, and the dependency keeps failing);
     *   <li>nothing reached the scenario's own dependency that no node admitted.
     * </ul>
     *
     * A node that learns the trip late on a starved machine is not a violation: it decides per
     * process until it knows, which is what the design promises.
     */
    String judge(List<Node> nodes, LoopbackDependency dependency) {
      long tripAt = trip.atMillis();
      long openUntil = Long.parseLong(trip.field("until"));
      boolean end = scenario.moment() == Moment.WINDOW_END;
      long to = end ? openUntil + 2 * OPEN_MILLIS - 200 : openUntil - 20;
      List<String> bad = new ArrayList<>();
      List<String> fleetProbes = new ArrayList<>();
      long admitted = 0;
      for (Node n : nodes) {
        admitted += n.admissions().size();
        for (Admission a : n.admissions()) {
          if (a.at() <= tripAt || a.at() >= to) {
            continue;
          }
          String where = n.name() + "@" + a.at() + ":" + a.reason() + ":" + a.lease();
          if (a.fleetProbe()) {
            fleetProbes.add(where);
          } else if (a.localProbe()) {
            long since = n.degradedSince(a);
            if (since < 0 || a.at() - since < OPEN_MILLIS - SEED_SLACK_MILLIS) {
              bad.add(
                  where
                      + " (a local probe "
                      + (since < 0 ? "while not degraded" : (a.at() - since) + " ms into it")
                      + ")");
            }
          } else if (n.firstRejection() != 0 && a.at() > n.firstRejection()) {
            bad.add(where + " (after its first rejection at " + n.firstRejection() + ")");
          }
        }
      }
      int allowed = end ? 1 : 0;
      if (fleetProbes.size() > allowed) {
        bad.add(fleetProbes.size() + " fleet probes (allowed " + allowed + "): " + fleetProbes);
      }
      long reached = dependency.times().size();
      if (reached > admitted) {
        bad.add(reached + " calls reached the dependency, " + admitted + " were admitted");
      }
      return String.format(
          "stall %-6s %-10s %-10s stall at %+d ms of the window end: fleet probes %s, %d calls"
              + " reached the dependency in [trip, %+d ms] %s",
          scenario.mode(),
          scenario.failureMode(),
          scenario.moment(),
          stallAt - openUntil,
          fleetProbes,
          dependency.reachedBetween(tripAt, to),
          to - openUntil,
          bad.isEmpty() ? "ok" : "FAILED (trip at " + tripAt + ": " + bad + ")");
    }
  }

  /**
   * How much earlier than one open window after its degradation began a degraded node's own probe
   * may come. The DEGRADED event carries the time the degradation began, and every seed of the
   * local machine for it comes at or after that time (a CI run once saw the event handed to the
   * listener 300 ms after a seed, behind a warning logged on a loaded machine, when the listener
   * took its own clock), so the slack only covers millisecond rounding.
   */
  private static final long SEED_SLACK_MILLIS = 5;

  /** Runs one scenario's parent share and the stall. */
  private static Run run(
      Scenario s,
      RedisServerProcess server,
      long start,
      LoopbackDependency dependency,
      RedisFleetStore store) {
    Fleet.sleep(start - 2500 - System.currentTimeMillis());
    LoopbackFleet here =
        new LoopbackFleet(
            server.uri(),
            s.id(),
            PER_JVM,
            "parent-",
            dependency.port(),
            new LoopbackFleet.Options(
                s.mode(),
                LoopbackFleetMain.policy(THRESHOLD, OPEN_MILLIS, s.failureMode()),
                null,
                null,
                null));
    BreakerEvent trip;
    long stallAt;
    try (here) {
      Fleet.sleep(start - System.currentTimeMillis());
      here.start(PAUSE_MILLIS);
      trip = awaitTrip(store, s.id(), start + 30_000);
      long openUntil = Long.parseLong(trip.field("until"));
      stallAt =
          s.moment() == Moment.WINDOW_END ? openUntil - 30 : trip.atMillis() + OPEN_MILLIS / 2 - 75;
      Fleet.sleep(stallAt - System.currentTimeMillis());
      server.pause(Duration.ofMillis(150));
      Fleet.sleep(start + RUN_MILLIS - System.currentTimeMillis());
    }
    return new Run(s, trip, stallAt, Node.of("parent-", here));
  }

  /** Scenario {@code i}'s place in its lane: its slot of the schedule. */
  private static int slot(java.util.Map<Mode, List<Integer>> lanes, int i) {
    for (List<Integer> lane : lanes.values()) {
      if (lane.contains(i)) {
        return lane.indexOf(i);
      }
    }
    throw new IllegalArgumentException("scenario " + i + " in no lane");
  }

  private static BreakerEvent awaitTrip(RedisFleetStore store, BreakerId id, long deadline) {
    while (System.currentTimeMillis() < deadline) {
      List<BreakerEvent> events = StoreFutures.await(store.eventsAfter(id, "", 10));
      for (BreakerEvent e : events) {
        if (e.cause() == TransitionCause.FAILURE_THRESHOLD) {
          return e;
        }
      }
      Fleet.sleep(5);
    }
    throw new AssertionError("no trip of " + id + " by the deadline");
  }
}
