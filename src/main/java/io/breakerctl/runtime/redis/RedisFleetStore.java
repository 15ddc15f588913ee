package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.store.BreakerEvent;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.FleetCallRates;
import io.breakerctl.runtime.store.FleetStore;
import io.breakerctl.runtime.store.ForwardResult;
import io.breakerctl.runtime.store.ForwardState;
import io.breakerctl.runtime.store.ForwardingBreakerStore;
import io.breakerctl.runtime.store.LostAnswerException;
import io.breakerctl.runtime.store.MalformedBreakerException;
import io.breakerctl.runtime.store.NodeLiveness;
import io.breakerctl.runtime.store.PolicyEncoding;
import io.breakerctl.runtime.store.ReplicaAcks;
import io.breakerctl.runtime.store.RestoreRequest;
import io.breakerctl.runtime.store.RestoreResult;
import io.breakerctl.runtime.store.StoreCheck;
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
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.Collection;
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
public final class RedisFleetStore extends ForwardingBreakerStore implements FleetStore {
  private final RedisBreakerStore node;
  private final RedisConnection conn;
  private final ScriptRunner scripts;
  private final RedisAdmin admin;
  private final BreakerReads reads;

  private RedisFleetStore(RedisBreakerStore node) {
    super(node);
    this.node = node;
    this.conn = node.conn;
    this.scripts = node.scripts;
    this.admin = new RedisAdmin(node.conn);
    this.reads = new BreakerReads(node.conn);
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
  public CompletableFuture<WarmResult> unwarm(
      BreakerId id, String policyId, long removedAt, String actor) {
    return node.unwarm(id, policyId, removedAt, actor);
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
  public CompletableFuture<Void> checkOverridePermission(BreakerId id) {
    return admin.checkOverridePermission(id);
  }

  @Override
  public CompletableFuture<Void> checkAdminPermission(String what) {
    return admin.checkAdminPermission(what);
  }

  @Override
  public CompletableFuture<Optional<String>> evictionRisk() {
    return admin.evictionRisk();
  }

  @Override
  public Map<BreakerId, CompletableFuture<ReplicaAcks>> replicaAcks(Collection<BreakerId> ids) {
    return admin.replicaAcks(ids);
  }

  /** See {@link RedisAdmin#authenticatedUser}. */
  public static Optional<String> authenticatedUser(String uris, String username, String password) {
    return RedisAdmin.authenticatedUser(uris, username, password);
  }

  /** See {@link RedisAdmin#evictionRisk(String, String)}. */
  public static Optional<String> evictionRisk(String maxmemory, String policy) {
    return RedisAdmin.evictionRisk(maxmemory, policy);
  }

  /**
   * The fleet's call rates per breaker ({@link BreakerReads#callRates}): the counts the live nodes
   * sent with their last beat.
   */
  @Override
  public CompletableFuture<FleetCallRates> callRates() {
    return reads.callRates();
  }

  /** The fleet's liveness ({@link BreakerReads#liveness}). */
  @Override
  public CompletableFuture<NodeLiveness> liveness() {
    return reads.liveness();
  }

  /** Reads everything stored about a breaker, with the newest {@code events} events. */
  @Override
  public CompletableFuture<BreakerSnapshot> snapshot(BreakerId id, int events) {
    return reads.snapshot(id, events);
  }

  /** The newest {@code count} events of a breaker, newest first. */
  @Override
  public CompletableFuture<List<BreakerEvent>> newestEvents(BreakerId id, int count) {
    return reads.newestEvents(id, count);
  }

  /** Events after {@code afterStreamId} (exclusive; empty for the start), oldest first. */
  @Override
  public CompletableFuture<List<BreakerEvent>> eventsAfter(
      BreakerId id, String afterStreamId, int count) {
    return reads.eventsAfter(id, afterStreamId, count);
  }

  @Override
  public String keyPrefix() {
    return conn.keys.prefix();
  }

  @Override
  public String deploymentKey() {
    return conn.keys.deployment();
  }

  @Override
  public List<StoreCheck> diagnose(String where, double connectMillis) {
    return StoreDiagnostics.run(this, where, connectMillis);
  }

  @Override
  public List<StoreCheck> nodeChecks(Duration timeout) {
    return NodeDiagnostics.nodes(this, timeout);
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
  @Override
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
}
