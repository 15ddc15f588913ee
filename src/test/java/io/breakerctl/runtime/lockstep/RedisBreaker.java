package io.breakerctl.runtime.lockstep;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.store.AcquireResult;
import io.breakerctl.runtime.store.BreakerEvent;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.OverrideResult;
import io.breakerctl.runtime.store.PolicyEncoding;
import io.breakerctl.runtime.store.RecordResult;
import io.breakerctl.runtime.store.RenewResult;
import io.breakerctl.runtime.store.WarmResult;
import io.lettuce.core.TransactionResult;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The scripts on a real redis-server, called through {@link RedisFleetStore}, each call bracketed
 * by Redis {@code TIME}: {@code MULTI; TIME; EVALSHA <script>; TIME; EXEC} on the store's own
 * connection (the store's command joins the transaction because it is sent on that connection
 * between MULTI and EXEC). The script's {@code TIME} lies between the two, so {@link #lo} and
 * {@link #hi} bound the Redis millisecond it decided at, however late the machine ran the step. One
 * exception: an acquire whose lean form is refused (the breaker is not closed) sends its full form
 * after EXEC, so its bracket runs from the second TIME to one read after the answer.
 */
final class RedisBreaker implements Breaker {
  private static final long WAIT_SECONDS = 60;

  private final RedisFleetStore store;
  private final BreakerId id;
  private final Policy policy;
  private final String policyArg;
  private final RedisAsyncCommands<String, String> async;
  private String lastEvent = "";

  /** The Redis time (ms) the last script call ran at is in [lo, hi]. */
  long lo;

  long hi;

  @SuppressWarnings("unchecked")
  RedisBreaker(RedisFleetStore store, BreakerId id, Policy policy) {
    this.store = store;
    this.id = id;
    this.policy = policy;
    this.policyArg = PolicyEncoding.toArg(policy);
    this.async = ((StatefulRedisConnection<String, String>) store.connection()).async();
  }

  @Override
  public boolean namesLeases() {
    return true;
  }

  @Override
  public AcquireResult acquire(String owner, String leaseName) {
    return timed(() -> store.acquire(id, owner, policy, leaseName));
  }

  @Override
  public RecordResult record(Outcome outcome) {
    return timed(() -> store.record(id, outcome, policy));
  }

  @Override
  public RenewResult renew(String owner, String leaseId, String generation) {
    return timed(() -> store.renew(id, owner, policy, leaseId, generation));
  }

  @Override
  public OverrideResult override(OverrideRequest request) {
    return timed(() -> store.override(id, request));
  }

  @Override
  public WarmResult warm(String policyId, long version, Policy p) {
    return timed(() -> store.warm(id, policyId, version, p, "lockstep"));
  }

  @Override
  public Map<String, String> hash(Function<String, String> handleOf) {
    BreakerSnapshot s = await(store.snapshot(id, 0));
    return MachineHash.of(s, policyArg, handleOf);
  }

  @Override
  public Map<String, String> storeFields() {
    return await(store.state(id)).fields();
  }

  @Override
  public List<String> drainEvents() {
    List<String> out = new ArrayList<>();
    for (BreakerEvent e : await(store.eventsAfter(id, lastEvent, 1000))) {
      out.add(
          e.from().code()
              + ">"
              + e.to().code()
              + " "
              + e.cause().name()
              + " g="
              + e.field("generation")
              + " at="
              + e.atMillis());
      lastEvent = e.streamId();
    }
    return out;
  }

  /** Redis time now (ms). */
  long now() {
    return millis(await(async.time()));
  }

  private <T> T timed(Supplier<CompletableFuture<T>> call) {
    async.multi();
    CompletionStage<List<String>> before = async.time();
    CompletableFuture<T> answer = call.get();
    CompletionStage<List<String>> after = async.time();
    TransactionResult tx = await(async.exec());
    T value = await(answer);
    lo = millis(await(before));
    hi = millis(await(after));
    Object reply = tx.size() == 3 ? tx.get(1) : null;
    if (!(reply instanceof List<?> r) || (r.size() == 1 && Long.valueOf(-1).equals(r.get(0)))) {
      // the script's answer came from a command sent after EXEC (the lean acquire's full form; a
      // NOSCRIPT retry, which the preloaded scripts should make impossible): it ran after `after`
      lo = hi;
      hi = now();
    }
    return value;
  }

  private static long millis(List<String> time) {
    return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
  }

  private static <T> T await(CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException("Redis call failed: " + e.getCause(), e.getCause());
    } catch (Exception e) {
      throw new IllegalStateException("Redis call did not answer in " + WAIT_SECONDS + " s", e);
    }
  }
}
