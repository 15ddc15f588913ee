package io.breakerctl.bench;

import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.RestartableMongo;
import io.breakerctl.runtime.control.fallback.BusinessKeys;
import io.breakerctl.runtime.control.fallback.FallbackSnapshots;
import io.breakerctl.runtime.control.fallback.PayloadKeys;
import io.breakerctl.runtime.fallback.ControlledFailureException;
import io.breakerctl.runtime.fallback.Fallbacks;
import io.breakerctl.runtime.fallback.Served;
import io.breakerctl.runtime.fallback.SnapshotApproval;
import io.breakerctl.runtime.fallback.SnapshotCodec;
import io.breakerctl.runtime.internal.RegistryInternals;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.FallbackPolicy;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisServerProcess;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;

/**
 * What a fallback costs the caller while its breaker is open (issue 43), with MongoDB up and with
 * MongoDB stopped (the in-process wire server shut down): a CACHED fallback served from Redis (the
 * first read of each of {@code --keys} keys by a node), from the node cache (every later read), and
 * a controlled failure (a CACHED fallback with no snapshot for the key: MongoDB asked while it is
 * up, not asked while it is down). Per call, measured around {@code Fallbacks.call}: p50 and p99.
 * While MongoDB is down, the first call that finds it gone waits the control plane's timeout once
 * (printed apart); every call after it decides at once (target: p99 under 1 ms, against the
 * timeout, 5 s by default, on every call before). Options: {@code --calls N --keys K --timeout-ms T
 * --redis PATH}.
 */
public final class FallbackBench {
  private FallbackBench() {}

  private static final SnapshotCodec<String> TEXT = SnapshotCodec.utf8();

