package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.AcquireResult;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.BreakerStore;
import io.breakerctl.runtime.store.NodeCallCounts;
import io.breakerctl.runtime.store.NodeHeartbeat;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.OverrideResult;
import io.breakerctl.runtime.store.PolicyEncoding;
import io.breakerctl.runtime.store.ReassertResult;
import io.breakerctl.runtime.store.Reassertion;
import io.breakerctl.runtime.store.RecordResult;
import io.breakerctl.runtime.store.RenewResult;
import io.breakerctl.runtime.store.StoreException;
import io.breakerctl.runtime.store.StorePermissionException;
import io.breakerctl.runtime.store.StoreTlsException;
import io.breakerctl.runtime.store.StoreUnavailableException;
import io.breakerctl.runtime.store.WarmResult;
import io.lettuce.core.RedisClient;
import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The Lua scripts' Java face on Lettuce: every state change of a breaker is one script call,
 * addressed by SHA-1. Works on a standalone server and on Redis Cluster (all keys of a breaker
 * share one hash tag, so each call goes to the master owning that slot).
 *
 * <p>Scripts are never loaded cluster-wide up front: a master that does not know a script answers
 * {@code NOSCRIPT} and the call is repeated once as {@code EVAL} with the body, routed by the same
 * key, which also caches it there. A cluster-wide {@code SCRIPT LOAD} would fail while any node is
 * down; this never touches other nodes.
 *
 * <p>Reads take no script (HGETALL, ZRANGE, XREVRANGE, TIME), so a read-only ACL user can call
 * {@link RedisFleetStore#snapshot}. All methods are asynchronous and bounded by the configured
 * timeout; failures arrive as {@link StoreUnavailableException}, {@link StorePermissionException}
 * or {@link StoreException}.
 *
 * <p>This is the node port ({@link BreakerStore}) only: the operators' reads and writes are {@link
 * RedisFleetStore}'s, over the same connection ({@link RedisFleetStore#over}); the connection is
 * {@link RedisConnector}'s and {@link RedisConnection}'s, the scripts' calls {@link
 * ScriptRunner}'s.
 */
public final class RedisBreakerStore implements BreakerStore {

  static {
    // before this class creates a Lettuce client: Lettuce's loggers are made as its classes load
    ReconnectLogLimit.install();
  }

  final RedisConnection conn;
  final ScriptRunner scripts;
  private final StoreCanary canary;

  private RedisBreakerStore(RedisConnection conn, Duration idleTtl) {
    this.conn = conn;
    this.scripts = new ScriptRunner(conn, idleTtl);
    this.canary = new StoreCanary(conn.keys, conn.commands, conn.cluster);
  }

  /**
   * Declares that this deployment forwards its history (a control plane with a history forwarder):
   * the scripts this store runs mark the breakers they write as forwarded ({@code history} in the
   * hash) and let events the forwarder has not stored hold a breaker's keys at most {@code hold}. A
   * store that declares nothing leaves a breaker as its keys say (no destination until a forwarder
   * stores its events): a bounded tail of events that holds nothing. Call it before the store is
   * used.
   *
   * @return this store
   */
  public RedisBreakerStore forwardsHistory(Duration hold) {
    if (hold.toMillis() < 1) {
      throw new IllegalArgumentException("history hold must be >= 1ms but was " + hold);
    }
    scripts.historyHold(hold);
    return this;
  }

  /**
   * Connects to Redis as configured. One URI that points at a cluster node connects to the whole
   * cluster; several URIs are cluster seed nodes; a {@code redis-sentinel://} URI connects to the
   * master the sentinels name. {@code rediss://} uses TLS, trusting {@link StoreConfig#caFile()}
   * when set; {@link StoreConfig#username()} and {@link StoreConfig#password()} replace the URI's
   * credentials when set.
   *
   * @throws StoreUnavailableException when no server answers within the timeout
   * @throws StorePermissionException when the credentials are refused
   * @throws StoreTlsException when a TLS connection fails for a named reason (an untrusted
   *     certificate, a hostname mismatch, a plain server behind {@code rediss://}, ...)
   * @throws IllegalArgumentException for a bad URI or a CA file that is missing, unreadable or
   *     holds no certificate (read only when a URI uses TLS)
   */
  public static RedisBreakerStore connect(StoreConfig config) {
    return new RedisBreakerStore(RedisConnector.connect(config), config.idleTtl());
  }

