package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.store.AcquireResult;
import io.breakerctl.runtime.store.BreakerEvent;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.FleetCallRates;
import io.breakerctl.runtime.store.FleetStore;
import io.breakerctl.runtime.store.ForwardResult;
import io.breakerctl.runtime.store.ForwardState;
import io.breakerctl.runtime.store.LostAnswerException;
import io.breakerctl.runtime.store.MalformedBreakerException;
import io.breakerctl.runtime.store.NodeCallCounts;
import io.breakerctl.runtime.store.NodeHeartbeat;
import io.breakerctl.runtime.store.NodeLiveness;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.OverrideResult;
import io.breakerctl.runtime.store.PolicyEncoding;
import io.breakerctl.runtime.store.ProbeLease;
import io.breakerctl.runtime.store.ReassertResult;
import io.breakerctl.runtime.store.Reassertion;
import io.breakerctl.runtime.store.RecordResult;
import io.breakerctl.runtime.store.RenewResult;
import io.breakerctl.runtime.store.ReplicaAcks;
import io.breakerctl.runtime.store.RestoreRequest;
import io.breakerctl.runtime.store.RestoreResult;
import io.breakerctl.runtime.store.StoreException;
import io.breakerctl.runtime.store.StoreFault;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.runtime.store.StorePermissionException;
import io.breakerctl.runtime.store.StoreUnavailableException;
import io.breakerctl.runtime.store.WarmResult;
import io.breakerctl.runtime.store.WriteLanding;
import io.breakerctl.runtime.store.WriteOutcome;
import io.breakerctl.runtime.store.Written;
import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The operators' port ({@link FleetStore}) on Redis: the node port of a {@link RedisBreakerStore}
 * and, over its connection, what the CLI, the console, the sandbox and the control plane read and
 * write beside it (snapshots, event tails, liveness, forwarding, restores, read-backs, replica
 * acknowledgements, permission checks). Reads take no script (HGETALL, ZRANGE, XREVRANGE, TIME), so
 * a read-only ACL user can call {@link #snapshot}.
 */
public final class RedisFleetStore implements FleetStore {
  private final RedisBreakerStore node;
  private final RedisConnection conn;
  private final ScriptRunner scripts;

  private RedisFleetStore(RedisBreakerStore node) {
    this.node = node;
    this.conn = node.conn;
    this.scripts = node.scripts;
  }

  /**
   * Connects to Redis as configured ({@link RedisBreakerStore#connect}).
   *
   * @throws StoreUnavailableException when no server answers within the timeout
   * @throws StorePermissionException when the credentials are refused
   * @throws IllegalArgumentException for a bad URI or CA file
   */
  public static RedisFleetStore connect(StoreConfig config) {
    return new RedisFleetStore(RedisBreakerStore.connect(config));
  }

  /** The operators' port on a node store's connection: closing either closes both. */
  public static RedisFleetStore over(RedisBreakerStore node) {
    return new RedisFleetStore(node);
  }

  /** A store on a Lettuce client the caller owns ({@link RedisBreakerStore#create}). */
  public static RedisFleetStore create(
      RedisClient client, String prefix, Duration idleTtl, Duration timeout) {
    return new RedisFleetStore(RedisBreakerStore.create(client, prefix, idleTtl, timeout));
  }

  /** A store on a Lettuce cluster client the caller owns ({@link RedisBreakerStore#create}). */
  public static RedisFleetStore create(
      RedisClusterClient client, String prefix, Duration idleTtl, Duration timeout) {
    return new RedisFleetStore(RedisBreakerStore.create(client, prefix, idleTtl, timeout));
  }

  /** The node port this store shares its connection with. */
  public RedisBreakerStore node() {
    return node;
  }

  /** See {@link RedisBreakerStore#forwardsHistory}. */
  public RedisFleetStore forwardsHistory(Duration hold) {
    node.forwardsHistory(hold);
    return this;
  }

  @Override
  public CompletableFuture<AcquireResult> acquire(BreakerId id, String n, Policy policy) {
    return node.acquire(id, n, policy);
  }

  @Override
  public CompletableFuture<AcquireResult> acquire(
      BreakerId id, String n, Policy policy, String leaseId) {
    return node.acquire(id, n, policy, leaseId);
  }

  @Override
  public CompletableFuture<RenewResult> renew(
      BreakerId id, String n, Policy policy, String leaseId, String generation) {
    return node.renew(id, n, policy, leaseId, generation);
  }

  @Override
  public CompletableFuture<RecordResult> record(
      BreakerId id, Outcome outcome, Policy policy, NodeHeartbeat heartbeat) {
    return node.record(id, outcome, policy, heartbeat);
  }

  @Override
  public CompletableFuture<RecordResult> record(BreakerId id, Outcome outcome, Policy policy) {
    return node.record(id, outcome, policy);
  }

  @Override
  public void batch(Runnable work) {
    node.batch(work);
  }

  @Override
  public CompletableFuture<OverrideResult> override(BreakerId id, OverrideRequest request) {
    return node.override(id, request);
  }

  @Override
  public CompletableFuture<ReassertResult> reassert(
      BreakerId id, String n, Reassertion request, Policy policy) {
    return node.reassert(id, n, request, policy);
  }

  @Override
  public CompletableFuture<WarmResult> warm(
      BreakerId id, String policyId, long version, Policy policy, String actor) {
    return node.warm(id, policyId, version, policy, actor);
  }

  @Override
  public CompletableFuture<WarmResult> unwarm(
      BreakerId id, String policyId, long removedAt, String actor) {
    return node.unwarm(id, policyId, removedAt, actor);
  }

  @Override
  public CompletableFuture<BreakerSnapshot> state(BreakerId id) {
    return node.state(id);
  }

  @Override
  public CompletableFuture<List<String>> stamps(List<BreakerId> ids) {
    return node.stamps(ids);
  }

  @Override
  public CompletableFuture<String> canary() {
    return node.canary();
  }

  @Override
  public CompletableFuture<String> ping() {
    return node.ping();
  }

  @Override
  public String shardOf(BreakerId id) {
    return node.shardOf(id);
  }

  @Override
  public CompletableFuture<String> ping(String shard) {
    return node.ping(shard);
  }

  @Override
  public void refreshShards(Duration limit) {
    node.refreshShards(limit);
  }

  @Override
  public CompletableFuture<String> hotGet(BreakerId id, String field) {
    return node.hotGet(id, field);
  }

  @Override
  public CompletableFuture<Void> hotPut(BreakerId id, String field, String value, Duration ttl) {
    return node.hotPut(id, field, value, ttl);
  }

  @Override
  public CompletableFuture<Void> hotDelete(BreakerId id, String field) {
    return node.hotDelete(id, field);
  }

  @Override
  public CompletableFuture<Long> alive(String n, Duration validFor) {
    return node.alive(n, validFor);
  }

  @Override
  public CompletableFuture<Long> alive(String n, Duration validFor, NodeCallCounts calls) {
    return node.alive(n, validFor, calls);
  }

  @Override
  public CompletableFuture<Long> alive(
      String n, Duration validFor, NodeCallCounts calls, String session) {
    return node.alive(n, validFor, calls, session);
  }

  @Override
  public CompletableFuture<Void> warmUp() {
    return node.warmUp();
  }

  @Override
  public Subscription subscribe(Consumer<String> onMessage, Runnable onSubscribed) {
    return node.subscribe(onMessage, onSubscribed);
  }

  @Override
  public List<String> addresses() {
    return node.addresses();
  }

  /** The bound of each command, as configured. */
  Duration commandTimeout() {
    return conn.timeout;
  }

  /** Reads the Cluster's topology again, waiting at most {@code limit}. */
  void refreshTopology(Duration limit) {
    conn.refreshTopology(limit);
  }

  @Override
  public void close() {
    node.close();
  }

  /** This Redis's deployment identity ({@link BreakerKeys#deployment()}), if one is set. */
  @Override
  public CompletableFuture<Optional<String>> deployment() {
    return RedisConnection.guard(
        "read the deployment identity",
        conn.commands.get(conn.keys.deployment()).thenApply(Optional::ofNullable));
  }

  /**
   * Sets this Redis's deployment identity to {@code id} unless one is set ({@code SET NX}); returns
   * the identity set afterwards, which is another one when it was set before.
   */
  @Override
  public CompletableFuture<String> claimDeployment(String id) {
    return RedisConnection.guard(
        "set the deployment identity",
        conn.commands
            .set(conn.keys.deployment(), id, SetArgs.Builder.nx())
            .thenCompose(ok -> conn.commands.get(conn.keys.deployment())));
  }

  /**
   * The fleet's call rates per breaker ({@link FleetCallRates}): the counts the live nodes sent
   * with their last beat. Two reads for the whole fleet: the liveness set, then one {@code MGET} of
   * its nodes' counts (all in one slot). A node's counts expire with its liveness and are deleted
   * when it leaves, so the counts found are the live nodes'.
   */
  @Override
  public CompletableFuture<FleetCallRates> callRates() {
    return liveness()
        .thenCompose(
            live -> {
              List<String> nodes = live.members();
              if (nodes.isEmpty()) {
                return CompletableFuture.completedFuture(FleetCallRates.NONE);
              }
              String[] k = nodes.stream().map(conn.keys::calls).toArray(String[]::new);
              return RedisConnection.guard(
                  "read the nodes' call counts",
                  conn.commands
                      .mget(k)
                      .thenApply(
                          kvs -> {
                            Map<String, NodeCallCounts> byNode = new LinkedHashMap<>();
                            for (int i = 0; i < kvs.size(); i++) {
                              String json = kvs.get(i).getValueOrElse(null);
                              if (json != null) {
                                byNode.put(nodes.get(i), NodeCallCounts.parse(json));
                              }
                            }
                            return new FleetCallRates(byNode);
                          }));
            });
  }

  /**
   * The fleet's liveness: every node's alive-until time (Redis ms) and its current session, see
   * {@link NodeLiveness}. Two reads of one slot, sent together.
   */
  @Override
  public CompletableFuture<NodeLiveness> liveness() {
    CompletableFuture<Map<String, String>> sessions =
        conn.commands.hgetall(conn.keys.sessions()).toCompletableFuture();
    return RedisConnection.guard(
        "read the nodes' liveness",
        conn.commands
            .zrangeWithScores(conn.keys.alive(), 0, -1)
            .thenCombine(
                sessions,
                (all, current) -> {
                  Map<String, Long> until = new java.util.HashMap<>(all.size() * 2);
                  for (ScoredValue<String> v : all) {
                    until.put(v.getValue(), (long) v.getScore());
                  }
                  return new NodeLiveness(until, current);
                }));
  }

  /**
   * Where a breaker's state lives, for messages and output (its state hash's key): callers name it,
   * they never build it.
   */
  @Override
  public String location(BreakerId id) {
    return conn.keys.hash(id);
  }

  /**
   * A reader of whole fleets (snapshots by id or pattern across every master, streamed in batches
   * of {@code batch}, each round trip bounded by {@code timeout}).
   */
  public FleetReader fleet(Duration timeout, int batch) {
    return new FleetReader(this, timeout, batch);
  }

  /** The key layout in use. */
  public BreakerKeys keys() {
    return conn.keys;
  }

  /** Whether this store talks to a Redis Cluster. */
  public boolean isCluster() {
    return conn.cluster != null;
  }

  /** The underlying connection (for the runtime's pub/sub and batching). */
  public StatefulConnection<String, String> connection() {
    return conn.connection;
  }

  /**
   * Waits for {@code write}, a change of {@code id} whose script records {@code correlationId} (in
   * the event it appends; an override also in the hash). When it fails with a timeout or a lost
   * connection (not an answer: a refusal, an ACL denial or bad input fail as they are), whether it
   * landed is read back over a fresh connection ({@link #readBack}): landed, {@code landed}
   * rebuilds the answer from what Redis holds.
   *
   * <p>After a read-back this store's connection is closed (a write still queued on it must not
   * land after its outcome is reported): only a one-shot client, such as the CLI, should use this.
   *
   * @throws LostAnswerException when the read-back shows it did not land, or Redis did not answer
   *     the read-back either
   * @throws StoreException any other failure of the write
   */
  @Override
  public <T> Written<T> awaitWrite(
      BreakerId id,
      String correlationId,
      CompletableFuture<T> write,
      Function<WriteLanding, T> landed) {
    try {
      return new Written<>(StoreFutures.await(write), "");
    } catch (StoreUnavailableException e) {
      if (e.fault() != StoreFault.TIMEOUT && e.fault() != StoreFault.UNREACHABLE) {
        throw e;
      }
      WriteLanding found = readBack(id, correlationId);
      if (found.outcome() == WriteOutcome.APPLIED) {
        return new Written<>(landed.apply(found), e.getMessage());
      }
      throw new LostAnswerException(found.outcome(), id, correlationId, found.detail(), e);
    }
  }

  /**
   * Reads back whether a change of {@code id} carrying {@code correlationId} landed, over fresh
   * connections, retrying for up to twice the command timeout (at least 1 s); closes this store's
   * connection ({@link WriteReadBack} says why and when).
   */
  @Override
  public WriteLanding readBack(BreakerId id, String correlationId) {
    Duration budget =
        conn.timeout.multipliedBy(2).compareTo(Duration.ofSeconds(1)) < 0
            ? Duration.ofSeconds(1)
            : conn.timeout.multipliedBy(2);
    return new WriteReadBack(
            conn::fresh, () -> RedisConnection.closeQuietly(conn.connection), budget, conn.timeout)
        .find(id, conn.keys, correlationId);
  }

  /**
   * Checks, writing nothing, that this connection may run {@link #override} on {@code id}'s keys (a
   * {@code --dry-run} exits as the real run would): EVALSHA of a script that does not exist answers
   * NOSCRIPT when permitted, NOPERM otherwise; on Redis 7, when EVAL is permitted, a probe script
   * checks every command the override script runs with {@code redis.acl_check_cmd} (executing none
   * of them).
   *
   * @throws StorePermissionException naming the command the user may not run
   */
  @Override
  public CompletableFuture<Void> checkOverridePermission(BreakerId id) {
    String[] k = scripts.target(id).keys;
    CompletableFuture<Void> result = new CompletableFuture<>();
    conn.commands
        .evalsha(NO_SUCH_SCRIPT, ScriptOutputType.STATUS, k, ScriptRunner.NO_ARGS)
        .whenComplete(
            (v, e) -> {
              Throwable err = e == null ? null : StoreErrors.unwrap(e);
              if (err != null && !(err instanceof RedisNoScriptException)) {
                result.completeExceptionally(StoreErrors.translate("override " + id, err));
                return;
              }
              conn.commands
                  .eval(OVERRIDE_ACL_PROBE, ScriptOutputType.VALUE, k, conn.keys.channel())
                  .whenComplete(
                      (missing, e2) -> {
                        // EVAL refused: EVALSHA alone runs a cached script; nothing more to check
                        String m = e2 == null && missing != null ? missing.toString() : "";
                        if (m.isEmpty() || m.equals("unsupported")) {
                          result.complete(null);
                        } else {
                          result.completeExceptionally(
                              new StorePermissionException(
                                  "override "
                                      + id
                                      + ": permission denied: NOPERM this user has no permissions"
                                      + " to run the '"
                                      + m
                                      + "' command (the override script runs it)",
                                  null));
                        }
                      });
            });
    return result;
  }

  /** Answers the first command the override script runs that the user may not run, or ''. */
  private static final String OVERRIDE_ACL_PROBE =
      "if not redis.acl_check_cmd then return 'unsupported' end\n"
          + "local h, ev = KEYS[1], KEYS[2]\n"
          + "local probes = {{'time'}, {'hgetall', h}, {'hset', h, 'f', 'v'}, {'hdel', h, 'f'},\n"
          + "  {'xlen', ev}, {'xadd', ev, '*', 'f', 'v'}, {'xtrim', ev, 'MAXLEN', '1'},\n"
          + "  {'xrange', ev, '-', '+'}, {'del', KEYS[3]}, {'persist', h}, {'pexpire', h, '1'},\n"
          + "  {'publish', ARGV[1], 'x'}}\n"
          + "for _, p in ipairs(probes) do\n"
          + "  if not redis.acl_check_cmd(unpack(p)) then return p[1] end\n"
          + "end\n"
          + "return ''\n";

  private static final String NO_SUCH_SCRIPT = "0000000000000000000000000000000000000000";

  /**
   * The ACL user a connection made with these settings authenticates as: {@code username}, else the
   * first URI's user, else {@code default} when a password alone is given (Redis's user for a bare
   * {@code AUTH password}); empty when no credentials are given (the connection sends no AUTH).
   */
  public static Optional<String> authenticatedUser(String uris, String username, String password) {
    if (username != null) {
      return Optional.of(username);
    }
    try {
      RedisURI uri = RedisURI.create(uris.split(",", -1)[0].trim());
      RedisCredentials given =
          uri.getCredentialsProvider() == null
              ? null
              : uri.getCredentialsProvider().resolveCredentials().block(Duration.ofSeconds(1));
      if (given != null && given.hasUsername() && !given.getUsername().isEmpty()) {
        return Optional.of(given.getUsername());
      }
      if (password != null || (given != null && given.hasPassword())) {
        return Optional.of("default");
      }
    } catch (RuntimeException e) {
      // a URI Lettuce cannot read fails at connect, with its own message
    }
    return Optional.empty();
  }

  /**
   * Checks that the user is an administrator of the Redis it is connected to: it may run {@code
   * CONFIG GET} (category {@code @admin}), which changes nothing. The CLI asks it before deleting
   * audit records ({@code history prune}).
   *
   * @throws StorePermissionException naming the command refused
   */
  @Override
  public CompletableFuture<Void> checkAdminPermission(String what) {
    CompletableFuture<Void> result = new CompletableFuture<>();
    conn.commands
        .configGet("maxmemory-policy")
        .whenComplete(
            (v, e) -> {
              if (e == null) {
                result.complete(null);
              } else {
                result.completeExceptionally(StoreErrors.translate(what, StoreErrors.unwrap(e)));
              }
            });
    return result;
  }

  /**
   * Whether this Redis may evict breaker keys ({@link #evictionRisk(String, String)}), read with
   * {@code CONFIG GET} (category {@code @admin}: a user without it gets a failed future, and the
   * caller says nothing). Empty when nothing can be evicted. One {@code CONFIG GET maxmemory*}
   * (Redis 6.2 takes one pattern per call; the answer also holds the samples and tenacity).
   */
  @Override
  public CompletableFuture<Optional<String>> evictionRisk() {
    return RedisConnection.guard(
        "read maxmemory",
        conn.commands
            .configGet("maxmemory*")
            .thenApply(c -> evictionRisk(c.get("maxmemory"), c.get("maxmemory-policy"))));
  }

  /**
   * What is wrong with {@code maxmemory} and {@code maxmemory-policy} for breaker state, or empty:
   * with {@code maxmemory} set, every policy but {@code noeviction} can evict breaker keys (the
   * {@code allkeys-*} ones any key, the {@code volatile-*} ones keys with a TTL, which an idle
   * CLOSED breaker's keys carry), and a HYBRID node reads a tripped breaker's hash only at its
   * transitions, so its hash is among the coldest keys: an evicted one reads as CLOSED.
   */
  public static Optional<String> evictionRisk(String maxmemory, String policy) {
    long max;
    try {
      max = Long.parseLong(maxmemory == null ? "0" : maxmemory.trim());
    } catch (NumberFormatException e) {
      max = 1; // unreadable: assume a limit
    }
    String p = policy == null ? "" : policy.trim();
    if (max == 0 || p.equals("noeviction")) {
      return Optional.empty();
    }
    return Optional.of(
        "maxmemory-policy "
            + p
            + " with maxmemory "
            + max
            + " can evict breaker keys (an evicted tripped breaker reads as CLOSED): set"
            + " maxmemory-policy noeviction, or give breakerctl a Redis of its own");
  }

  /** Marks events up to {@code streamId} of incarnation {@code epoch} as stored durably. */
  @Override
  public CompletableFuture<ForwardResult> markForwarded(
      BreakerId id, String epoch, String streamId, String actor) {
    return scripts
        .run(BreakerScript.FORWARDED, id, actor, null, epoch, streamId)
        .thenApply(ScriptAnswers::forwarded);
  }

  /**
   * Rebuilds a breaker's keys from history under a new epoch (restore.lua): never over keys that
   * hold the same or a later transition, and idempotent per source transition.
   */
  @Override
  public CompletableFuture<RestoreResult> restore(BreakerId id, RestoreRequest r) {
    return scripts
        .run(
            BreakerScript.RESTORE,
            id,
            r.actor(),
            null,
            r.stored().code(),
            Long.toString(r.openUntilMillis()),
            r.openMillis() > 0 ? Long.toString(r.openMillis()) : "",
            r.override() == null ? "" : r.override().code(),
            Long.toString(r.overrideUntilMillis()),
            r.overrideActor(),
            r.overrideReason(),
            r.overrideCorrelationId(),
            r.sourceEpoch(),
            r.sourceStreamId(),
            Long.toString(r.sourceAtMillis()),
            Long.toString(r.sourceGeneration()),
            r.reason(),
            r.correlationId())
        .thenApply(ScriptAnswers::restore);
  }

  /**
   * Takes or renews the fleet's history-forwarder lease ({@code <prefix>:forwarder}) for {@code
   * node}; returns the holder afterwards (equal to {@code node} when this node holds it).
   */
  @Override
  public CompletableFuture<String> holdForwarderLease(String node, Duration lease) {
    String[] k = {conn.keys.prefix() + ":forwarder"};
    String[] args = {
      node, scripts.idleTtlMillis(), PolicyEncoding.NO_POLICY, Long.toString(lease.toMillis())
    };
    return scripts
        .evalsha(BreakerScript.FORWARDER_LEASE, k[0], k, args)
        .thenApply(r -> ScriptAnswers.str(r, 1));
  }

  /**
   * The node holding the fleet's history-forwarder lease, if any (a plain GET: viewers may read).
   */
  @Override
  public CompletableFuture<Optional<String>> forwarderLeaseHolder() {
    return RedisConnection.guard(
        "read the forwarder lease",
        conn.commands.get(conn.keys.prefix() + ":forwarder").thenApply(Optional::ofNullable));
  }

  /** Reads everything stored about a breaker, with the newest {@code events} events. */
  @Override
  public CompletableFuture<BreakerSnapshot> snapshot(BreakerId id, int events) {
    String hash = conn.keys.hash(id);
    CompletableFuture<Map<String, String>> fields =
        conn.commands.hgetall(hash).toCompletableFuture();
    CompletableFuture<List<ScoredValue<String>>> leases =
        conn.commands.zrangeWithScores(conn.keys.leases(id), 0, -1).toCompletableFuture();
    CompletableFuture<List<StreamMessage<String, String>>> recent =
        events > 0
            ? conn.commands
                .xrevrange(conn.keys.events(id), Range.unbounded(), Limit.from(events))
                .toCompletableFuture()
            : CompletableFuture.completedFuture(List.of());
    CompletableFuture<List<ScoredValue<String>>> seen =
        conn.commands.zrangeWithScores(conn.keys.nodes(id), 0, -1).toCompletableFuture();
    CompletableFuture<Map<String, String>> info =
        conn.commands.hgetall(conn.keys.nodeInfo(id)).toCompletableFuture();
    CompletableFuture<Long> time = conn.timeAt(hash);
    // unreadable liveness (its master down) leaves every stored report counted
    CompletableFuture<NodeLiveness> alive = liveness().exceptionally(e -> NodeLiveness.UNKNOWN);
    return CompletableFuture.allOf(fields, leases, recent, seen, info, time, alive)
        .handle(
            (v, err) -> {
              if (err != null) {
                throw StoreErrors.translate("read " + id, err);
              }
              List<ProbeLease> ls = new ArrayList<>();
              for (ScoredValue<String> sv : leases.join()) {
                ls.add(ScriptAnswers.probeLease(sv.getValue(), sv.getScore()));
              }
              List<NodeHeartbeat> nodes = new ArrayList<>();
              Map<String, String> infos = info.join();
              for (ScoredValue<String> sv : seen.join()) {
                String json = infos.getOrDefault(sv.getValue(), "{}");
                nodes.add(NodeHeartbeat.parse(sv.getValue(), json, (long) sv.getScore()));
              }
              return new BreakerSnapshot(
                  id,
                  new LinkedHashMap<>(fields.join()),
                  List.copyOf(ls),
                  toEvents(id, recent.join()),
                  List.copyOf(alive.join().live(nodes, time.join())),
                  time.join());
            });
  }

  /** The newest {@code count} events of a breaker, newest first. */
  @Override
  public CompletableFuture<List<BreakerEvent>> newestEvents(BreakerId id, int count) {
    return RedisConnection.guard(
        "read events of " + id,
        conn.commands
            .xrevrange(conn.keys.events(id), Range.unbounded(), Limit.from(count))
            .thenApply(msgs -> toEvents(id, msgs)));
  }

  /** Events after {@code afterStreamId} (exclusive; empty for the start), oldest first. */
  @Override
  public CompletableFuture<List<BreakerEvent>> eventsAfter(
      BreakerId id, String afterStreamId, int count) {
    Range<String> range =
        afterStreamId == null || afterStreamId.isEmpty()
            ? Range.unbounded()
            : Range.from(Range.Boundary.excluding(afterStreamId), Range.Boundary.unbounded());
    return RedisConnection.guard(
        "read events of " + id,
        conn.commands
            .xrange(conn.keys.events(id), range, Limit.from(count))
            .thenApply(msgs -> toEvents(id, msgs)));
  }

  /**
   * Calls {@code sink} with every breaker that has keys, scanning every master on a cluster ({@code
   * SCAN ... MATCH <prefix>:{*} TYPE hash COUNT 1000}). Blocks until the scan ends; each page is
   * bounded by the timeout.
   *
   * @throws StoreException when a page fails
   */
  @Override
  public void forEachBreaker(Consumer<BreakerId> sink) {
    scan(
        "scan breakers",
        KeyScanArgs.Builder.matches(conn.keys.hashPattern()).type("hash").limit(1000),
        conn.keys::idOf,
        sink);
  }

  /**
   * Calls {@code sink} with every breaker whose unforwarded marker exists (events await the history
   * forwarder), scanning every master on a cluster ({@code SCAN ... MATCH <prefix>:{*}:unfwd TYPE
   * string COUNT 10000}: few commands however many keys). Blocks until the scan ends; each page is
   * bounded by the timeout.
   *
   * @throws StoreException when a page fails
   */
  @Override
  public void forEachUnforwarded(Consumer<BreakerId> sink) {
    scan(
        "scan unforwarded",
        KeyScanArgs.Builder.matches(conn.keys.unforwardedPattern()).type("string").limit(10_000),
        conn.keys::idOfMarker,
        sink);
  }

  private void scan(
      String what,
      KeyScanArgs args,
      Function<String, Optional<BreakerId>> idOf,
      Consumer<BreakerId> sink) {
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      KeyScanCursor<String> page =
          StoreFutures.await(RedisConnection.guard(what, conn.commands.scan(cursor, args)));
      for (String key : page.getKeys()) {
        idOf.apply(key).ifPresent(sink);
      }
      cursor = page;
    } while (!cursor.isFinished());
  }

  /**
   * The forwarder's view of a breaker: epoch, cursor, last event, dropped and expired counts (one
   * HMGET).
   */
  @Override
  public CompletableFuture<ForwardState> forwardState(BreakerId id) {
    return RedisConnection.guard(
        "read forwarding state of " + id,
        conn.commands
            .hmget(
                conn.keys.hash(id),
                "epoch",
                "forwarded",
                "lastEvent",
                "eventsDropped",
                "eventsExpired")
            .thenApply(
                kv -> {
                  String[] v = new String[5];
                  for (int i = 0; i < 5; i++) {
                    v[i] = kv.get(i).getValueOrElse("");
                  }
                  return new ForwardState(
                      v[0],
                      v[1],
                      v[2],
                      count(id, "eventsDropped", v[3]),
                      count(id, "eventsExpired", v[4]));
                }));
  }

  private long count(BreakerId id, String field, String value) {
    try {
      return value.isEmpty() ? 0 : Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new MalformedBreakerException(
          "breaker hash "
              + conn.keys.hash(id)
              + ": field "
              + field
              + " is not a number: '"
              + value
              + "'",
          e);
    }
  }

  /** Redis time in milliseconds, from the server owning {@code id}'s keys. */
  @Override
  public CompletableFuture<Long> redisTimeMillis(BreakerId id) {
    return conn.timeAt(conn.keys.hash(id));
  }

  /**
   * Asks the master of each of {@code ids} how many of its replicas acknowledged the writes this
   * store made to it: {@code INFO replication} ({@code connected_slaves}) then {@code WAIT
   * connected ms} on the connection that carried the writes (Redis counts a connection's own last
   * write: the one connection on a standalone server or behind Sentinel; on a Cluster the node
   * connection by host and port that Lettuce routes a slot's writes through). One question per
   * master, whatever the number of breakers: a {@code WAIT} blocks its connection, so breakers on
   * one master share its answer. {@code WAIT} gives the replicas three quarters of the command
   * timeout, so a stalled replica costs at most that once per master (the masters are asked at
   * once). Call it after the writes completed; a write whose answer was lost and read back ({@link
   * #awaitWrite}) closed the connection: its replicas cannot be counted.
   *
   * @return per breaker, its master's answer; a refused command ({@code NOPERM} for {@code WAIT})
   *     or an unavailable master completes with {@link ReplicaAcks#unknown}, never exceptionally
   */
  @Override
  public Map<BreakerId, CompletableFuture<ReplicaAcks>> replicaAcks(Collection<BreakerId> ids) {
    long waitMillis = Math.max(1, conn.timeout.toMillis() * 3 / 4);
    Map<String, CompletableFuture<ReplicaAcks>> byMaster = new HashMap<>();
    Map<BreakerId, CompletableFuture<ReplicaAcks>> out = new LinkedHashMap<>();
    for (BreakerId id : ids) {
      CompletableFuture<ReplicaAcks> acks;
      if (conn.cluster == null) {
        acks = byMaster.computeIfAbsent("", m -> replicaAcks(conn.commands, waitMillis));
      } else {
        RedisClusterNode node =
            conn.cluster.getPartitions().getPartitionBySlot(SlotHash.getSlot(conn.keys.hash(id)));
        if (node == null) {
          acks = CompletableFuture.completedFuture(ReplicaAcks.unknown("no master owns its slot"));
        } else {
          RedisURI u = node.getUri();
          acks =
              byMaster.computeIfAbsent(
                  u.getHost() + ":" + u.getPort(),
                  m ->
                      conn.cluster
                          .getConnectionAsync(u.getHost(), u.getPort())
                          .thenCompose(c -> replicaAcks(c.async(), waitMillis))
                          .exceptionally(
                              e -> ReplicaAcks.unknown(StoreErrors.translate(m, e).getMessage())));
        }
      }
      out.put(id, acks);
    }
    return out;
  }

  private static CompletableFuture<ReplicaAcks> replicaAcks(
      RedisClusterAsyncCommands<String, String> on, long waitMillis) {
    return RedisConnection.guard("INFO replication", on.info("replication"))
        .thenCompose(
            info -> {
              int connected = connectedReplicas(info);
              if (connected == 0) {
                return CompletableFuture.completedFuture(new ReplicaAcks(0, 0, ""));
              }
              return RedisConnection.guard("WAIT", on.waitForReplication(connected, waitMillis))
                  .thenApply(n -> new ReplicaAcks(n.intValue(), connected, ""));
            })
        .exceptionally(e -> ReplicaAcks.unknown(StoreErrors.translate("WAIT", e).getMessage()));
  }

  /** {@code connected_slaves} of an {@code INFO replication} answer (0 when absent). */
  static int connectedReplicas(String info) {
    for (String line : info.split("\r?\n")) {
      if (line.startsWith("connected_slaves:")) {
        return Integer.parseInt(line.substring("connected_slaves:".length()).strip());
      }
    }
    return 0;
  }

  private static List<BreakerEvent> toEvents(
      BreakerId id, List<StreamMessage<String, String>> msgs) {
    List<BreakerEvent> out = new ArrayList<>(msgs.size());
    for (StreamMessage<String, String> m : msgs) {
      out.add(new BreakerEvent(id, m.getId(), Map.copyOf(m.getBody())));
    }
    return out;
  }
}
