package io.breakerctl.runtime.store;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A node port that forwards every call to another store: the base of a store that adds to one
 * ({@code RedisFleetStore} adds the operators' port to a Redis node store), and of a test that must
 * act at an exact point of a node's conversation with its store (override the one method, call
 * super).
 */
public class ForwardingBreakerStore implements BreakerStore {
  private final BreakerStore target;

  /** A store that forwards every call to {@code target}. */
  public ForwardingBreakerStore(BreakerStore target) {
    this.target = target;
  }

  @Override
  public CompletableFuture<AcquireResult> acquire(BreakerId id, String node, Policy policy) {
    return target.acquire(id, node, policy);
  }

  @Override
  public CompletableFuture<AcquireResult> acquire(
      BreakerId id, String node, Policy policy, String leaseId) {
    return target.acquire(id, node, policy, leaseId);
  }

  @Override
  public CompletableFuture<RecordResult> record(
      BreakerId id, Outcome outcome, Policy policy, NodeHeartbeat heartbeat) {
    return target.record(id, outcome, policy, heartbeat);
  }

  @Override
  public CompletableFuture<RenewResult> renew(
      BreakerId id, String node, Policy policy, String leaseId, String generation) {
    return target.renew(id, node, policy, leaseId, generation);
  }

  @Override
  public void batch(Runnable work) {
    target.batch(work);
  }

  @Override
  public CompletableFuture<OverrideResult> override(BreakerId id, OverrideRequest request) {
    return target.override(id, request);
  }

  @Override
  public CompletableFuture<ReassertResult> reassert(
      BreakerId id, String node, Reassertion request, Policy policy) {
    return target.reassert(id, node, request, policy);
  }

  @Override
  public CompletableFuture<WarmResult> warm(
      BreakerId id, String policyId, long version, Policy policy, String actor) {
    return target.warm(id, policyId, version, policy, actor);
  }

  @Override
  public CompletableFuture<BreakerSnapshot> state(BreakerId id) {
    return target.state(id);
  }

  @Override
  public CompletableFuture<List<String>> stamps(List<BreakerId> ids) {
    return target.stamps(ids);
  }

  @Override
  public CompletableFuture<String> canary() {
    return target.canary();
  }

  @Override
  public CompletableFuture<String> ping() {
    return target.ping();
  }

  @Override
  public String shardOf(BreakerId id) {
    return target.shardOf(id);
  }

  @Override
  public CompletableFuture<String> ping(String shard) {
    return target.ping(shard);
  }

  @Override
  public void refreshShards(java.time.Duration limit) {
    target.refreshShards(limit);
  }

  @Override
  public CompletableFuture<String> hotGet(BreakerId id, String field) {
    return target.hotGet(id, field);
  }

  @Override
  public CompletableFuture<Void> hotPut(BreakerId id, String field, String value, Duration ttl) {
    return target.hotPut(id, field, value, ttl);
  }

  @Override
  public CompletableFuture<Void> hotDelete(BreakerId id, String field) {
    return target.hotDelete(id, field);
  }

  @Override
  public CompletableFuture<Long> alive(String node, Duration validFor) {
    return target.alive(node, validFor);
  }

  @Override
  public CompletableFuture<Long> alive(
      String node, java.time.Duration validFor, io.breakerctl.runtime.store.NodeCallCounts calls) {
    return target.alive(node, validFor, calls);
  }

  @Override
  public CompletableFuture<Long> alive(
      String node,
      Duration validFor,
      io.breakerctl.runtime.store.NodeCallCounts calls,
      String session) {
    return target.alive(node, validFor, calls, session);
  }

  @Override
  public CompletableFuture<Void> warmUp() {
    return target.warmUp();
  }

  @Override
  public Subscription subscribe(Consumer<String> onMessage, Runnable onSubscribed) {
    return target.subscribe(onMessage, onSubscribed);
  }

  @Override
  public void close() {
    target.close();
  }
}
