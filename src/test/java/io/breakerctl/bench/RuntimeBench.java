package io.breakerctl.bench;

import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.Permission;
import io.breakerctl.runtime.internal.RegistryInternals;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.redis.BreakerKeys;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisServerProcess;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Benchmark of the embeddable runtime (not a test; run it with {@code scripts/bench runtime}). It
 * starts its own redis-server (loopback, free port) and measures three things:
 *
 * <ol>
 *   <li><b>hot path</b> (JMH, one run): a HYBRID breaker's closed-state {@code tryAcquire()} +
 *       {@code onSuccess(nanos)} against Resilience4j's {@code tryAcquirePermission()} + {@code
 *       onSuccess(duration, unit)}, 1 and 2 threads, average ns per call and bytes allocated per
 *       call (GC profiler); ratios HYBRID/Resilience4j from the same run. Target ≤ 1.5×. The same
 *       with failure classification and Micrometer metrics enabled on both sides ({@code
 *       classified*} vs {@code r4jMetrics*}, see {@link RuntimeJmh}): target ≤ 1.0×. And the same
 *       breaker with {@code slowCallMillis} 60,000 (Resilience4j's default threshold), whose every
 *       call is counted in flight ({@code hybridSlow*}): its ratio to Resilience4j within 10% of
 *       the hot path's recorded 0.48× / 0.34× (the regression target in src/docs/performance.md),
 *       with the cost it adds to the untracked path in the same run beside it. And the Resilience4j
 *       adapter ({@code adapter*}, {@code adapterMetrics*}: Resilience4j's interface over a HYBRID
 *       breaker) beside Resilience4j's own breaker, plain and with classification and metrics:
 *       target ≤ 1.0×. And the cost of an Observation per call ({@code observed1}, {@code
 *       observedNoop1}) against the hot path: target ≤ 1.1×.
 *   <li><b>SHARED latency</b>: a SHARED call ({@code tryAcquire} runs the acquire script and waits;
 *       {@code onSuccess} sends the record script and returns) against two PINGs joined one after
 *       the other on the very connection the registry's scripts use (Lettuce async), p50/p99 over
 *       interleaved rounds whose order rotates. Because the record is asynchronous, the call is
 *       also timed until the record has completed: the same call followed by one PING joined on
 *       that connection, which Redis answers right after the record (one connection is
 *       first-in-first-out), so it is an upper bound of "record done". The two scripts joined
 *       through the store alone (no runtime) are listed for reference. Target: SHARED call p50 ≤ 2×
 *       two PINGs.
 *   <li><b>Redis commands per 1,000 calls</b>: {@code CONFIG RESETSTAT}, successful calls on one
 *       node (HYBRID: {@code --count-calls} spread evenly over {@code --count-seconds}, so the
 *       periodic refresh and flush run as in a busy service; SHARED: as many as fit, at most {@code
 *       --shared-count-calls}), the registry closed (its final flush), then {@code INFO
 *       commandstats}. Two counts: commands the node sent (a Lettuce {@code CommandListener} on the
 *       registry's client: round trips), and all commands Redis executed (commandstats, which also
 *       counts the commands run inside scripts; CONFIG/INFO issued by the benchmark excluded). The
 *       successes stored in Redis are checked against the calls made. Target (HYBRID, commands
 *       Redis executed) ≤ 10 per 1,000 calls.
 * </ol>
 *
 * <p>SHARED latency ops: {@code ping} (one PING), {@code 2 pings} (the baseline), {@code shared}
 * (calls back to back: the next acquire may queue behind the previous record), {@code shared-alone}
 * (each call on a drained connection: an untimed PING after it), {@code shared+fence} (until the
 * record completed), {@code scripts} (acquire and record joined through the store, no runtime).
 *
 * <p>Options: {@code --redis PATH}, {@code --parts jmh,shared,commands} (all), {@code --jmh-warmup
 * N} (3), {@code --jmh-iterations N} (5; 1 s each, 1 fork), {@code --jmh-verbose true}, {@code
 * --warmup N} (5000), {@code --rounds R} (10), {@code --per-round N} (2000), {@code --count-calls
 * N} (1000000), {@code --count-seconds S} (10), {@code --shared-count-calls N} (20000), {@code
 * --max-seconds S} (60; bounds the SHARED latency part).
 */
public final class RuntimeBench {

  private static final double HOT_PATH_MAX_RATIO = 1.5;
  private static final double CLASSIFIED_MAX_RATIO = 1.0;

  /**
   * The hot path's ratios to Resilience4j recorded when its regression target was set
   * (src/docs/performance.md: "at most 10% worse than 0.48x / 0.34x"), 1 and 2 threads.
   */
  private static final double[] RECORDED_RATIO = {0.48, 0.34};

  /**
   * Issue 40: with calls counted in flight for {@code slowCallMillis} the hot path stays within 10%
   * of that recorded ratio to Resilience4j, the hot path's own regression target. The growth over
   * the untracked path in the same run is printed beside it: two uncontended compare-and-sets per
   * call ({@code InFlightCalls}), which the untracked path (one) cannot match within 10%.
   */
  private static final double SLOW_TRACKING_MAX_GROWTH = 1.10;

  private static final double SHARED_MAX_RATIO = 2.0;
  private static final double COMMANDS_PER_1000_MAX = 10;

  /**
   * Command timeout of the registries of parts 2 and 3 (the runtime's default is 50 ms): on a
   * loaded machine a stall past 50 ms would turn a SHARED call into a degraded local one (and the
   * benchmark's PING on that connection into an error); 1 s keeps every call on the path measured.
   */
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

  /** A PING p50 above this means the round trip measures scheduling, not Redis. */
  private static final long BUSY_PING_NANOS = 50_000;

  private final Opt opt;
  private final RedisServerProcess server;
  private final List<Runnable> targets = new ArrayList<>();

  private RuntimeBench(Opt opt, RedisServerProcess server) {
    this.opt = opt;
    this.server = server;
  }

  /** Runs the benchmark; see the class comment for options. */
  public static void main(String[] args) throws Exception {
    Opt opt = Opt.parse(args);
    RedisBinary binary = BenchSupport.binary(opt.redis);
    BenchSupport.header("runtime", binary, opt.redis != null);
    System.out.printf(
        "plan:   parts %s; JMH 1 fork, %d x 1 s warm-up + %d x 1 s measured per benchmark;"
            + " SHARED latency %d rounds x %,d calls per op after %,d warm-up; commands:"
            + " HYBRID %,d calls over %d s, SHARED up to %,d calls%n",
        String.join(",", opt.parts),
        opt.jmhWarmup,
        opt.jmhIterations,
        opt.rounds,
        opt.perRound,
        opt.warmup,
        opt.countCalls,
        opt.countSeconds,
        opt.sharedCountCalls);
    long started = System.nanoTime();
    try (RedisServerProcess server = RedisServerProcess.start(binary)) {
      RuntimeBench bench = new RuntimeBench(opt, server);
      if (opt.parts.contains("jmh")) {
        bench.hotPath();
      }
      if (opt.parts.contains("shared")) {
        bench.sharedLatency();
      }
      if (opt.parts.contains("commands")) {
        bench.commands();
      }
      System.out.println();
      System.out.println("targets:");
      bench.targets.forEach(Runnable::run);
    }
    System.out.printf("%ntook %.1f s%n", (System.nanoTime() - started) / 1e9);
  }

  // ---- 1. hot path (JMH) ---------------------------------------------------------------------

  private void hotPath() throws Exception {
    System.out.println();
    System.out.println("-- 1. closed-state hot path: HYBRID vs Resilience4j (JMH, same run) --");
    Options o =
        new OptionsBuilder()
            .include(Pattern.quote(RuntimeJmh.class.getName()) + "\\.")
            .param("redisUri", server.uri())
            .forks(1)
            .warmupIterations(opt.jmhWarmup)
            .warmupTime(TimeValue.seconds(1))
            .measurementIterations(opt.jmhIterations)
            .measurementTime(TimeValue.seconds(1))
            .addProfiler(GCProfiler.class)
            .shouldFailOnError(true)
            .verbosity(opt.jmhVerbose ? VerboseMode.NORMAL : VerboseMode.SILENT)
            .build();
    Collection<RunResult> results = new Runner(o).run();
    Map<String, RunResult> byName = new TreeMap<>();
    for (RunResult r : results) {
      String b = r.getParams().getBenchmark();
      byName.put(b.substring(b.lastIndexOf('.') + 1), r);
    }
    System.out.printf(
        "%-14s %7s %10s %9s %9s  %s%n",
        "benchmark", "threads", "ns/call", "+-99.9%", "B/call", "iterations (ns/call)");
    for (Map.Entry<String, RunResult> e : byName.entrySet()) {
      RunResult r = e.getValue();
      BenchmarkParams p = r.getParams();
      Result<?> primary = r.getPrimaryResult();
      Result<?> alloc = r.getSecondaryResults().get("gc.alloc.rate.norm");
      StringBuilder its = new StringBuilder();
      for (BenchmarkResult br : r.getBenchmarkResults()) {
        for (IterationResult ir : br.getIterationResults()) {
          its.append(String.format(Locale.ROOT, " %.1f", ir.getPrimaryResult().getScore()));
        }
      }
      System.out.printf(
          Locale.ROOT,
          "%-14s %7d %10.1f %9.1f %9s %s%n",
          e.getKey(),
          p.getThreads(),
          primary.getScore(),
          primary.getScoreError(),
          alloc == null ? "-" : String.format(Locale.ROOT, "%.1f", alloc.getScore()),
          its);
    }
    ratios(byName, "hybrid", "resilience4j", "", "hot path", HOT_PATH_MAX_RATIO);
    ratios(
        byName,
        "hybridSlow",
        "resilience4j",
        " with calls counted in flight (slowCallMillis)",
        "hot path with in-flight slow detection",
        HOT_PATH_MAX_RATIO);
    for (int threads : new int[] {1, 2}) {
      double plain = score(byName, "hybrid" + threads) / score(byName, "resilience4j" + threads);
      double slow = score(byName, "hybridSlow" + threads) / score(byName, "resilience4j" + threads);
      double recorded = RECORDED_RATIO[threads - 1];
      double added = score(byName, "hybridSlow" + threads) - score(byName, "hybrid" + threads);
      targets.add(
          () ->
              BenchSupport.target(
                  String.format(
                      Locale.ROOT,
                      "in-flight slow detection %dT: within %.0f%% of the recorded %.2fx",
                      threads,
                      (SLOW_TRACKING_MAX_GROWTH - 1) * 100,
                      recorded),
                  slow <= recorded * SLOW_TRACKING_MAX_GROWTH,
                  "%.2fx",
                  slow));
      targets.add(
          () ->
              BenchSupport.info(
                  String.format(
                      Locale.ROOT, "in-flight slow detection %dT vs untracked, same run", threads),
                  "%.2fx vs %.2fx: %+.1f ns per call",
                  slow,
                  plain,
                  added));
    }
    ratios(
        byName,
        "classified",
        "r4jMetrics",
        " with classification and metrics",
        "hot path with classification and metrics",
        CLASSIFIED_MAX_RATIO);
    ratios(
        byName,
        "adapter",
        "resilience4j",
        " of the Resilience4j adapter (ours over HYBRID)",
        "Resilience4j adapter",
        CLASSIFIED_MAX_RATIO);
    ratios(
        byName,
        "adapterMetrics",
        "r4jMetrics",
        " of the Resilience4j adapter with classification and metrics",
        "Resilience4j adapter with classification and metrics",
        CLASSIFIED_MAX_RATIO);
    for (String observed : List.of("observedNoop", "observed")) {
      double ratio = score(byName, observed + "1") / score(byName, "hybrid1");
      double added = score(byName, observed + "1") - score(byName, "hybrid1");
      targets.add(
          () ->
              BenchSupport.target(
                  String.format(
                      Locale.ROOT,
                      "%s 1T <= %.2fx the hot path (ObservedBreaker)",
                      observed.equals("observed")
                          ? "an Observation per call (one no-op handler)"
                          : "the Observation wrapper, NOOP registry",
                      OBSERVATION_MAX_RATIO),
                  ratio <= OBSERVATION_MAX_RATIO,
                  "%.2fx (%+.1f ns per call)",
                  ratio,
                  added));
    }
  }

  /** An Observation per call adds at most 10% to the hot path (issue 34). */
  private static final double OBSERVATION_MAX_RATIO = 1.10;

  private static double score(Map<String, RunResult> byName, String benchmark) {
    return byName.get(benchmark).getPrimaryResult().getScore();
  }

  /** Prints HYBRID/Resilience4j for 1 and 2 threads and adds a target for each. */
  private void ratios(
      Map<String, RunResult> byName,
      String ours,
      String theirs,
      String what,
      String target,
      double max) {
    for (int threads : new int[] {1, 2}) {
      RunResult h = byName.get(ours + threads);
      RunResult r = byName.get(theirs + threads);
      double ratio = h.getPrimaryResult().getScore() / r.getPrimaryResult().getScore();
      System.out.printf(
          Locale.ROOT,
          "ratio%s HYBRID/Resilience4j, %d thread%s: %.2fx%n",
          what,
          threads,
          threads == 1 ? "" : "s",
          ratio);
      targets.add(
          () ->
              BenchSupport.target(
                  String.format(Locale.ROOT, "%s %dT <= %.1fx Resilience4j", target, threads, max),
                  ratio <= max,
                  "%.2fx",
                  ratio));
    }
  }

  // ---- 2. SHARED latency ---------------------------------------------------------------------

  /** A call measured by the benchmark. */
  @FunctionalInterface
  private interface Op {
    void call();
  }

  private void sharedLatency() {
    System.out.println();
    System.out.println("-- 2. SHARED call vs two PINGs on the same connection --");
    System.out.println(
        "(registry command timeout 1 s instead of 50 ms: a stall on this machine is measured,"
            + " not turned into a degraded call)");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(opt.maxSeconds);
    BreakerId id = BreakerId.parse("bench:shared-latency");
    String node = "bench-shared";
    try (BreakerRegistry registry =
        BreakerRegistry.builder()
            .redisUri(server.uri())
            .nodeId(node)
            .mode(Mode.SHARED)
            .commandTimeout(COMMAND_TIMEOUT)
            .build()) {
      CircuitBreaker cb = registry.breaker(id);
      RedisFleetStore store = RegistryInternals.store(registry);
      @SuppressWarnings("unchecked")
      StatefulRedisConnection<String, String> conn =
          (StatefulRedisConnection<String, String>) store.connection();
      RedisAsyncCommands<String, String> async = conn.async();
      Policy policy = cb.view().policy();
      Map<String, LongAdder> reasons = new ConcurrentHashMap<>();

      Op shared =
          () -> {
            Permission p = cb.tryAcquire();
            if (!p.allowed()) {
              throw new IllegalStateException("SHARED call rejected: " + p.reason());
            }
            reasons.computeIfAbsent(p.reason().code(), k -> new LongAdder()).increment();
            p.onSuccess(RuntimeJmh.CALL_NANOS);
          };
      Map<String, Op> ops = new LinkedHashMap<>();
      Map<String, Op> untimed = new LinkedHashMap<>();
      ops.put("ping", () -> async.ping().toCompletableFuture().join());
      ops.put(
          "2 pings",
          () -> {
            async.ping().toCompletableFuture().join();
            async.ping().toCompletableFuture().join();
          });
      ops.put("shared", shared);
      // timed like "shared", then (untimed) one PING joined, so the next call starts on a drained
      // connection
      ops.put("shared-alone", shared);
      untimed.put("shared-alone", () -> async.ping().toCompletableFuture().join());
      ops.put(
          "shared+fence",
          () -> {
            shared.call();
            async.ping().toCompletableFuture().join();
          });
      // what a SHARED call would cost the caller if successes were batched (no record per call)
      ops.put(
          "acquire-only",
          () -> {
            if (!cb.tryAcquire().allowed()) {
              throw new IllegalStateException("SHARED call rejected");
            }
          });
      ops.put(
          "scripts",
          () -> {
            store.acquire(id, node, policy).join();
            store.record(id, Outcome.success(node, "", 1), policy).join();
          });

      Op none = () -> {};
      for (Map.Entry<String, Op> e : ops.entrySet()) {
        Op after = untimed.getOrDefault(e.getKey(), none);
        for (int i = 0; i < opt.warmup && System.nanoTime() < deadline; i++) {
          e.getValue().call();
          after.call();
        }
      }
      reasons.clear();
      List<String> names = new ArrayList<>(ops.keySet());
      Map<String, long[]> samples = new LinkedHashMap<>();
      Map<String, Integer> counts = new LinkedHashMap<>();
      for (String n : names) {
        samples.put(n, new long[opt.rounds * opt.perRound]);
        counts.put(n, 0);
      }
      int roundsDone = 0;
      for (int r = 0; r < opt.rounds && System.nanoTime() < deadline; r++) {
        for (int k = 0; k < names.size(); k++) {
          String name = names.get((r + k) % names.size());
          Op op = ops.get(name);
          Op after = untimed.getOrDefault(name, none);
          long[] s = samples.get(name);
          int c = counts.get(name);
          for (int i = 0; i < opt.perRound; i++) {
            long t0 = System.nanoTime();
            op.call();
            s[c++] = System.nanoTime() - t0;
            after.call();
          }
          counts.put(name, c);
        }
        roundsDone++;
      }
      boolean degraded = registry.degraded();

      if (roundsDone < opt.rounds) {
        System.out.printf(
            "NOTE: stopped after %d of %d rounds (--max-seconds %d)%n",
            roundsDone, opt.rounds, opt.maxSeconds);
      }
      Map<String, long[]> p = new LinkedHashMap<>();
      for (String n : names) {
        int c = counts.get(n);
        long[] s = BenchSupport.sorted(samples.get(n), c);
        p.put(
            n,
            new long[] {BenchSupport.quantile(s, c, 0.50), BenchSupport.quantile(s, c, 0.99), c});
      }
      double base = p.get("2 pings")[0];
      if (p.get("ping")[0] > BUSY_PING_NANOS) {
        System.out.printf(
            Locale.ROOT,
            "NOTE: PING p50 %.1f us > %d us: round trips are dominated by thread wake-up latency"
                + " (the machine is busy), so the ratios below count blocking waits (a SHARED call"
                + " has one, two PINGs have two), not Redis work; compare runs with PING p50 near"
                + " the loopback floor (~15-25 us).%n",
            p.get("ping")[0] / 1000.0,
            BUSY_PING_NANOS / 1000);
      }
      System.out.printf(
          "%-13s %8s %9s %9s %11s%n", "op", "calls", "p50 us", "p99 us", "p50/2 PINGs");
      for (Map.Entry<String, long[]> e : p.entrySet()) {
        long[] v = e.getValue();
        System.out.printf(
            Locale.ROOT,
            "%-13s %,8d %9.1f %9.1f %10.2fx%n",
            e.getKey(),
            v[2],
            v[0] / 1000.0,
            v[1] / 1000.0,
            v[0] / base);
      }
      System.out.println(
          "  ping          one PING joined (the round-trip floor of this connection)");
      System.out.println("  2 pings       two PINGs, each joined before the next: the baseline");
      System.out.println(
          "  shared        tryAcquire() (acquire script, waited) + onSuccess() (counted; successes"
              + " reach the record script in the 1 s batch): what the caller sees");
      System.out.println(
          "  shared-alone  the same call on a drained connection (an untimed PING after each"
              + " call)");
      System.out.println(
          "  shared+fence  the same + one PING joined on that connection (an upper bound of the"
              + " call with one more round trip)");
      System.out.println("  acquire-only  tryAcquire() alone, outcome never reported");
      System.out.println(
          "  scripts       store.acquire().join() + store.record().join(): the two scripts"
              + " without the runtime (what a failed SHARED call costs: acquire + record)");
      Map<String, Long> rs = new TreeMap<>();
      reasons.forEach((k, v) -> rs.put(k, v.sum()));
      System.out.printf(
          "  permissions by reason (measured calls): %s; registry degraded at the end: %s%n",
          rs, degraded);

      double shared50 = p.get("shared")[0] / base;
      double fenced50 = p.get("shared+fence")[0] / base;
      targets.add(
          () ->
              BenchSupport.target(
                  "SHARED call p50 <= 2x two PINGs",
                  shared50 <= SHARED_MAX_RATIO,
                  "%.2fx",
                  shared50));
      targets.add(
          () ->
              BenchSupport.info(
                  "SHARED call plus one round trip", "%.2fx two PINGs (p50)", fenced50));
    }
  }

  // ---- 3. Redis commands per 1,000 calls
  // ----------------------------------------------------------

  /** Counts the commands a Lettuce client starts, by type. */
  private static final class CommandCounter implements CommandListener {
    final Map<String, LongAdder> byType = new ConcurrentHashMap<>();

    @Override
    public void commandStarted(CommandStartedEvent event) {
      byType
          .computeIfAbsent(event.getCommand().getType().toString(), k -> new LongAdder())
          .increment();
    }

    Map<String, Long> snapshot() {
      Map<String, Long> m = new TreeMap<>();
      byType.forEach((k, v) -> m.put(k.toLowerCase(Locale.ROOT), v.sum()));
      return m;
    }
  }

  private record Counted(
      Mode mode,
      long calls,
      double seconds,
      Map<String, Long> sent,
      Map<String, Long> executed,
      long storedSuccesses,
      boolean degraded) {

    long sentTotal() {
      return sent.values().stream().mapToLong(Long::longValue).sum();
    }

    long executedTotal() {
      return executed.values().stream().mapToLong(Long::longValue).sum();
    }
  }

  private void commands() {
    System.out.println();
    System.out.println("-- 3. Redis commands per 1,000 successful calls (one node) --");
    Counted hybrid = count(Mode.HYBRID, opt.countCalls, true);
    Counted shared = count(Mode.SHARED, opt.sharedCountCalls, false);
    System.out.printf(
        "%-7s %10s %7s %11s %11s %13s %13s %12s%n",
        "mode", "calls", "secs", "sent", "executed", "sent/1000", "exec/1000", "stored succ");
    for (Counted c : List.of(hybrid, shared)) {
      System.out.printf(
          Locale.ROOT,
          "%-7s %,10d %7.2f %,11d %,11d %13.3f %13.3f %,12d%n",
          c.mode(),
          c.calls(),
          c.seconds(),
          c.sentTotal(),
          c.executedTotal(),
          c.sentTotal() * 1000.0 / c.calls(),
          c.executedTotal() * 1000.0 / c.calls(),
          c.storedSuccesses());
    }
    System.out.printf(
        "  registry degraded at the end: HYBRID %s, SHARED %s%n",
        hybrid.degraded(), shared.degraded());
    for (Counted c : List.of(hybrid, shared)) {
      System.out.printf("  %s sent by the node:  %s%n", c.mode(), c.sent());
      System.out.printf("  %s executed by Redis: %s%n", c.mode(), c.executed());
    }
    double perSecond = hybrid.sentTotal() / hybrid.seconds();
    double execPerSecond = hybrid.executedTotal() / hybrid.seconds();
    System.out.printf(
        Locale.ROOT,
        "  sent = commands the node's Lettuce client started (round trips, pub/sub included);"
            + " executed = INFO commandstats, which also counts what the scripts run inside"
            + " (redis.call).%n"
            + "  HYBRID sends a fixed background per breaker (refresh: HGETALL + TIME; flush: one"
            + " record script) whatever the traffic: %.1f sent / %.1f executed per second here,"
            + " so the\n  10-per-1,000 target holds only above ~%,.0f calls/s per node and"
            + " breaker (executed) or ~%,.0f calls/s (sent).%n",
        perSecond,
        execPerSecond,
        execPerSecond * 1000 / COMMANDS_PER_1000_MAX,
        perSecond * 1000 / COMMANDS_PER_1000_MAX);
    double hybridExec = hybrid.executedTotal() * 1000.0 / hybrid.calls();
    double hybridSent = hybrid.sentTotal() * 1000.0 / hybrid.calls();
    boolean stored = hybrid.storedSuccesses() == hybrid.calls();
    targets.add(
        () ->
            BenchSupport.target(
                "HYBRID Redis commands per 1,000 calls <= 10",
                hybridExec <= COMMANDS_PER_1000_MAX,
                "%.3f executed, %.3f sent",
                hybridExec,
                hybridSent));
    targets.add(
        () ->
            BenchSupport.target(
                "HYBRID successes all stored after close",
                stored,
                "%,d of %,d",
                hybrid.storedSuccesses(),
                hybrid.calls()));
  }

  private Counted count(Mode mode, int calls, boolean paced) {
    RedisURI uri = RedisURI.create(server.uri());
    RedisClient client = RedisClient.create(uri);
    client.setOptions(
        ClientOptions.builder()
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .timeoutOptions(TimeoutOptions.enabled())
            .build());
    CommandCounter counter = new CommandCounter();
    client.addListener(counter);
    BreakerId id = BreakerId.parse("bench:commands-" + mode.name().toLowerCase(Locale.ROOT));
    String hash = BreakerKeys.withPrefix(BreakerKeys.DEFAULT_PREFIX).hash(id);
    long before = successes(hash);
    try {
      BreakerRegistry registry =
          BreakerRegistry.builder()
              .redisClient(client)
              .nodeId("bench-count-" + mode.name().toLowerCase(Locale.ROOT))
              .mode(mode)
              .commandTimeout(COMMAND_TIMEOUT)
              .build();
      long made = 0;
      long elapsed;
      boolean degraded;
      try {
        CircuitBreaker cb = registry.breaker(id);
        // Settle: the subscription's first refresh and the breaker's first read are set-up, not
        // traffic.
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
        server.call("CONFIG", "RESETSTAT");
        counter.byType.clear();
        long budget = TimeUnit.SECONDS.toNanos(opt.countSeconds);
        long t0 = System.nanoTime();
        while (made < calls && System.nanoTime() - t0 < budget) {
          int batch = (int) Math.min(1000, calls - made);
          for (int i = 0; i < batch; i++) {
            Permission p = cb.tryAcquire();
            if (!p.allowed()) {
              throw new IllegalStateException(mode + " call rejected: " + p.reason());
            }
            p.onSuccess(RuntimeJmh.CALL_NANOS);
          }
          made += batch;
          if (paced) {
            long due = t0 + (long) ((double) budget * made / calls);
            long wait = due - System.nanoTime();
            if (wait > 0) {
              LockSupport.parkNanos(wait);
            }
          }
        }
        elapsed = System.nanoTime() - t0;
        degraded = registry.degraded();
      } finally {
        registry.close();
      }
      // The final flush is sent by close(); give Redis a moment to run it, then read the stats
      // before any other command of ours.
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(300));
      Map<String, Long> executed = new TreeMap<>();
      server
          .commandStats()
          .forEach(
              (k, v) -> {
                if (!k.startsWith("config") && !k.startsWith("info")) {
                  executed.put(k, v[0]);
                }
              });
      long stored = successes(hash) - before;
      return new Counted(mode, made, elapsed / 1e9, counter.snapshot(), executed, stored, degraded);
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  private long successes(String hash) {
    Object v = server.call("HGET", hash, "successesTotal");
    return v == null ? 0 : Long.parseLong(String.valueOf(v));
  }

  // ---- options ------------------------------------------------------------------------------

  private static final class Opt {
    String redis;
    List<String> parts = List.of("jmh", "shared", "commands");
    int jmhWarmup = 3;
    int jmhIterations = 5;
    boolean jmhVerbose;
    int warmup = 5_000;
    int rounds = 10;
    int perRound = 2_000;
    int countCalls = 1_000_000;
    int countSeconds = 10;
    int sharedCountCalls = 20_000;
    int maxSeconds = 60;

    static Opt parse(String[] args) {
      Opt o = new Opt();
      BenchSupport.parse(
          args,
          (a, v) -> {
            switch (a) {
              case "--redis" -> o.redis = v;
              case "--parts" -> o.parts = List.of(v.split(","));
              case "--jmh-warmup" -> o.jmhWarmup = BenchSupport.positive(a, v, 0);
              case "--jmh-iterations" -> o.jmhIterations = BenchSupport.positive(a, v, 1);
              case "--jmh-verbose" -> o.jmhVerbose = Boolean.parseBoolean(v);
              case "--warmup" -> o.warmup = BenchSupport.positive(a, v, 0);
              case "--rounds" -> o.rounds = BenchSupport.positive(a, v, 1);
              case "--per-round" -> o.perRound = BenchSupport.positive(a, v, 1);
              case "--count-calls" -> o.countCalls = BenchSupport.positive(a, v, 1000);
              case "--count-seconds" -> o.countSeconds = BenchSupport.positive(a, v, 1);
              case "--shared-count-calls" -> o.sharedCountCalls = BenchSupport.positive(a, v, 1);
              case "--max-seconds" -> o.maxSeconds = BenchSupport.positive(a, v, 1);
              default -> {
                return false;
              }
            }
            return true;
          });
      for (String p : o.parts) {
        if (!List.of("jmh", "shared", "commands").contains(p)) {
          throw new IllegalArgumentException("--parts takes jmh,shared,commands but got " + p);
        }
      }
      return o;
    }
  }
}