  public static void main(String[] args) throws Exception {
    int[] opts = {20_000, 2_000, 2_000};
    String[] redisPath = {null};
    BenchSupport.parse(
        args,
        (name, v) -> {
          switch (name) {
            case "--calls" -> opts[0] = BenchSupport.positive(name, v, 100);
            case "--keys" -> opts[1] = BenchSupport.positive(name, v, 10);
            case "--timeout-ms" -> opts[2] = BenchSupport.positive(name, v, 50);
            case "--redis" -> redisPath[0] = v;
            default -> {
              return false;
            }
          }
          return true;
        });
    int calls = opts[0];
    int keys = opts[1];
    RedisBinary binary = BenchSupport.binary(redisPath[0]);
    BenchSupport.header("fallbacks with MongoDB up and down", binary, redisPath[0] != null);
    System.out.printf(
        "calls:  %d per figure, %d business keys, control-plane timeout %d ms%n",
        calls, keys, opts[2]);
    BusinessKeys salt = new BusinessKeys("fallback-bench-salt-01");
    PayloadKeys aes =
        PayloadKeys.of(
            Map.of("k1", "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII)),
            "k1");
    Clock clock = Clock.systemUTC();
    try (RedisServerProcess server = RedisServerProcess.start(binary);
        RestartableMongo mongo = new RestartableMongo();
        ControlDatabase db =
            ControlDatabase.connect(mongo.config("bench", Duration.ofMillis(opts[2])));
        BreakerRegistry registry =
            BreakerRegistry.builder()
                .redisUri(server.uri())
                .nodeId("bench-node")
                .mode(Mode.HYBRID)
                .defaults(Policy.builder().fallbackPolicy(FallbackPolicy.CACHED).build())
                .build()) {
      BreakerId id = BreakerId.parse("bench:members");
      CircuitBreaker cb = registry.breaker(id);
      FallbackSnapshots writer =
          new FallbackSnapshots(db, salt, aes, clock).withHotCopies(registry.hotSnapshots());
      for (int k = 0; k < keys; k++) {
        writer.capture(
            id,
            "member-" + k,
            TEXT.encode("tier-" + k),
            "bench",
            Duration.ofHours(1),
            SnapshotApproval.AUTOMATIC);
      }
      RegistryInternals.store(registry)
          .override(
              id,
              new OverrideRequest(
                  OverrideKind.FORCED_OPEN, "bench", "fallback bench", Duration.ofMinutes(30), ""))
          .join();
      long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (cb.view().state() != State.FORCED_OPEN && System.nanoTime() < until) {
        Thread.sleep(10);
      }
      System.out.printf("%-58s %10s %10s%n", "MongoDB up", "p50 us", "p99 us");
      try (Fallbacks<String> up = fallbacks(cb, db, salt, aes, clock, registry)) {
        print("cached, from Redis (first read of each key)", cached(up, keys, keys));
        print("cached, from the node cache", cached(up, calls, keys));
        print("controlled failure (no snapshot: MongoDB asked once a second)", failures(up, calls));
      }
      mongo.stop();
      System.out.printf("%-58s %10s %10s%n", "MongoDB stopped", "p50 us", "p99 us");
      try (Fallbacks<String> down = fallbacks(cb, db, salt, aes, clock, registry)) {
        long t0 = System.nanoTime();
        try {
          down.call("no-such-member", () -> "never called");
        } catch (ControlledFailureException expected) {
          // the one call that finds MongoDB gone
        }
        System.out.printf(
            "%-58s %10.0f%n",
            "first call after the stop (waits once; ms)", (System.nanoTime() - t0) / 1e6);
        print("cached, from Redis (first read of each key)", cached(down, keys, keys));
        long[] fromCache = cached(down, calls, keys);
        print("cached, from the node cache", fromCache);
        long[] failed = failures(down, calls);
        print("controlled failure (no snapshot: MongoDB not asked)", failed);
        System.out.printf("%-58s %10d%n", "calls that waited on MongoDB", db.unavailableWaits());
        long p99 = Math.max(p(fromCache, 0.99), p(failed, 0.99));
        BenchSupport.target(
            "p99 with MongoDB down < 1 ms",
            p99 < 1_000_000,
            "cached %.0f us, controlled failure %.0f us",
            p(fromCache, 0.99) / 1e3,
            p(failed, 0.99) / 1e3);
      }
    }
  }

  private static Fallbacks<String> fallbacks(
      CircuitBreaker cb,
      ControlDatabase db,
      BusinessKeys salt,
      PayloadKeys aes,
      Clock clock,
      BreakerRegistry registry) {
    // a fresh node cache: the first read of each key comes from Redis
    return Fallbacks.<String>builder(cb)
        .cached(
            new FallbackSnapshots(db, salt, aes, clock).withHotCopies(registry.hotSnapshots()),
            TEXT,
            Duration.ofHours(1),
            SnapshotApproval.AUTOMATIC)
        .build();
  }

  private static long[] cached(Fallbacks<String> f, int calls, int keys) throws Exception {
    long[] took = new long[calls];
    for (int i = 0; i < calls; i++) {
      String key = "member-" + (i % keys);
      long t0 = System.nanoTime();
      Served s = f.call(key, () -> "never called").served();
      took[i] = System.nanoTime() - t0;
      if (s != Served.CACHED) {
        throw new IllegalStateException("not served from cache: " + s);
      }
    }
    return BenchSupport.sorted(took, calls);
  }

  private static long[] failures(Fallbacks<String> f, int calls) throws Exception {
    long[] took = new long[calls];
    for (int i = 0; i < calls; i++) {
      long t0 = System.nanoTime();
      try {
        f.call("no-such-member", () -> "never called");
        throw new IllegalStateException("a key without a snapshot was served");
      } catch (ControlledFailureException expected) {
        took[i] = System.nanoTime() - t0;
      }
    }
    return BenchSupport.sorted(took, calls);
  }

  private static long p(long[] sorted, double q) {
    return BenchSupport.quantile(sorted, sorted.length, q);
  }

  private static void print(String what, long[] sorted) {
    System.out.printf("%-58s %10.1f %10.1f%n", what, p(sorted, 0.50) / 1e3, p(sorted, 0.99) / 1e3);
  }
}
