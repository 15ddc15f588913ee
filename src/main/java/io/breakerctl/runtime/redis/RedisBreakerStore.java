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
import io.breakerctl.runtime.store.StoreUnavailableException;
import io.breakerctl.runtime.store.WarmResult;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
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
   * Subscribes to the transitions and warmed policies of every breaker under this prefix (the
   * {@code <prefix>:events} channel; JSON messages), and to a beacon channel of its own ({@code
   * <prefix>:events:beacon:<random>}, see {@link Subscription#beacon}). {@code onSubscribed} runs
   * after every (re)subscription to the events channel, e.g. after a reconnect, when messages may
   * have been missed. Close the returned handle to unsubscribe. A subscription that fails closes
   * its connection.
   *
   * <p>On a Cluster the subscription is made on a master that owns slots, chosen at random:
   * Lettuce's own choice is the node with the fewest clients, often a replica, and a stalled
   * replica kept an override from 4 of 6 nodes for 25.7 s with every master healthy (issue 42).
   * Messages published anywhere reach every node of a Cluster, so any master hears them all.
   *
   * @throws StoreUnavailableException when the subscription cannot be made within the timeout
   */
  public Subscription subscribe(Consumer<String> onMessage, Runnable onSubscribed) {
    String events = conn.keys.channel();
    String beacon =
        events
            + ":beacon:"
            + Long.toString(java.util.concurrent.ThreadLocalRandom.current().nextLong() >>> 1, 36);
    RedisPubSubAdapter<String, String> listener =
        new RedisPubSubAdapter<>() {
          @Override
          public void message(String channel, String message) {
            onMessage.accept(message);
          }

          @Override
          public void subscribed(String channel, long count) {
            if (events.equals(channel)) {
              onSubscribed.run();
            }
          }
        };
    StatefulConnection<String, String> owned = null;
    try {
      StatefulRedisPubSubConnection<String, String> pubsub;
      if (conn.client instanceof RedisClusterClient cc) {
        StatefulRedisClusterPubSubConnection<String, String> cluster = cc.connectPubSub();
        owned = cluster;
        cluster.setNodeMessagePropagation(true);
        cluster.addListener(listener);
        pubsub = cluster.getConnection(subscriptionMaster(cluster.getPartitions()));
      } else {
        pubsub = ((RedisClient) conn.client).connectPubSub();
        owned = pubsub;
        pubsub.addListener(listener);
      }
      pubsub
          .async()
          .subscribe(events, beacon)
          .get(conn.timeout.toMillis() + 100, TimeUnit.MILLISECONDS);
      StatefulRedisPubSubConnection<String, String> c = pubsub;
      StatefulConnection<String, String> closing = owned;
      return new Subscription() {
        @Override
        public boolean isOpen() {
          return c.isOpen();
        }

        @Override
        public CompletableFuture<Long> publish(String message) {
          return RedisConnection.guard("publish", conn.commands.publish(events, message));
        }

        @Override
        public CompletableFuture<Long> beacon(String message) {
          return RedisConnection.guard("publish", conn.commands.publish(beacon, message));
        }

        @Override
        public void close() {
          closing.close();
        }
      };
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      RedisConnection.closeQuietly(owned);
      throw new StoreUnavailableException("subscribe to " + events + " interrupted", e);
    } catch (Exception e) {
      RedisConnection.closeQuietly(owned);
      throw StoreErrors.translate("subscribe to " + events, e);
    }
  }

  /**
   * A master that owns slots and is not flagged failing, at random (so a fleet's subscriptions
   * spread over the masters); the first node listed when the topology names none.
   */
  private static String subscriptionMaster(Iterable<RedisClusterNode> partitions) {
    List<RedisClusterNode> masters = new ArrayList<>();
    RedisClusterNode any = null;
    for (RedisClusterNode n : partitions) {
      any = any == null ? n : any;
      if (n.is(RedisClusterNode.NodeFlag.UPSTREAM)
          && !n.is(RedisClusterNode.NodeFlag.FAIL)
          && !n.is(RedisClusterNode.NodeFlag.EVENTUAL_FAIL)
          && !n.getSlots().isEmpty()) {
        masters.add(n);
      }
    }
    if (masters.isEmpty()) {
      if (any == null) {
        throw new StoreUnavailableException(
            "subscribe: the Cluster's topology names no node", null);
      }
      return any.getNodeId();
    }
    return masters
        .get(java.util.concurrent.ThreadLocalRandom.current().nextInt(masters.size()))
        .getNodeId();
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

  /**
   * Runs the client side of the scripts' calls: {@link #WARM_UP_CALLS} pipelined {@code EVAL}s of a
   * script that writes nothing and answers as the record script does (its fast path's answer and
   * its full one), with a record call's keys and arguments (on a breaker nobody uses), parsed as
   * its answers are, and one shaped as an acquire. A fresh JVM's first failures then run compiled
   * code through the encoder, the connection and the decoder: before, the first records ran that
   * path interpreted (nothing else sends a script in a node's first seconds but a few flushes), on
   * the path of the fleet's first trip. Costs Redis about 1 ms of CPU per registry start.
   */
  public CompletableFuture<Void> warmUp() {
    String[] k = conn.keys.scriptKeys(WARM_UP_ID);
    String[] args = scripts.scriptArgs("breakerctl-warm-up", null, "1", "0", "5", "", "", "");
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

  /** The node id of the master owning the slot of {@code id}'s keys ({@link #UNOWNED}: none). */
  @Override
  public String shardOf(BreakerId id) {
    if (conn.cluster == null) {
      return "";
    }
    RedisClusterNode node =
        conn.cluster.getPartitions().getPartitionBySlot(SlotHash.getSlot(conn.keys.hash(id)));
    return node == null ? UNOWNED : node.getNodeId();
  }

  /**
   * The shard of a breaker whose slot no master owns in the client's topology (its master failed
   * and no replica took over yet): its PING fails, so the breakers there stay degraded until a
   * topology read names an owner.
   */
  static final String UNOWNED = "unowned";

  /**
   * PINGs the master {@code shard} names (a Cluster node id). {@code ""} is the one server, or on a
   * Cluster the node's reach of it: the first master holding slots to answer (a PING without a key
   * goes to the seed the client first connected to, which may be the master that died).
   */
  @Override
  public CompletableFuture<String> ping(String shard) {
    if (conn.cluster == null) {
      return ping();
    }
    if (!shard.isEmpty()) {
      return RedisConnection.guard("PING " + shard, pingNode(shard));
    }
    CompletableFuture<String> first = new CompletableFuture<>();
    List<CompletableFuture<String>> all = new ArrayList<>();
    for (RedisClusterNode n : conn.cluster.getPartitions()) {
      if (n.is(RedisClusterNode.NodeFlag.UPSTREAM) && !n.getSlots().isEmpty()) {
        CompletableFuture<String> p = pingNode(n.getNodeId()).toCompletableFuture();
        p.thenAccept(first::complete);
        all.add(p);
      }
    }
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
        .whenComplete(
            (v, e) -> {
              if (e != null && all.stream().allMatch(CompletableFuture::isCompletedExceptionally)) {
                first.completeExceptionally(e);
              } else {
                first.complete("PONG");
              }
            });
    if (all.isEmpty()) {
      first.completeExceptionally(new IllegalStateException("no master holds slots"));
    }
    return RedisConnection.guard("PING", first);
  }

  private CompletionStage<String> pingNode(String nodeId) {
    try {
      return conn.cluster.getConnectionAsync(nodeId).thenCompose(c -> c.async().ping());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e); // a node the topology no longer lists
    }
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
            heartbeat == null ? "" : heartbeat.toJson())
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
            request.correlationId())
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
            policy.staticDefault().orElse(""))
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