  /**
   * A store on a Lettuce client the caller owns: the store opens (and closes) its own connections
   * on it; the client's options (timeouts, disconnected behaviour) apply.
   */
  public static RedisBreakerStore create(
      RedisClient client, String prefix, Duration idleTtl, Duration timeout) {
    return new RedisBreakerStore(RedisConnector.create(client, prefix, timeout), idleTtl);
  }

  /**
   * A store on a Lettuce cluster client the caller owns (see {@link #create(RedisClient, String,
   * Duration, Duration)}).
   */
  public static RedisBreakerStore create(
      RedisClusterClient client, String prefix, Duration idleTtl, Duration timeout) {
    return new RedisBreakerStore(RedisConnector.create(client, prefix, timeout), idleTtl);
  }

  /**
   * Subscribes to the transitions and warmed policies of every breaker under this prefix and to a
   * beacon channel of its own ({@link EventSubscription#open}).
   *
   * @throws StoreUnavailableException when the subscription cannot be made within the timeout
   */
  @Override
  public Subscription subscribe(Consumer<String> onMessage, Runnable onSubscribed) {
    return EventSubscription.open(conn, onMessage, onSubscribed);
  }

  /**
   * The node id of the master owning the slot of {@code id}'s keys ({@link
   * RedisConnection#shardOf}).
   */
  @Override
  public String shardOf(BreakerId id) {
    return conn.shardOf(id);
  }

  /** PINGs the master {@code shard} names ({@link RedisConnection#ping(String)}). */
  @Override
  public CompletableFuture<String> ping(String shard) {
    return conn.ping(shard);
  }

  /** Reads a breaker's state hash with the Redis time (no leases, events or heartbeats). */
  public CompletableFuture<BreakerSnapshot> state(BreakerId id) {
    CompletableFuture<Map<String, String>> fields =
        conn.commands.hgetall(conn.keys.hash(id)).toCompletableFuture();
    CompletableFuture<Long> time = conn.timeAt(conn.keys.hash(id));
    return fields
        .thenCombine(
            time,
            (f, t) ->
                new BreakerSnapshot(id, new LinkedHashMap<>(f), List.of(), List.of(), List.of(), t))
        .handle(
            (v, err) -> {
              if (err != null) {
                throw StoreErrors.translate("read " + id, err);
              }
              return v;
            });
  }

  /** Warms the client side of the scripts' calls ({@link ScriptRunner#warmUp}). */
  @Override
  public CompletableFuture<Void> warmUp() {
    return scripts.warmUp();
  }

