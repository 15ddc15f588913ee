package io.breakerctl.bench;

import io.breakerctl.runtime.control.ControlConfig;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.TestMongo;
import io.breakerctl.runtime.control.history.HistoryForwarder;
import io.breakerctl.runtime.control.history.SyncResult;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisServerProcess;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * What one history-forwarder pass costs Redis: N breakers (default 10,000) that each tripped once
 * and were forwarded, then C of them (default 10) change (an override each) before every measured
 * pass. Commands are the {@code INFO commandstats} delta around {@link HistoryForwarder#syncOnce}
 * (every command Redis ran, those run inside the scripts included; the INFO calls themselves
 * excluded). Also printed: the first pass (a full sweep), a pass with nothing changed, and, as the
 * baseline, the reads the forwarder made before the unforwarded markers (a snapshot and an XRANGE
 * per breaker, replayed here). Target: at most 100 commands per pass with 10 changed. MongoDB is
 * the in-process mongo-java-server. Options: {@code --breakers N --changed C --passes P --redis
 * PATH}.
 */
public final class ForwarderBench {
  private ForwarderBench() {}

  public static void main(String[] args) throws Exception {
    int[] opt = {10_000, 10, 3};
    String[] redisPath = {null};
    BenchSupport.parse(
        args,
        (name, v) -> {
          switch (name) {
            case "--breakers" -> opt[0] = BenchSupport.positive(name, v, 1);
            case "--changed" -> opt[1] = BenchSupport.positive(name, v, 0);
            case "--passes" -> opt[2] = BenchSupport.positive(name, v, 1);
            case "--redis" -> redisPath[0] = v;
            default -> {
              return false;
            }
          }
          return true;
        });
    int breakers = opt[0];
    int changed = Math.min(opt[1], breakers);
    RedisBinary binary = BenchSupport.binary(redisPath[0]);
    BenchSupport.header("history forwarder pass", binary, redisPath[0] != null);
    System.out.printf(
        "breakers: %,d, changed per pass: %d, passes: %d%n", breakers, changed, opt[2]);
    try (TestMongo mongo = TestMongo.start();
        RedisServerProcess server = RedisServerProcess.start(binary)) {
      ControlConfig c = mongo.database();
      ControlConfig wide =
          ControlConfig.builder()
              .uri(c.uri())
              .database(c.database())
              .timeout(Duration.ofSeconds(60))
              .build();
      try (ControlDatabase db = ControlDatabase.connect(wide);
          RedisFleetStore redis =
              RedisFleetStore.connect(
                  StoreConfig.builder()
                      .uri(server.uri())
                      .timeout(Duration.ofSeconds(10))
                      .build())) {
        db.ensureIndexes();
        List<BreakerId> ids = trip(redis, breakers);
        HistoryForwarder forwarder = new HistoryForwarder(db, redis, "bench", Clock.systemUTC());

        long[] first = measure(server, forwarder::syncOnce);
        System.out.printf(
            "first pass (full sweep): %,d commands, %,d events stored, %d ms%n",
            first[0], first[1], first[2]);
        long[] old = measure(server, () -> previousReads(redis, ids));
        System.out.printf(
            "before the markers, a pass read every breaker: %,d commands (%.1f per breaker)%n",
            old[0], old[0] / (double) breakers);

        long[] idle = measure(server, forwarder::syncOnce);
        System.out.printf("pass with nothing changed: %,d commands%n", idle[0]);

        long worst = 0;
        for (int pass = 0; pass < opt[2]; pass++) {
          for (int i = 0; i < changed; i++) {
            BreakerId id = ids.get((pass * 7919 + i * 104_729) % breakers);
            OverrideKind kind = pass % 2 == 0 ? OverrideKind.FORCED_CLOSED : OverrideKind.CLEAR;
            StoreFutures.await(
                redis.override(id, new OverrideRequest(kind, "bench", "bench", Duration.ZERO, "")));
          }
          Map<String, Long> before = calls(server);
          long[] m = measure(server, forwarder::syncOnce);
          worst = Math.max(worst, m[0]);
          System.out.printf(
              "pass %d, %d changed: %,d commands, %d events stored, %d ms; %s%n",
              pass + 1, changed, m[0], m[1], m[2], breakdown(before, calls(server)));
        }
        System.out.println("targets:");
        BenchSupport.target(
            "commands per pass, " + changed + " of " + breakers + " changed <= 100",
            worst <= 100,
            "worst of %d passes: %d; previous design %,d",
            opt[2],
            worst,
            old[0]);
      }
    }
  }

  /** Creates {@code n} breakers that each tripped once (one event each). */
  private static List<BreakerId> trip(RedisFleetStore redis, int n) {
    Policy p = Policy.builder().failureThreshold(1).build();
    List<BreakerId> ids = new ArrayList<>(n);
    List<CompletableFuture<?>> inFlight = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      BreakerId id = BreakerId.parse("svc" + (i % 100) + ":dep" + i);
      ids.add(id);
      inFlight.add(redis.record(id, Outcome.failure("n1", ""), p));
      if (inFlight.size() == 1000 || i == n - 1) {
        CompletableFuture.allOf(inFlight.toArray(new CompletableFuture<?>[0])).join();
        inFlight.clear();
      }
    }
    return ids;
  }

  /** The Redis reads of the forwarder before the markers: a snapshot and an XRANGE per breaker. */
  private static SyncResult previousReads(RedisFleetStore redis, List<BreakerId> ids) {
    List<BreakerId> listed = new ArrayList<>();
    redis.forEachBreaker(listed::add);
    for (BreakerId id : listed) {
      String fwd = StoreFutures.await(redis.snapshot(id, 0)).fields().getOrDefault("forwarded", "");
      StoreFutures.await(redis.eventsAfter(id, fwd, HistoryForwarder.BATCH));
    }
    return new SyncResult(listed.size(), 0, 0, List.of(), List.of());
  }

  private interface Pass {
    SyncResult run();
  }

  /** {commands, events stored, ms} of one pass. */
  private static long[] measure(RedisServerProcess server, Pass pass) {
    Map<String, Long> before = calls(server);
    long t0 = System.nanoTime();
    SyncResult r = pass.run();
    long ms = (System.nanoTime() - t0) / 1_000_000;
    Map<String, Long> after = calls(server);
    if (!r.failures().isEmpty()) {
      throw new IllegalStateException("forwarder pass failed: " + r.failures());
    }
    return new long[] {total(before, after), r.events(), ms};
  }

  private static Map<String, Long> calls(RedisServerProcess server) {
    Map<String, Long> out = new TreeMap<>();
    server.commandStats().forEach((k, v) -> out.put(k, v[0]));
    return out;
  }

  private static long total(Map<String, Long> before, Map<String, Long> after) {
    long sum = 0;
    for (Map.Entry<String, Long> e : after.entrySet()) {
      if (!e.getKey().equals("info")) {
        sum += e.getValue() - before.getOrDefault(e.getKey(), 0L);
      }
    }
    return sum;
  }

  private static String breakdown(Map<String, Long> before, Map<String, Long> after) {
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<String, Long> e : after.entrySet()) {
      long d = e.getValue() - before.getOrDefault(e.getKey(), 0L);
      if (d > 0 && !e.getKey().equals("info")) {
        sb.append(sb.length() == 0 ? "" : " ").append(e.getKey()).append('=').append(d);
      }
    }
    return sb.toString();
  }
}
