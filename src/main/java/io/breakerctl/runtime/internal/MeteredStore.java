package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.StoreCommand;
import io.breakerctl.runtime.StoreStats;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.store.AcquireResult;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.BreakerStore;
import io.breakerctl.runtime.store.NodeHeartbeat;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.OverrideResult;
import io.breakerctl.runtime.store.ReassertResult;
import io.breakerctl.runtime.store.Reassertion;
import io.breakerctl.runtime.store.RecordResult;
import io.breakerctl.runtime.store.RenewResult;
import io.breakerctl.runtime.store.WarmResult;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The one timing point of a registry's store commands: wraps the store the registry uses, so every
 * command its breakers and background work send (acquire, record, flush, override, re-assert, warm,
 * state and stamp reads, ping, warm-up) is timed from send to answer and every failure is counted,
 * by {@link StoreCommand}, into the registry's {@link Counts}. A command that fails synchronously
 * counts as failed too. Subscriptions pass through: they are a connection, not a command.
 */
final class MeteredStore implements BreakerStore {
  private final BreakerStore delegate;
  private final Counts counts;

  MeteredStore(BreakerStore delegate, Counts counts) {
    this.delegate = delegate;
    this.counts = counts;
  }

  /** The store this one times. */
  BreakerStore delegate() {
    return delegate;
  }

  private <T> CompletableFuture<T> timed(StoreCommand kind, Supplier<CompletableFuture<T>> send) {
    long start = System.nanoTime();
    CompletableFuture<T> f;
    try {
      f = send.get();
    } catch (RuntimeException e) {
      counts.failed(kind);
      throw e;
    }
    f.whenComplete(
        (v, e) -> {
          if (e == null) {
            counts.answered(kind, System.nanoTime() - start);
          } else {
            counts.failed(kind);
          }
        });
    return f;
  }

  @Override
  public CompletableFuture<AcquireResult> acquire(BreakerId id, String node, Policy policy) {
    return timed(StoreCommand.ACQUIRE, () -> delegate.acquire(id, node, policy));
  }

  @Override
  public CompletableFuture<AcquireResult> acquire(
      BreakerId id, String node, Policy policy, String leaseId) {
    return timed(StoreCommand.ACQUIRE, () -> delegate.acquire(id, node, policy, leaseId));
  }

  @Override
  public void batch(Runnable work) {
    delegate.batch(work);
  }

  @Override
  public CompletableFuture<RecordResult> record(
      BreakerId id, Outcome outcome, Policy policy, NodeHeartbeat heartbeat) {
    return timed(kindOf(outcome), () -> delegate.record(id, outcome, policy, heartbeat));
  }

  @Override
  public CompletableFuture<RenewResult> renew(
      BreakerId id, String node, Policy policy, String leaseId, String generation) {
    return timed(StoreCommand.RENEW, () -> delegate.renew(id, node, policy, leaseId, generation));
  }

  @Override
  public CompletableFuture<OverrideResult> override(BreakerId id, OverrideRequest request) {
    return timed(StoreCommand.OVERRIDE, () -> delegate.override(id, request));
  }

  @Override
  public CompletableFuture<ReassertResult> reassert(
      BreakerId id, String node, Reassertion request, Policy policy) {
    return timed(StoreCommand.REASSERT, () -> delegate.reassert(id, node, request, policy));
  }

  @Override
  public CompletableFuture<WarmResult> warm(
      BreakerId id, String policyId, long version, Policy policy, String actor) {
    return timed(StoreCommand.WARM, () -> delegate.warm(id, policyId, version, policy, actor));
  }

  @Override
  public CompletableFuture<BreakerSnapshot> state(BreakerId id) {
    return timed(StoreCommand.STATE, () -> delegate.state(id));
  }

  @Override
  public CompletableFuture<List<String>> stamps(List<BreakerId> ids) {
    return timed(StoreCommand.STAMPS, () -> delegate.stamps(ids));
  }