  @Override
  public CompletableFuture<List<String>> stamps(List<BreakerId> ids) {
    List<CompletableFuture<List<io.lettuce.core.KeyValue<String, String>>>> reads =
        new ArrayList<>(ids.size());
    for (BreakerId id : ids) {
      reads.add(
          conn.commands
              .hmget(conn.keys.hash(id), "generation", "epoch", "policyVersion")
              .toCompletableFuture());
    }
    return RedisConnection.guard(
        "read change stamps",
        CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new))
            .thenApply(
                v -> {
                  List<String> out = new ArrayList<>(reads.size());
                  for (CompletableFuture<List<io.lettuce.core.KeyValue<String, String>>> r :
                      reads) {
                    List<io.lettuce.core.KeyValue<String, String>> f = r.join();
                    out.add(
                        BreakerStore.stamp(
                            f.get(0).getValueOrElse(""),
                            f.get(1).getValueOrElse(""),
                            f.get(2).getValueOrElse("")));
                  }
                  return out;
                }));
  }

  /** See {@link BreakerStore#canary()} and {@link StoreCanary}. */
  @Override
  public CompletableFuture<String> canary() {
    return RedisConnection.guard("read the canary", canary.fingerprint());
  }

  /** The canary conn.keys, one per live master (what a test checks). */
  List<String> canaryKeys() {
    return canary.canaries().stream().map(c -> c[0]).toList();
  }

  /** Round-trips a PING (health check of the connection). */
  public CompletableFuture<String> ping() {
    return RedisConnection.guard("PING", conn.commands.ping());
  }

  @Override
  public void refreshShards(Duration limit) {
    conn.refreshTopology(limit);
  }

  @Override
  public CompletableFuture<String> hotGet(BreakerId id, String field) {
    return RedisConnection.guard(
        "GET hot fallback data of " + id, conn.commands.get(conn.keys.hot(id, field)));
  }

  @Override
  public CompletableFuture<Void> hotPut(BreakerId id, String field, String value, Duration ttl) {
    return RedisConnection.guard(
            "SET hot fallback data of " + id,
            conn.commands.set(conn.keys.hot(id, field), value, SetArgs.Builder.px(ttl.toMillis())))
        .thenApply(ok -> null);
  }

  @Override
  public CompletableFuture<Void> hotDelete(BreakerId id, String field) {
    return RedisConnection.guard(
            "DEL hot fallback data of " + id, conn.commands.del(conn.keys.hot(id, field)))
        .thenApply(n -> null);
  }

  @Override
  public CompletableFuture<Long> alive(String node, Duration validFor) {
    String[] k = {conn.keys.alive(), conn.keys.calls(node)};
    String[] args = {
      node,
      scripts.idleTtlMillis(),
      PolicyEncoding.NO_POLICY,
      Long.toString(validFor.toMillis()),
      ""
    };
    return scripts
        .evalsha(BreakerScript.ALIVE, k[0], k, args)
        .thenApply(r -> ScriptAnswers.num(r, 0));
  }

  @Override
  public CompletableFuture<Long> alive(String node, Duration validFor, NodeCallCounts calls) {
    return alive(node, validFor, calls, "");
  }

  @Override
  public CompletableFuture<Long> alive(
      String node, Duration validFor, NodeCallCounts calls, String session) {
    String[] k = {conn.keys.alive(), conn.keys.calls(node), conn.keys.sessions()};
    String[] args = {
      node,
      scripts.idleTtlMillis(),
      PolicyEncoding.NO_POLICY,
      Long.toString(validFor.toMillis()),
      calls.toJson(),
      session
    };
    return scripts
        .evalsha(BreakerScript.ALIVE, k[0], k, args)
        .thenApply(r -> ScriptAnswers.num(r, 0));
  }

  /**
   * Asks for permission to call. {@code policy} applies while no policy is warmed into the
   * breaker's hash.
   */
  public CompletableFuture<AcquireResult> acquire(BreakerId id, String node, Policy policy) {
    return acquire(id, node, policy, "");
  }

  /**
   * Asks for permission to call, naming the probe lease a grant in HALF_OPEN gets ({@code leaseId};
   * empty: the script numbers it). The lean form never grants one, and the full form is sent only
   * after its answer, so once this future completes, a release sent afterwards on this connection
   * runs after whatever the acquire did.
   */
  public CompletableFuture<AcquireResult> acquire(
      BreakerId id, String node, Policy policy, String leaseId) {
    ScriptRunner.Target t = scripts.target(id);
    if (!t.lastClosed) {
      return full(t, id, node, policy, leaseId);
    }
    // The lean form (acquire.lua): the hash key alone and no arguments, answered on the closed
    // fast path; a breaker that is not closed answers {-1} and gets the full form at once.
    return scripts
        .evalsha(BreakerScript.ACQUIRE, id.toString(), t.hashOnly, ScriptRunner.NO_ARGS)
        .thenCompose(
            r ->
                ScriptAnswers.isLeanRefusal(r)
                    ? full(t, id, node, policy, leaseId)
                    : CompletableFuture.completedFuture(ScriptAnswers.acquire(r)));
  }

  private CompletableFuture<AcquireResult> full(
      ScriptRunner.Target t, BreakerId id, String node, Policy policy, String leaseId) {
    // an empty lease id is the script's "none": it numbers the lease itself
    return scripts
        .run(BreakerScript.ACQUIRE, id, node, policy, leaseId)
        .thenApply(
            r -> {
              AcquireResult a = ScriptAnswers.acquire(r);
              t.lastClosed = a.state() == State.CLOSED;
              return a;
            });
  }

  /** Records outcomes. {@code policy} applies while no policy is warmed. */
  public CompletableFuture<RecordResult> record(BreakerId id, Outcome outcome, Policy policy) {
    return record(id, outcome, policy, null);
  }

  /**
   * Records outcomes and, when {@code heartbeat} is not null, the node's heartbeat for the fleet
   * view (a node sends it with its batched flush).
   */
  public CompletableFuture<RecordResult> record(
      BreakerId id, Outcome outcome, Policy policy, NodeHeartbeat heartbeat) {
    return scripts
        .run(
            BreakerScript.RECORD,
            id,
            outcome.node(),
            policy,
            Long.toString(outcome.failures()),
            Long.toString(outcome.successes()),
            outcome.durationMillis() < 0 ? "" : Long.toString(outcome.durationMillis()),
            outcome.generation(),
            outcome.leaseId(),
            heartbeat == null ? "" : heartbeat.toJson(),
            outcome.hint() == null ? "" : Long.toString(outcome.hint().millis()),
            outcome.hint() == null ? "" : outcome.hint().source().name())
        .thenApply(ScriptAnswers::record);
  }

  /**
   * Keeps the lease of a probe this node is running alive ({@code renew.lua}), or ends a probe that
   * ran past {@code maxProbeMillis}. {@code policy} applies while no policy is warmed.
   */
  @Override
  public CompletableFuture<RenewResult> renew(
      BreakerId id, String node, Policy policy, String leaseId, String generation) {
    return scripts
        .run(BreakerScript.RENEW, id, node, policy, leaseId, generation)
        .thenApply(ScriptAnswers::renew);
  }

  /** Sets, changes or clears an override; works on a breaker no node has used yet. */
  public CompletableFuture<OverrideResult> override(BreakerId id, OverrideRequest request) {
    return scripts
        .run(
            BreakerScript.OVERRIDE,
            id,
            request.actor(),
            null,
            request.kind().name(),
            request.reason(),
            Long.toString(request.duration().toMillis()),
            request.correlationId(),
            request.keep() ? "1" : "")
        .thenApply(ScriptAnswers::override);
  }

  /**
   * Puts back a trip or an override Redis lost, or publishes a trip made while degraded ({@code
   * reassert.lua}). {@code policy} applies while no policy is warmed.
   */
  public CompletableFuture<ReassertResult> reassert(
      BreakerId id, String node, Reassertion request, Policy policy) {
    return scripts
        .run(BreakerScript.REASSERT, id, node, policy, ScriptAnswers.reassertArguments(request))
        .thenApply(ScriptAnswers::reassert);
  }

  /** The mode argument of {@code warm.lua} that takes a policy out. */
  private static final String UNWARM_MODE = "UNWARM";

  /**
   * Warms a resolved policy version into the breaker's keys. For the same policy id an older or
   * equal version never replaces a newer one.
   */
  public CompletableFuture<WarmResult> warm(
      BreakerId id, String policyId, long version, Policy policy, String actor) {
    return scripts
        .run(
            BreakerScript.WARM,
            id,
            actor,
            policy,
            policyId,
            Long.toString(version),
            policy.storeFailureMode().name(),
            policy.fallbackPolicy().name(),
            policy.staticDefault().orElse(""),
            policy.criticality().name(),
            policy.rateLimited().name())
        .thenApply(ScriptAnswers::warm);
  }

  /**
   * Un-warms a removed policy (warm.lua's un-warm mode): when the breaker holds {@code policyId} at
   * {@code removedAt} or an older version, its warmed policy is deleted (the nodes run their
   * defaults again) and a policy message is published; a breaker holding another policy or a newer
   * version is left alone. A later warm of {@code policyId} at or below {@code removedAt} is then
   * refused as stale.
   *
   * @param removedAt the version that removed the policy (its deletion, or the expired temporary
   *     version nothing replaces)
   */
  public CompletableFuture<WarmResult> unwarm(
      BreakerId id, String policyId, long removedAt, String actor) {
    return scripts
        .run(
            BreakerScript.WARM,
            id,
            actor,
            null,
            policyId,
            Long.toString(removedAt),
            UNWARM_MODE,
            "")
        .thenApply(ScriptAnswers::warm);
  }

  /**
   * Sends the script calls {@code work} makes from this thread in one write per master ({@link
   * ScriptRunner#batch}).
   */
  @Override
  public void batch(Runnable work) {
    scripts.batch(work);
  }

  /**
   * The servers this store connected to, as {@code host:port} (a sentinel as {@code
   * host:port/master}), sorted; no credentials. Empty for a store on a client the caller owns. The
   * deployment check of {@code replay restore} compares them with those a deployment was seen at.
   */
  public List<String> addresses() {
    return conn.addresses();
  }

  /** The bound of each command, as configured. */
  Duration commandTimeout() {
    return conn.timeout;
  }

  @Override
  public void close() {
    conn.close();
  }
}
