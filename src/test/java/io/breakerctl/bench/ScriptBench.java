package io.breakerctl.bench;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.RenewOutcome;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.AcquireResult;
import io.breakerctl.runtime.store.NodeHeartbeat;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.RecordResult;
import io.breakerctl.runtime.store.RenewResult;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisServerProcess;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Benchmark (not a test; run it with {@code scripts/bench scripts}): what one breaker script call
 * costs compared with a bare round trip, seen from the caller and from Redis.
 *
 * <p>It starts its own redis-server (loopback, free port) through the test fixture and opens ONE
 * Lettuce connection with {@link RedisFleetStore#connect}. On that same connection it measures, one
 * call at a time from one thread:
 *
 * <ul>
 *   <li>{@code ping} — {@code async().ping().toCompletableFuture().join()}: the floor, through the
 *       same asynchronous API the store uses;
 *   <li>{@code acquire} — {@code store.acquire(...).join()} on the closed path (a breaker in CLOSED
 *       without an override, created by recording one success first), which the store sends in
 *       acquire.lua's lean form (the hash key alone) since it last saw the breaker CLOSED;
 *   <li>{@code record} — {@code store.record(id, Outcome.failure(node, ""), policy).join()} on a
 *       breaker whose {@code failureThreshold} (1,000,000) is never reached during the run
 *       (record.lua's fast path, except when the window's bucket moves);
 *   <li>{@code flush} — a node's batched flush: {@code store.record(id, Outcome.successes(node,
 *       25), policy, heartbeat)}, what every HYBRID node sends per breaker every second
 *       (informational: no target; the fleet's steady Redis load);
 *   <li>{@code ping-sync} — {@code sync().ping()}, for reference only.
 * </ul>
 *
 * <p>Each operation is warmed up, then measured in interleaved rounds whose order rotates, so
 * machine noise hits every operation alike. It reports p50 and p99 in µs and the ratios
 * acquire/PING and record/PING from the p50s of the same run.
 *
 * <p>Redis CPU per call comes from {@code INFO commandstats}: {@code CONFIG RESETSTAT}, N calls of
 * one kind only, then {@code usec / calls} of {@code cmdstat_evalsha} (and of {@code cmdstat_ping}
 * for PING). The commands a script runs inside ({@code redis.call}) are listed too, which shows
 * where a script's time goes. The run ends with a "targets" block (PASS/FAIL per line); it is a
 * report and always exits 0 unless the benchmark itself breaks.
 *
 * <p>Options: {@code --redis PATH} (default: redis-server on PATH if &gt;= 6.2, else the embedded
 * 6.2 binary), {@code --warmup N} (20000), {@code --rounds R} (10), {@code --per-round N} (5000),
 * {@code --cpu-calls N} (20000), {@code --max-seconds S} (120; measurement stops early past it),
 * {@code --history-hold MS} (the store declares a history destination with that hold, as a node
 * with a control plane does: ARGV[2] becomes {@code <idle>:<hold>}; default: none declared).
 */
public final class ScriptBench {

  private static final double ACQUIRE_MAX_RATIO = 1.6;
  private static final double ACQUIRE_MAX_CPU_US = 8;
  private static final double RECORD_MAX_RATIO = 3.0;
  private static final double RECORD_MAX_CPU_US = 20;

  private static final String NODE = "bench-node-1";

  private final Options opt;
  private final long deadline;

  private ScriptBench(Options opt) {
    this.opt = opt;
    this.deadline = System.nanoTime() + Duration.ofSeconds(opt.maxSeconds).toNanos();
  }

  /** Runs the benchmark; see the class comment for options. */
  public static void main(String[] args) throws Exception {
    Options opt = Options.parse(args);
    new ScriptBench(opt).run();
  }

  /** A call measured by the benchmark. */
  @FunctionalInterface
  private interface Op {
    void call();
  }

  private void run() throws InterruptedException {
    RedisBinary binary = BenchSupport.binary(opt.redis);
    BenchSupport.header("scripts", binary, opt.redis != null);
    System.out.printf(
        "plan:   warm-up %,d calls each; %d rounds x %,d calls per op, rotating order; Redis CPU"
            + " over %,d calls each%n",
        opt.warmup, opt.rounds, opt.perRound, opt.cpuCalls);

    try (RedisServerProcess server = RedisServerProcess.start(binary);
        RedisFleetStore store =
            declared(
                RedisFleetStore.connect(
                    StoreConfig.builder().uri(server.uri()).timeout(Duration.ofSeconds(5)).build()),
                opt.historyHoldMillis)) {
      @SuppressWarnings("unchecked")
      StatefulRedisConnection<String, String> conn =
          (StatefulRedisConnection<String, String>) store.connection();
      RedisAsyncCommands<String, String> async = conn.async();
      RedisCommands<String, String> sync = conn.sync();

      BreakerId acquireId = BreakerId.parse("bench:acquire");
      BreakerId recordId = BreakerId.parse("bench:record");
      BreakerId flushId = BreakerId.parse("bench:flush");
      NodeHeartbeat beat = new NodeHeartbeat(NODE, State.CLOSED, "", 0, false, 0);
      Policy policy = Policy.builder().failureThreshold(1_000_000).build();

      // The closed acquire path needs an existing CLOSED breaker: one success creates it.
      store.record(acquireId, Outcome.success(NODE, "", 5), policy).join();
      store.record(recordId, Outcome.success(NODE, "", 5), policy).join();
      store.record(flushId, Outcome.success(NODE, "", 5), policy).join();
      Outcome failure = Outcome.failure(NODE, "");

      Map<String, Op> ops = new LinkedHashMap<>();
      ops.put("ping", () -> async.ping().toCompletableFuture().join());
      ops.put(
          "acquire",
          () -> {
            AcquireResult r = store.acquire(acquireId, NODE, policy).join();
            if (!r.allowed()) {
              throw new IllegalStateException("acquire was not on the closed path: " + r);
            }
          });
      ops.put(
          "record",
          () -> {
            RecordResult r = store.record(recordId, failure, policy).join();
            if (r.transitioned()) {
              throw new IllegalStateException("record tripped the breaker: " + r);
            }
          });
      Outcome batch = Outcome.successes(NODE, 25);
      ops.put("flush", () -> store.record(flushId, batch, policy, beat).join());

      // A probe that runs long: its node renews its lease (renew.lua) while other nodes' acquires
      // find the slot taken (acquire.lua's half-open path, PROBES_BUSY): what a renewal costs next
      // to the acquires it stands beside.
      BreakerId renewId = BreakerId.parse("bench:renew");
      Policy probing =
          Policy.builder()
              .failureThreshold(1)
              .open(Duration.ofMillis(1))
              .probeLease(Duration.ofSeconds(60))
              .maxProbe(Duration.ZERO)
              .build();
      store.record(renewId, failure, probing).join();
      Thread.sleep(5);
      AcquireResult probe = store.acquire(renewId, NODE, probing).join();
      if (!probe.allowed() || probe.leaseId().isEmpty()) {
        throw new IllegalStateException("no probe lease for the renewal bench: " + probe);
      }
      ops.put(
          "renew",
          () -> {
            RenewResult r =
                store.renew(renewId, NODE, probing, probe.leaseId(), probe.generation()).join();
            if (r.outcome() != RenewOutcome.RENEWED) {
              throw new IllegalStateException("the renewal was refused: " + r);
            }
          });
      ops.put(
          "acq-busy",
          () -> {
            AcquireResult r = store.acquire(renewId, "bench-other", probing).join();
            if (r.allowed()) {
              throw new IllegalStateException("a second probe was granted: " + r);
            }
          });
      ops.put("ping-sync", sync::ping);

      // Warm-up: JIT, Netty buffers, script cache (first EVALSHA may answer NOSCRIPT).
      for (Op op : ops.values()) {
        for (int i = 0; i < opt.warmup && !late(); i++) {
          op.call();
        }
      }

      // Interleaved rounds, rotating order.
      List<String> names = new ArrayList<>(ops.keySet());
      Map<String, long[]> samples = new LinkedHashMap<>();
      Map<String, Integer> counts = new LinkedHashMap<>();
      for (String n : names) {
        samples.put(n, new long[opt.rounds * opt.perRound]);
        counts.put(n, 0);
      }
      int roundsDone = 0;
      for (int r = 0; r < opt.rounds && !late(); r++) {
        for (int k = 0; k < names.size(); k++) {
          String name = names.get((r + k) % names.size());
          Op op = ops.get(name);
          long[] s = samples.get(name);
          int c = counts.get(name);
          for (int i = 0; i < opt.perRound; i++) {
            long t0 = System.nanoTime();
            op.call();
            s[c++] = System.nanoTime() - t0;
          }
          counts.put(name, c);
        }
        roundsDone++;
      }

      // Redis CPU per call, one kind of call at a time.
      Cpu pingCpu = cpu(server, "ping", ops.get("ping"));
      Cpu acquireCpu = cpu(server, "evalsha", ops.get("acquire"));
      Cpu recordCpu = cpu(server, "evalsha", ops.get("record"));
      Cpu flushCpu = cpu(server, "evalsha", ops.get("flush"));
      Cpu renewCpu = cpu(server, "evalsha", ops.get("renew"));
      Cpu busyCpu = cpu(server, "evalsha", ops.get("acq-busy"));

      report(
          samples, counts, roundsDone, pingCpu, acquireCpu, recordCpu, flushCpu, renewCpu, busyCpu);
    }
  }

  private boolean late() {
    return System.nanoTime() > deadline;
  }

  /** Redis CPU of one kind of call: the main command and what ran inside it. */
  private record Cpu(long calls, double usPerCall, Map<String, double[]> inner) {}

  private Cpu cpu(RedisServerProcess server, String command, Op op) {
    server.call("CONFIG", "RESETSTAT");
    for (int i = 0; i < opt.cpuCalls; i++) {
      op.call();
    }
    Map<String, long[]> stats = server.commandStats();
    long[] main = stats.getOrDefault(command, new long[2]);
    Map<String, double[]> inner = new TreeMap<>();
    for (Map.Entry<String, long[]> e : stats.entrySet()) {
      String name = e.getKey();
      if (name.equals(command) || name.startsWith("config") || name.startsWith("info")) {
        continue;
      }
      long calls = e.getValue()[0];
      // per main call: how many, and µs per main call
      inner.put(
          name,
          new double[] {
            calls / (double) Math.max(1, main[0]), e.getValue()[1] / (double) Math.max(1, main[0])
          });
    }
    return new Cpu(main[0], main[1] / (double) Math.max(1, main[0]), inner);
  }

  private void report(
      Map<String, long[]> samples,
      Map<String, Integer> counts,
      int roundsDone,
      Cpu pingCpu,
      Cpu acquireCpu,
      Cpu recordCpu,
      Cpu flushCpu,
      Cpu renewCpu,
      Cpu busyCpu) {
    Map<String, double[]> p = new LinkedHashMap<>();
    for (Map.Entry<String, long[]> e : samples.entrySet()) {
      int n = counts.get(e.getKey());
      long[] s = BenchSupport.sorted(e.getValue(), n);
      double mean = Arrays.stream(s).average().orElse(Double.NaN) / 1000.0;
      p.put(
          e.getKey(),
          new double[] {
            BenchSupport.quantile(s, n, 0.50) / 1000.0,
            BenchSupport.quantile(s, n, 0.99) / 1000.0,
            mean,
            n
          });
    }
    Map<String, Cpu> cpus =
        Map.of(
            "ping",
            pingCpu,
            "acquire",
            acquireCpu,
            "record",
            recordCpu,
            "flush",
            flushCpu,
            "renew",
            renewCpu,
            "acq-busy",
            busyCpu);
    double ping50 = p.get("ping")[0];

    System.out.println();
    if (roundsDone < opt.rounds) {
      System.out.printf(
          "NOTE: stopped after %d of %d rounds (--max-seconds %d)%n",
          roundsDone, opt.rounds, opt.maxSeconds);
    }
    System.out.printf(
        "%-10s %8s %9s %9s %9s %9s %12s%n",
        "op", "calls", "p50 us", "p99 us", "mean us", "p50/PING", "Redis us/call");
    for (Map.Entry<String, double[]> e : p.entrySet()) {
      double[] v = e.getValue();
      Cpu c = cpus.get(e.getKey());
      System.out.printf(
          "%-10s %,8d %9.1f %9.1f %9.1f %8.2fx %12s%n",
          e.getKey(),
          (long) v[3],
          v[0],
          v[1],
          v[2],
          v[0] / ping50,
          c == null ? "-" : String.format(Locale.ROOT, "%.2f", c.usPerCall()));
    }
    System.out.println();
    System.out.println("Redis CPU inside the scripts (commandstats, per script call: count x us):");
    innerLine("acquire", acquireCpu);
    innerLine("record", recordCpu);
    innerLine("flush", flushCpu);
    innerLine("renew", renewCpu);
    innerLine("acq-busy", busyCpu);

    double acq50 = p.get("acquire")[0];
    double rec50 = p.get("record")[0];
    System.out.println();
    System.out.println("targets:");
    BenchSupport.target(
        "acquire p50 <= 1.6x PING", acq50 / ping50 <= ACQUIRE_MAX_RATIO, "%.2fx", acq50 / ping50);
    BenchSupport.target(
        "acquire Redis CPU <= 8 us",
        acquireCpu.usPerCall() <= ACQUIRE_MAX_CPU_US,
        "%.2f us",
        acquireCpu.usPerCall());
    BenchSupport.target(
        "record p50 <= 3x PING", rec50 / ping50 <= RECORD_MAX_RATIO, "%.2fx", rec50 / ping50);
    BenchSupport.target(
        "renew Redis CPU <= 1.5x a half-open acquire's (acq-busy)",
        renewCpu.usPerCall() <= 1.5 * busyCpu.usPerCall(),
        "%.2f us vs %.2f us",
        renewCpu.usPerCall(),
        busyCpu.usPerCall());
    BenchSupport.target(
        "record Redis CPU <= 20 us",
        recordCpu.usPerCall() <= RECORD_MAX_CPU_US,
        "%.2f us",
        recordCpu.usPerCall());
  }

  private static void innerLine(String name, Cpu c) {
    StringBuilder b = new StringBuilder();
    for (Map.Entry<String, double[]> e : c.inner().entrySet()) {
      b.append(
          String.format(
              Locale.ROOT, "  %s %.2fx %.2f", e.getKey(), e.getValue()[0], e.getValue()[1]));
    }
    System.out.printf("  %-8s evalsha %.2f us =%s%n", name, c.usPerCall(), b);
  }

  private static RedisFleetStore declared(RedisFleetStore store, int holdMillis) {
    if (holdMillis > 0) {
      System.out.printf("history: destination declared, hold %d ms%n", holdMillis);
      return store.forwardsHistory(Duration.ofMillis(holdMillis));
    }
    return store;
  }

  private static final class Options {
    String redis;
    int historyHoldMillis;
    int warmup = 20_000;
    int rounds = 10;
    int perRound = 5_000;
    int cpuCalls = 20_000;
    int maxSeconds = 120;

    static Options parse(String[] args) {
      Options o = new Options();
      BenchSupport.parse(
          args,
          (a, v) -> {
            switch (a) {
              case "--redis" -> o.redis = v;
              case "--warmup" -> o.warmup = BenchSupport.positive(a, v, 0);
              case "--rounds" -> o.rounds = BenchSupport.positive(a, v, 1);
              case "--per-round" -> o.perRound = BenchSupport.positive(a, v, 1);
              case "--cpu-calls" -> o.cpuCalls = BenchSupport.positive(a, v, 1);
              case "--max-seconds" -> o.maxSeconds = BenchSupport.positive(a, v, 1);
              case "--history-hold" -> o.historyHoldMillis = BenchSupport.positive(a, v, 1);
              default -> {
                return false;
              }
            }
            return true;
          });
      return o;
    }
  }
}
