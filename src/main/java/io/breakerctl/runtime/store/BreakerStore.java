package io.breakerctl.runtime.store;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The shared store a fleet keeps its breakers in: exactly what a breaker and its registry need
 * (acquire, record, override, re-assert, warm, read, subscribe), nothing about how it is kept.
 *
 * <p>Two implementations: {@code RedisFleetStore}, the Lua scripts on Redis or Redis Cluster (what
 * production runs), and {@link io.breakerctl.runtime.store.inprocess.InProcessBreakerStore}, one
 * {@code LocalStateMachine} per breaker in this process with the scripts' answers, messages and
 * snapshot fields (tests of the runtime and of services that embed it, without Redis; it can be
 * made unavailable or slow to show what a node does then). A registry uses the store given to
 * {@code BreakerRegistry.Builder.store(BreakerStore)} and never closes it; otherwise it connects to
 * Redis.
 *
 * <p>Every method is asynchronous. Failures complete the future exceptionally with a {@code
 * StoreException}: {@code StoreUnavailableException} when the store does not answer (the node
 * degrades), {@code StorePermissionException} when it refuses.
 */
public interface BreakerStore extends AutoCloseable {

  /**
   * Asks for permission to call ({@code acquire.lua}). {@code policy} applies while no policy is
   * warmed into the breaker.
   */
  CompletableFuture<AcquireResult> acquire(BreakerId id, String node, Policy policy);

  /**
   * Like {@link #acquire(BreakerId, String, Policy)}, naming the probe lease a grant would carry
   * ({@code leaseId}, no {@code '|'}): a caller whose answer is lost (a timeout) can then give the
   * lease back with {@link Outcome#release} without having seen it. A store whose answers cannot be
   * lost may ignore the name (the answer carries the lease's id either way); this default does.
   */
  default CompletableFuture<AcquireResult> acquire(
      BreakerId id, String node, Policy policy, String leaseId) {
    return acquire(id, node, policy);
  }

  /**
   * Keeps the lease of a probe {@code node} is running alive ({@code renew.lua}): RENEWED for
   * another {@code probeLeaseSeconds}, or PROBE_TIMED_OUT once the probe held its slot for {@code
   * maxProbeSeconds} (it counts as failed; the breaker reopened), LEASE_EXPIRED or STALE_LEASE when
   * the node no longer holds it. {@code policy} applies while no policy is warmed.
   *
   * @param generation the generation the lease was granted in
   */
  CompletableFuture<RenewResult> renew(
      BreakerId id, String node, Policy policy, String leaseId, String generation);

  /**
   * Records outcomes ({@code record.lua}), with this node's heartbeat when {@code heartbeat} is not
   * null. {@code policy} applies while no policy is warmed. An outcome carrying a back-off hint
   * ({@link Outcome#hint()}) sets the open window to {@code max(current end, now + min(hint,
   * maxOpenSeconds))} (BACKOFF_REQUESTED; see {@code record.lua}).
   */
  CompletableFuture<RecordResult> record(
      BreakerId id, Outcome outcome, Policy policy, NodeHeartbeat heartbeat);

  /**
   * Runs {@code work} and sends the script calls it makes on this store from this thread together:
   * one pipelined write per master instead of a round trip each. Each call's future completes as it
   * would alone. The registry's flush tick sends a node's due records this way: on a loaded host a
   * lone command costs Redis tens of microseconds in wake-ups and socket calls, many times the
   * script itself, and a pipelined one about one. The default runs {@code work} as it is.
   */
  default void batch(Runnable work) {
    work.run();
  }

  /** Records outcomes without a heartbeat. */
  default CompletableFuture<RecordResult> record(BreakerId id, Outcome outcome, Policy policy) {
    return record(id, outcome, policy, null);
  }

  /** Sets, changes or clears an operator override ({@code override.lua}). */
  CompletableFuture<OverrideResult> override(BreakerId id, OverrideRequest request);

  /**
   * Puts back a trip or an override the store lost, or publishes a trip made while degraded ({@code
   * reassert.lua}).
   */
  CompletableFuture<ReassertResult> reassert(
      BreakerId id, String node, Reassertion request, Policy policy);

  /**
   * Warms a resolved policy version into the breaker ({@code warm.lua}); for the same policy id an
   * older or equal version never replaces a newer one.
   */
  CompletableFuture<WarmResult> warm(
      BreakerId id, String policyId, long version, Policy policy, String actor);

  /** Reads a breaker's state fields with the store's time (no leases, events or heartbeats). */
  CompletableFuture<BreakerSnapshot> state(BreakerId id);

  /**
   * The change stamp of each breaker, in order: {@code generation:epoch:policyVersion} as stored
   * ({@code 0::0} for a breaker without keys). Every transition, override change, re-creation and
   * warmed policy moves it; time-based changes do not (a node computes those itself). One pipelined
   * round: how a node whose pub/sub is healthy checks for messages it missed without reading every
   * hash.
   */
  CompletableFuture<List<String>> stamps(List<BreakerId> ids);

