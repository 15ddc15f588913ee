package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.store.PolicyEncoding;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.RedisCommand;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Runs the Lua scripts of one store ({@link BreakerScript}): by SHA with an {@code EVAL} fallback
 * on {@code NOSCRIPT}, each with its breaker's keys (built once per breaker) and the common
 * arguments (actor, idle TTL with the history hold, the caller's policy encoded once), alone or in
 * a {@link #batch} that sends a thread's calls in one write per master.
 */
final class ScriptRunner {

  /**
   * A breaker as the scripts address it: its keys (built once), the lean acquire's one key, and
   * whether this store last saw it CLOSED (then acquire sends the lean form first).
   */
  static final class Target {
    final String[] keys;
    final String[] hashOnly;
    volatile boolean lastClosed = true;

    Target(String[] keys) {
      this.keys = keys;
      this.hashOnly = new String[] {keys[0]};
    }
  }

  static final String[] NO_ARGS = {};

  private final RedisConnection conn;
  private final String idleTtlMillis;
  private volatile String expiryArg;
  private final Map<Policy, String> policyArgs = new ConcurrentHashMap<>();
  private final Map<BreakerId, Target> targets = new ConcurrentHashMap<>();

  ScriptRunner(RedisConnection conn, Duration idleTtl) {
    this.conn = conn;
    this.idleTtlMillis = Long.toString(idleTtl.toMillis());
    this.expiryArg = idleTtlMillis;
  }

  /** The idle TTL argument of the scripts that take no history hold ({@code alive.lua}, leases). */
  String idleTtlMillis() {
    return idleTtlMillis;
  }

  /** Declares the history hold ({@link RedisBreakerStore#forwardsHistory}). */
  void historyHold(Duration hold) {
    this.expiryArg = idleTtlMillis + ":" + hold.toMillis();
  }

  Target target(BreakerId id) {
    Target t = targets.get(id);
    return t != null ? t : targets.computeIfAbsent(id, i -> new Target(conn.keys.scriptKeys(i)));
  }

  CompletableFuture<List<Object>> run(
      BreakerScript script, BreakerId id, String actor, Policy policy, String... extra) {
    return evalsha(script, id.toString(), target(id).keys, scriptArgs(actor, policy, extra));
  }

  /**
   * A script's ARGV: the actor, the idle TTL (with the history hold when declared), the policy (or
   * none), then its own arguments.
   */
  String[] scriptArgs(String actor, Policy policy, String... extra) {
    String[] args = new String[3 + extra.length];
    args[0] = actor;
    args[1] = expiryArg;
    args[2] =
        policy == null
            ? PolicyEncoding.NO_POLICY
            : policyArgs.computeIfAbsent(policy, PolicyEncoding::toArg);
    System.arraycopy(extra, 0, args, 3, extra.length);
    return args;
  }

  CompletableFuture<List<Object>> evalsha(
      BreakerScript script, String target, String[] k, String[] args) {
    // One stage on the common path: the EVALSHA answer completes the result directly; only a
    // NOSCRIPT answer (a master that has not cached the script yet) sends the body with EVAL.
    CompletableFuture<List<Object>> result = new CompletableFuture<>();
    CompletionStage<List<Object>> first = batched(script, k, args);
    if (first == null) {
      first = conn.commands.evalsha(script.sha(), ScriptOutputType.MULTI, k, args);
    }
    first.whenComplete(
        (v, e) -> {
          if (e == null) {
            result.complete(v);
          } else if (StoreErrors.unwrap(e) instanceof RedisNoScriptException) {
            RedisFuture<List<Object>> again =
                conn.commands.eval(script.body(), ScriptOutputType.MULTI, k, args);
            again.whenComplete(
                (v2, e2) -> {
                  if (e2 == null) {
                    result.complete(v2);
                  } else {
                    result.completeExceptionally(StoreErrors.translate(label(script, target), e2));
                  }
                });
          } else {
            result.completeExceptionally(StoreErrors.translate(label(script, target), e));
          }
        });
    return result;
  }

  /**
   * The script calls of a {@link #batch} running on this thread, by the connection (the master)
   * they go to; null outside one.
   */
  private final ThreadLocal<
          Map<StatefulRedisConnection<String, String>, List<RedisCommand<String, String, ?>>>>
      batching = new ThreadLocal<>();

  /**
   * Sends the script calls {@code work} makes from this thread in one write per master: each
   * master's commands go to its connection together ({@code dispatch} of the list: one flush). On a
   * Cluster they go to the node connection of their slot's master; a command answered {@code MOVED}
   * or {@code ASK} (the slot moved meanwhile) goes again through the cluster connection, which
   * follows the redirect. Each call is bounded by the command timeout as alone.
   */
  public void batch(Runnable work) {
    if (batching.get() != null) {
      work.run();
      return;
    }
    Map<StatefulRedisConnection<String, String>, List<RedisCommand<String, String, ?>>> pending =
        new LinkedHashMap<>();
    batching.set(pending);
    try {
      work.run();
    } finally {
      batching.remove();
      pending.forEach(
          (c, list) -> {
            try {
              c.dispatch(list);
            } catch (RuntimeException e) {
              list.forEach(cmd -> cmd.completeExceptionally(e));
            }
          });
    }
  }

  /** The call queued in the running batch, else null (no batch, or no master for its slot). */
  private CompletionStage<List<Object>> batched(BreakerScript script, String[] k, String[] args) {
    Map<StatefulRedisConnection<String, String>, List<RedisCommand<String, String, ?>>> pending =
        batching.get();
    if (pending == null) {
      return null;
    }
    StatefulRedisConnection<String, String> via = conn.masterOf(k[0]);
    if (via == null) {
      return null;
    }
    AsyncCommand<String, String, List<Object>> cmd =
        new AsyncCommand<>(
            new Command<>(
                CommandType.EVALSHA,
                new NestedMultiOutput<>(StringCodec.UTF8),
                new CommandArgs<>(StringCodec.UTF8)
                    .add(script.sha())
                    .add(k.length)
                    .addKeys(k)
                    .addValues(args)));
    pending.computeIfAbsent(via, x -> new ArrayList<>()).add(cmd);
    return cmd.orTimeout(conn.timeout.toMillis(), TimeUnit.MILLISECONDS)
        .exceptionallyCompose(
            e ->
                conn.cluster != null && redirected(e)
                    ? conn.commands.evalsha(script.sha(), ScriptOutputType.MULTI, k, args)
                    : CompletableFuture.failedFuture(e));
  }

  private static boolean redirected(Throwable e) {
    Throwable t = StoreErrors.unwrap(e);
    String m = t instanceof RedisCommandExecutionException ? t.getMessage() : null;
    return m != null && (m.startsWith("MOVED") || m.startsWith("ASK"));
  }

  private static String label(BreakerScript script, String target) {
    return script.file().replace(".lua", "") + " " + target;
  }

  /**
   * Runs the client side of the scripts' calls: {@link #WARM_UP_CALLS} pipelined {@code EVAL}s of a
   * script that writes nothing and answers as the record script does (its fast path's answer and
   * its full one), with a record call's keys and arguments (on a breaker nobody uses), parsed as
   * its answers are, and one shaped as an acquire. A fresh JVM's first failures then run compiled
   * code through the encoder, the connection and the decoder: before, the first records ran that
   * path interpreted (nothing else sends a script in a node's first seconds but a few flushes), on
   * the path of the fleet's first trip. Costs Redis about 1 ms of CPU per registry start.
   */
  CompletableFuture<Void> warmUp() {
    String[] k = conn.keys.scriptKeys(WARM_UP_ID);
    String[] args = scriptArgs("breakerctl-warm-up", null, "1", "0", "5", "", "", "");
    List<CompletableFuture<?>> calls = new ArrayList<>(WARM_UP_CALLS + 1);
    for (int i = 0; i < WARM_UP_CALLS; i++) {
      calls.add(
          conn.commands
              .<List<Object>>eval(
                  // both answers record.lua gives: the fast path's (a failure counted in CLOSED,
                  // what a fleet's first failures get) and the full one (the trip)
                  i % 3 == 2
                      ? "return {'OPEN', 5, 5, 1, '1', '1796189124697-0', '1796189124614293', 1,"
                          + " 'COUNTED', 1796189154697}"
                      : "return {4, 20, '1', '1796189124614293'}",
                  ScriptOutputType.MULTI,
                  k,
                  args)
              .toCompletableFuture()
              .thenApply(ScriptAnswers::record));
    }
    calls.add(
        conn.commands
            .<List<Object>>eval("return {1, '0', '1'}", ScriptOutputType.MULTI, k, args)
            .toCompletableFuture()
            .thenApply(ScriptAnswers::acquire));
    return RedisConnection.guard(
        "warm up", CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)));
  }

  /** How many record-shaped calls {@link #warmUp} sends: enough for the JIT to compile them. */
  static final int WARM_UP_CALLS = 300;

  /** The breaker nobody uses whose keys {@link #warmUp} sends (never written). */
  static final BreakerId WARM_UP_ID = BreakerId.parse("breakerctl-warm-up:record-path");
}
