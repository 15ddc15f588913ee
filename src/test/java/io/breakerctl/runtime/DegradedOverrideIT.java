package io.breakerctl.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.StoreFailureMode;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.OverrideRequest;
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
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An operator's override is the last word until it expires, also when Redis is gone: 3 HYBRID nodes
 * in 2 JVMs (2 here, 1 in a child) see {@code force ... --for}, then redis-server is killed.
 * FORCED_OPEN: no call reaches the failing loopback dependency until the expiry, in every
 * storeFailureMode (LAST_KNOWN with a 500 ms {@code lastKnownFor}, so the override outlives it);
 * then the nodes behave per process and calls reach it again. FORCED_CLOSED: the nodes keep
 * admitting through a dependency outage.
 *
 * <p>The four scenarios run side by side, started 4 s apart, each with its own redis-server (killed
 * in that scenario only), breaker id and loopback dependency; the child runs its node of every
 * scenario on its own thread. Each is judged exactly as when they ran one after the other.
 */
@DisplayName("A fleet-wide override survives the loss of Redis")
class DegradedOverrideIT {

  /** Closes every scenario's redis-server after the test. */
  @RegisterExtension static final RedisExtension redis = RedisExtension.manual();

  private static final long RUN_MILLIS = 8500;

  /**
   * From one scenario's start to the next one's: they overlap, but each one's nodes are built, see
   * the override and lose their Redis while the others' nodes only call (a 2-core machine never
   * builds 12 registries and confirms 4 overrides at the same moment).
   */
  private static final long STAGGER_MILLIS = 4000;

  /**
   * The scenarios of one round (FORCED_OPEN in each storeFailureMode, FORCED_CLOSED): side by side.
   */
  private static final int LANES = StoreFailureMode.values().length + 1;

  private static final long OVERRIDE_MILLIS = 6000;

  record Scenario(OverrideKind kind, StoreFailureMode failureMode, BreakerId id) {}

  @Test
  @DisplayName("FORCED_OPEN in LOCAL_ONLY, LAST_KNOWN, ALLOW_ALL; FORCED_CLOSED through an outage")
  void overridesOutliveRedis() throws Exception {
    List<Scenario> scenarios = new ArrayList<>();
    for (int round = 0; round < Promises.ROUNDS; round++) {
      for (StoreFailureMode f : StoreFailureMode.values()) {
        scenarios.add(
            new Scenario(
                OverrideKind.FORCED_OPEN,
                f,
                BreakerId.parse(
                    "override:open-" + f.name().toLowerCase().replace('_', '-') + "." + round)));
      }
      scenarios.add(
          new Scenario(
              OverrideKind.FORCED_CLOSED,
              StoreFailureMode.LOCAL_ONLY,
              BreakerId.parse("override:closed-local-only." + round)));
    }
    // the scenarios run side by side, 4 s apart, each in its own lane with its own redis-server
    // that it kills (one's outage is never another's); a lane's next round (stress.rounds) starts
    // 16 s after its previous one, on its restarted Redis
    List<RedisServerProcess> servers = new ArrayList<>();
    for (int lane = 0; lane < LANES; lane++) {
      servers.add(redis.manage(RedisServerProcess.start(redis.binary())));
    }
    LoopbackFleet.prewarm(servers.get(0).uri());
    java.nio.file.Path baseFile = StartSignal.newFile("override-schedule");
    // one dependency per scenario: a call is counted against the breaker that admitted it, even
    // when a JVM runs late on a starved machine
    List<LoopbackDependency> dependencies = new ArrayList<>();
    try (AutoCloseable closeAll = () -> dependencies.forEach(LoopbackDependency::close)) {
      for (int i = 0; i < scenarios.size(); i++) {
        dependencies.add(new LoopbackDependency());
      }
      List<String> args =
          new ArrayList<>(
              List.of(
                  servers.get(0).uri(),
                  Integer.toString(dependencies.get(0).port()),
                  "1",
                  "child-",
                  "5",
                  "5",
                  "2000",
                  "@" + baseFile));
      for (int i = 0; i < scenarios.size(); i++) {
        Scenario s = scenarios.get(i);
        long start = i * STAGGER_MILLIS; // offsets from the base the child waits for
        args.add(
            s.id()
                + ",HYBRID,"
                + s.failureMode()
                + ","
                + start
                + ","
                + (start + RUN_MILLIS)
                + ",500,"
                + dependencies.get(i).port()
                + ","
                + servers.get(i % LANES).uri());
      }
      ChildJvm child =
          redis.manage(ChildJvm.start(LoopbackFleetMain.class, args.toArray(String[]::new)));
      long upBy = System.nanoTime() + Duration.ofMinutes(3).toNanos();
      while (!child.stdout().contains("UP")) {
        assertThat(child.isAlive()).as("child alive, stderr %s", child.stderr()).isTrue();
        assertThat(System.nanoTime()).as("the child up within 3 min").isLessThan(upBy);
        Fleet.sleep(20);
      }
      long first = System.currentTimeMillis() + 3000;
      StartSignal.write(baseFile, first);
      List<List<String>> failures = new ArrayList<>();
      for (int i = 0; i < scenarios.size(); i++) {
        failures.add(new ArrayList<>());
      }
      java.util.Map<String, Long> untils = new java.util.concurrent.ConcurrentHashMap<>();
      SideBySide.each(
          java.util.stream.IntStream.range(0, LANES).boxed().toList(),
          lane -> {
            for (int i = lane; i < scenarios.size(); i += LANES) {
              long start = first + i * STAGGER_MILLIS;
              failures
                  .get(i)
                  .addAll(
                      run(scenarios.get(i), servers.get(lane), start, dependencies.get(i), untils));
            }
          });
      assertThat(child.waitFor(Duration.ofSeconds(120))).as("child %s", child.stderr()).isZero();
      for (String line : child.stdout()) {
        if (line.startsWith("firstRejections ") || line.startsWith("degraded ")) {
          System.out.println("child: " + line);
        }
        if (line.startsWith("firstRejections override:closed")) {
          String id = line.split(" ")[1];
          long until = untils.get(id);
          for (String t : line.split(" ")[2].split(",")) {
            long r = Long.parseLong(t);
            if (r != 0 && r < until - 50) {
              for (int i = 0; i < scenarios.size(); i++) {
                if (scenarios.get(i).id().toString().equals(id)) {
                  failures.get(i).add("the child's FORCED_CLOSED node rejected before the expiry");
                }
              }
            }
          }
        }
      }
      Promises promises = new Promises();
      for (int i = 0; i < scenarios.size(); i++) {
        List<String> f = failures.get(i);
        String name = scenarios.get(i).id().dependency().replaceAll("\\.\\d+$", "");
        promises.verdict("override-" + name, f.isEmpty(), String.join("; ", f));
      }
      promises.assertHeld();
    }
  }