  @Override
  public CompletableFuture<String> canary() {
    return timed(StoreCommand.CANARY, delegate::canary);
  }

  @Override
  public CompletableFuture<String> ping() {
    return timed(StoreCommand.PING, delegate::ping);
  }

  @Override
  public String shardOf(BreakerId id) {
    return delegate.shardOf(id);
  }

  @Override
  public CompletableFuture<String> ping(String shard) {
    return timed(StoreCommand.PING, () -> delegate.ping(shard));
  }

  @Override
  public void refreshShards(java.time.Duration limit) {
    delegate.refreshShards(limit);
  }

  @Override
  public CompletableFuture<String> hotGet(BreakerId id, String field) {
    return timed(StoreCommand.FALLBACK_DATA, () -> delegate.hotGet(id, field));
  }

  @Override
  public CompletableFuture<Void> hotPut(
      BreakerId id, String field, String value, java.time.Duration ttl) {
    return timed(StoreCommand.FALLBACK_DATA, () -> delegate.hotPut(id, field, value, ttl));
  }

  @Override
  public CompletableFuture<Void> hotDelete(BreakerId id, String field) {
    return timed(StoreCommand.FALLBACK_DATA, () -> delegate.hotDelete(id, field));
  }

  @Override
  public CompletableFuture<Long> alive(String node, java.time.Duration validFor) {
    return timed(StoreCommand.ALIVE, () -> delegate.alive(node, validFor));
  }

  @Override
  public CompletableFuture<Long> alive(
      String node, java.time.Duration validFor, io.breakerctl.runtime.store.NodeCallCounts calls) {
    return timed(StoreCommand.ALIVE, () -> delegate.alive(node, validFor, calls));
  }

  @Override
  public CompletableFuture<Long> alive(
      String node,
      java.time.Duration validFor,
      io.breakerctl.runtime.store.NodeCallCounts calls,
      String session) {
    return timed(StoreCommand.ALIVE, () -> delegate.alive(node, validFor, calls, session));
  }

  @Override
  public CompletableFuture<Void> warmUp() {
    return timed(StoreCommand.WARM_UP, delegate::warmUp);
  }

  @Override
  public Subscription subscribe(Consumer<String> onMessage, Runnable onSubscribed) {
    return delegate.subscribe(onMessage, onSubscribed);
  }

  @Override
  public void close() {
    delegate.close();
  }

  /** A registry's cumulative command counts, by kind; kept across reconnects. */
  static final class Counts {
    private final LongAdder[] answered = adders();
    private final LongAdder[] nanos = adders();
    private final LongAdder[] failed = adders();

    private static LongAdder[] adders() {
      LongAdder[] a = new LongAdder[StoreCommand.values().length];
      for (int i = 0; i < a.length; i++) {
        a[i] = new LongAdder();
      }
      return a;
    }

    void answered(StoreCommand kind, long elapsed) {
      answered[kind.ordinal()].increment();
      nanos[kind.ordinal()].add(elapsed);
    }

    void failed(StoreCommand kind) {
      failed[kind.ordinal()].increment();
    }

    /** The counts now, with the guard's degraded figures. */
    StoreStats stats(long degradedNanos, boolean degraded) {
      Map<StoreCommand, StoreStats.Command> m = new EnumMap<>(StoreCommand.class);
      for (StoreCommand k : StoreCommand.values()) {
        int i = k.ordinal();
        m.put(k, new StoreStats.Command(answered[i].sum(), nanos[i].sum(), failed[i].sum()));
      }
      return StoreStats.of(m, degradedNanos, degraded);
    }
  }

  /** The kind of a record: a flush when it carries successes only, no probe and no duration. */
  private static StoreCommand kindOf(Outcome o) {
    return o.failures() == 0 && o.leaseId().isEmpty() && o.durationMillis() < 0
        ? StoreCommand.FLUSH
        : StoreCommand.RECORD;
  }
}