  /** The stamp a breaker's stored fields give (see {@link #stamps}). */
  static String stamp(String generation, String epoch, String policyVersion) {
    return (generation == null || generation.isEmpty() ? "0" : generation)
        + ":"
        + (epoch == null ? "" : epoch)
        + ":"
        + (policyVersion == null || policyVersion.isEmpty() ? "0" : policyVersion);
  }

  /**
   * A fingerprint of the stored data's incarnation on every master (one small canary key per
   * master, created when missing): it changes when a master lost its data while connections stayed
   * up (FLUSHALL) or its slots moved to another node. A node whose subscription stays up checks it
   * instead of every breaker's stamp.
   */
  CompletableFuture<String> canary();

  /** A health check of the connection. */
  CompletableFuture<String> ping();

  /**
   * The shard that holds {@code id}'s keys: on a Redis Cluster the id of the master owning its
   * slot, as the client's topology last named it; {@code ""} where one server holds every key. No
   * I/O. The registry keeps one degradation per shard ({@code StoreGuard}), so a dead master
   * degrades only the breakers it holds.
   */
  default String shardOf(BreakerId id) {
    return "";
  }

  /** A health check of one shard's server ({@link #shardOf}); {@code ""} is {@link #ping()}. */
  default CompletableFuture<String> ping(String shard) {
    return ping();
  }

  /**
   * Reads the topology again (a failover moved a shard's slots to a promoted replica), waiting at
   * most {@code limit}; nothing where one server holds every key.
   *
   * @throws io.breakerctl.runtime.store.StoreUnavailableException when no server answers in time
   */
  default void refreshShards(java.time.Duration limit) {}

  /**
   * Hot fallback data of a breaker: the value under {@code field} (an approved snapshot's copy,
   * {@code io.breakerctl.runtime.HotSnapshots}), or null. One key of the breaker's hash tag, so it
   * works on Redis Cluster.
   */
  CompletableFuture<String> hotGet(BreakerId id, String field);

  /** Stores hot fallback data under {@code field}, expiring after {@code ttl}. */
  CompletableFuture<Void> hotPut(BreakerId id, String field, String value, java.time.Duration ttl);

  /** Removes hot fallback data. */
  CompletableFuture<Void> hotDelete(BreakerId id, String field);

  /**
   * This node's liveness for the fleet view ({@code alive.lua}): readers count its per-breaker
   * reports for {@code validFor} from now; {@link java.time.Duration#ZERO} takes it out at once
   * (the node closes). Completes with the store's time in ms.
   */
  CompletableFuture<Long> alive(String node, java.time.Duration validFor);

  /**
   * {@link #alive(String, java.time.Duration)} with the node's call counts per breaker over the
   * window since its previous beat, which readers turn into the fleet's call rates (kept as long as
   * the liveness). A store that keeps no counts only writes the liveness.
   */
  default CompletableFuture<Long> alive(
      String node, java.time.Duration validFor, io.breakerctl.runtime.store.NodeCallCounts calls) {
    return alive(node, validFor, calls, "");
  }

  /**
   * {@link #alive(String, java.time.Duration, io.breakerctl.runtime.store.NodeCallCounts)} naming
   * the node's session (random per registry, "" for none): readers count only the reports of a
   * node's current session, so a new process with a reused node id does not inherit the reports of
   * breakers it never opened ({@link io.breakerctl.runtime.store.NodeLiveness}).
   */
  default CompletableFuture<Long> alive(
      String node,
      java.time.Duration validFor,
      io.breakerctl.runtime.store.NodeCallCounts calls,
      String session) {
    return alive(node, validFor);
  }

  /** Runs the client side of the scripts' replies once, so the first real call is not cold. */
  CompletableFuture<Void> warmUp();

  /**
   * Subscribes to the transitions and warmed policies of every breaker in the store (JSON messages
   * as the scripts publish them). {@code onSubscribed} runs after every (re)subscription, when
   * messages may have been missed.
   *
   * @throws io.breakerctl.runtime.store.StoreUnavailableException when it cannot subscribe
   */
  Subscription subscribe(Consumer<String> onMessage, Runnable onSubscribed);

  @Override
  void close();

  /** A subscription: whether its connection is up, how to publish on it, how to end it. */
  interface Subscription extends AutoCloseable {
    /** Whether the subscription's connection is open (Lettuce reconnects and resubscribes). */
    boolean isOpen();

    /** Publishes {@code message} on the subscribed channel (a node's warm-up of its path). */
    CompletableFuture<Long> publish(String message);

    /**
     * Publishes {@code message} through the store's command connection where only this subscription
     * hears it (its own beacon channel): a beacon that comes back proves the subscription delivers.
     * A connection can stay open and deliver nothing (its server stalled: a replica loading a large
     * RDB, swapping, behind a partition), and only a message sent to it tells. By default the
     * shared channel, which every subscriber hears.
     */
    default CompletableFuture<Long> beacon(String message) {
      return publish(message);
    }

    @Override
    void close();
  }
}