  private static List<String> run(
      Scenario s,
      RedisServerProcess server,
      long start,
      LoopbackDependency dependency,
      java.util.Map<String, Long> untils) {
    List<String> failures = new ArrayList<>();
    Fleet.sleep(start - 2500 - System.currentTimeMillis());
    LoopbackFleet here =
        new LoopbackFleet(
            server.uri(),
            s.id(),
            2,
            "parent-",
            dependency.port(),
            new LoopbackFleet.Options(
                Mode.HYBRID,
                LoopbackFleetMain.policy(5, 2000, s.failureMode()),
                null,
                null,
                null,
                Duration.ofMillis(500)));
    long setAt;
    long killedAt;
    long confirmedAt;
    try (here;
        RedisFleetStore store =
            RedisFleetStore.connect(StoreConfig.builder().uri(server.uri()).build())) {
      Fleet.sleep(start - 600 - System.currentTimeMillis());
      setAt = System.currentTimeMillis();
      StoreFutures.await(
          store.override(
              s.id(),
              new OverrideRequest(
                  s.kind(), "oncall", "incident 42", Duration.ofMillis(OVERRIDE_MILLIS), "c-42")));
      Fleet.sleep(start - System.currentTimeMillis());
      here.start(5);
      // every node (the child's too) reports the override in its heartbeat before Redis goes
      State forced = State.fromCode(s.kind().name());
      Poll.until(
          Duration.ofSeconds(4),
          "all 3 nodes report " + forced,
          () ->
              StoreFutures.await(store.snapshot(s.id(), 0)).nodes().stream()
                      .filter(n -> n.state() == forced)
                      .count()
                  == 3);
      confirmedAt = System.currentTimeMillis();
      assertThat(confirmedAt).as("confirmed well before the expiry").isLessThan(setAt + 4500);
      Fleet.sleep(Math.max(0, start + 300 - System.currentTimeMillis()));
      killedAt = System.currentTimeMillis();
      server.kill();
      Fleet.sleep(start + RUN_MILLIS - System.currentTimeMillis());
    }
    server.restart(); // up again before the lane's next round builds its nodes
    long until = setAt + OVERRIDE_MILLIS;
    untils.put(s.id().toString(), until);
    String what = s.kind() + " " + s.failureMode();
    if (s.kind() == OverrideKind.FORCED_OPEN) {
      long during = dependency.reachedBetween(confirmedAt, until - 50);
      long after = dependency.reachedBetween(until + 100, start + RUN_MILLIS);
      System.out.printf(
          "override %s: %d calls reached the dependency while forced open (killed %d ms in), %d"
              + " after the expiry%n",
          what, during, killedAt - start, after);
      System.out.printf(
          "override %s: confirmed %d ms in, expiry %d ms in, parent degraded %s, first rejections"
              + " %s (ms from the start)%n",
          what,
          confirmedAt - start,
          until - start,
          here.degradations,
          Arrays.toString(Arrays.stream(here.firstRejections()).map(r -> r - start).toArray()));
      if (during != 0) {
        failures.add(
            what
                + ": "
                + during
                + " calls reached the dependency before the expiry (until "
                + until
                + ", killed "
                + killedAt
                + "; parent admissions "
                + here.admissions
                + ")");
      }
      if (after == 0) {
        failures.add(what + ": no call after the expiry (per-process behaviour expected)");
      }
    } else {
      long during = dependency.reachedBetween(killedAt + 100, until - 100);
      long[] rejections = here.firstRejections();
      System.out.printf(
          "override %s: %d calls reached the failing dependency while Redis was down, first"
              + " rejections %s%n",
          what, during, Arrays.toString(rejections));
      if (during < 100) {
        failures.add(what + ": only " + during + " calls admitted while forced closed");
      }
      for (long r : rejections) {
        if (r != 0 && r < until - 50) {
          failures.add(what + ": a node rejected at " + (r - start) + " ms, before the expiry");
        }
      }
    }
    return failures;
  }
}
