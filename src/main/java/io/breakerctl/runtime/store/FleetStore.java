package io.breakerctl.runtime.store;

import io.breakerctl.runtime.model.BreakerId;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The store as operators and the control plane use it: everything a node does ({@link
 * BreakerStore}) and what only they need: whole snapshots and event tails, the fleet's liveness and
 * call rates, the history forwarder's state and lease, restores, write read-backs, replica
 * acknowledgements, the permission checks a dry run makes, the deployment identity and the Redis
 * clock; events read forward from a position come with {@link EventTail}. Nodes never need it; the
 * CLI, the console, the sandbox and the control plane depend on this port, and only the code that
 * composes them names the Redis implementation.
 */
public interface FleetStore extends BreakerStore, EventTail {

  /**
   * A pass over the whole fleet (ids or snapshots by id or pattern across every part of the
   * keyspace, in batches of {@code batch}), bounded as a whole by {@code timeout}.
   */
  FleetScan fleet(Duration timeout, int batch);

  /** Reads everything stored about a breaker, with the newest {@code events} events. */
  CompletableFuture<BreakerSnapshot> snapshot(BreakerId id, int events);

  /** The newest {@code count} events of a breaker, newest first. */
  CompletableFuture<List<BreakerEvent>> newestEvents(BreakerId id, int count);

  /**
   * Calls {@code sink} with every breaker that has keys. Blocks until the scan ends.
   *
   * @throws StoreException when a page of the scan fails
   */
  void forEachBreaker(Consumer<BreakerId> sink);

  /**
   * Calls {@code sink} with every breaker whose events await the history forwarder. Blocks until
   * the scan ends.
   *
   * @throws StoreException when a page of the scan fails
   */
  void forEachUnforwarded(Consumer<BreakerId> sink);

  /** The forwarder's view of a breaker: epoch, cursor, last event, dropped and expired counts. */
  CompletableFuture<ForwardState> forwardState(BreakerId id);

  /** Marks events up to {@code streamId} of incarnation {@code epoch} as stored durably. */
  CompletableFuture<ForwardResult> markForwarded(
      BreakerId id, String epoch, String streamId, String actor);

  /**
   * Takes or renews the fleet's history-forwarder lease for {@code node}; returns the holder
   * afterwards (equal to {@code node} when this node holds it).
   */
  CompletableFuture<String> holdForwarderLease(String node, Duration lease);

  /** The node holding the fleet's history-forwarder lease, if any. */
  CompletableFuture<Optional<String>> forwarderLeaseHolder();

  /**
   * Rebuilds a breaker's keys from history under a new epoch: never over keys that hold the same or
   * a later transition, and idempotent per source transition.
   */
  CompletableFuture<RestoreResult> restore(BreakerId id, RestoreRequest request);

  /**
   * Un-warms a removed policy: when the breaker holds {@code policyId} at {@code removedAt} or an
   * older version, its warmed policy is deleted and a policy message published.
   */
  CompletableFuture<WarmResult> unwarm(BreakerId id, String policyId, long removedAt, String actor);

  /** The fleet's liveness: every node's alive-until time and its current session. */
  CompletableFuture<NodeLiveness> liveness();

  /** The fleet's call rates per breaker: the counts the live nodes sent with their last beat. */
  CompletableFuture<FleetCallRates> callRates();

  /**
   * The fleet's call rates read within {@code timeout}, or {@link FleetCallRates#NONE} when they
   * cannot be read: the rates are then unknown, which fails no view that shows them.
   */
  default FleetCallRates callRatesOrNone(Duration timeout) {
    try {
      return StoreFutures.await(callRates(), timeout);
    } catch (StoreException e) {
      return FleetCallRates.NONE;
    }
  }

  /** Store time in milliseconds, from the server holding {@code id}'s state. */
  CompletableFuture<Long> redisTimeMillis(BreakerId id);

  /**
   * Waits for {@code write}, a change of {@code id} that records {@code correlationId}; when its
   * answer is lost (a timeout, a lost connection), reads back whether it landed and rebuilds the
   * answer with {@code landed}. Only for a one-shot client: a read-back closes the connection.
   *
   * @throws LostAnswerException when it did not land, or the read-back got no answer either
   */
  <T> Written<T> awaitWrite(
      BreakerId id,
      String correlationId,
      CompletableFuture<T> write,
      Function<WriteLanding, T> landed);

  /**
   * Reads back whether a change of {@code id} carrying {@code correlationId} landed, over fresh
   * connections; closes this store's connection (a one-shot client's).
   */
  WriteLanding readBack(BreakerId id, String correlationId);

  /** How many replicas of each breaker's master acknowledged this store's writes to it. */
  Map<BreakerId, CompletableFuture<ReplicaAcks>> replicaAcks(Collection<BreakerId> ids);

  /**
   * Checks, writing nothing, that this store's user may override {@code id}.
   *
   * @throws StorePermissionException naming the command the user may not run
   */
  CompletableFuture<Void> checkOverridePermission(BreakerId id);

  /**
   * Checks that this store's user is an administrator of the store, for {@code what}.
   *
   * @throws StorePermissionException naming the command refused
   */
  CompletableFuture<Void> checkAdminPermission(String what);

  /** What makes this store able to evict breaker state, or empty when nothing can be evicted. */
  CompletableFuture<Optional<String>> evictionRisk();

  /** This store's deployment identity, if one is set. */
  CompletableFuture<Optional<String>> deployment();

  /**
   * Sets this store's deployment identity to {@code id} unless one is set; returns the identity set
   * afterwards.
   */
  CompletableFuture<String> claimDeployment(String id);

  /** The servers this store connected to, as {@code host:port}, sorted; no credentials. */
  List<String> addresses();

  /** The key prefix this store keeps its breakers under (one deployment's namespace). */
  String keyPrefix();

  /** Where this store keeps its deployment identity, for messages ({@link #deployment}). */
  String deploymentKey();

  /**
   * The store's own health checks for {@code breakerctl doctor}: reachable, versions, topology,
   * replication, scripts, clock, eviction, permissions. Writes nothing.
   *
   * @param where the redacted address to name in the first check
   * @param connectMillis how long connecting took
   */
  List<StoreCheck> diagnose(String where, double connectMillis);

  /** The fleet's node checks for {@code breakerctl doctor}: degraded and stale nodes, reports. */
  List<StoreCheck> nodeChecks(Duration timeout);

  /** Where a breaker's state lives, for messages and output: callers name it, never build it. */
  String location(BreakerId id);
}
