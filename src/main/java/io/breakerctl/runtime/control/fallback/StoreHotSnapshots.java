package io.breakerctl.runtime.control.fallback;

import io.breakerctl.runtime.HotSnapshots;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.store.BreakerStore;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.runtime.store.StoreUnavailableException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Hot copies of approved fallback snapshots on a {@link BreakerStore} (Redis: {@code
 * <prefix>:{<breaker>}:fb:<keyHash>}), each command bounded by the command timeout. A registry's
 * copy ({@link io.breakerctl.runtime.BreakerRegistry#hotSnapshots()}) goes through its timed store
 * and its coordinator guard: while the node is degraded every read misses at once (no call waits on
 * Redis either), and a failure counts towards the degradation like any other command's.
 */
public final class StoreHotSnapshots implements HotSnapshots {
  private final Supplier<BreakerStore> store;
  private final BooleanSupplier up;
  private final Consumer<Throwable> failed;
  private final Runnable succeeded;
  private final Duration timeout;

  /**
   * Hot snapshots in {@code store} (null while none is connected), read only while {@code up}, each
   * read bounded by {@code timeout}; a failure goes to {@code failed}, a success to {@code
   * succeeded} (the registry's background health).
   */
  public StoreHotSnapshots(
      Supplier<BreakerStore> store,
      BooleanSupplier up,
      Consumer<Throwable> failed,
      Runnable succeeded,
      Duration timeout) {
    this.store = store;
    this.up = up;
    this.failed = failed;
    this.succeeded = succeeded;
    this.timeout = timeout;
  }

  /**
   * Hot copies on {@code store} (the CLI's connection: {@code fallback approve} warms a copy,
   * {@code fallback revoke} removes it), each command bounded by {@code timeout}.
   */
  public static HotSnapshots on(BreakerStore store, Duration timeout) {
    Objects.requireNonNull(store, "store");
    return new StoreHotSnapshots(() -> store, () -> true, e -> {}, () -> {}, timeout);
  }

  @Override
  public Optional<String> get(BreakerId id, String keyHash) {
    return Optional.ofNullable(run(s -> s.hotGet(id, keyHash)));
  }

  @Override
  public void put(BreakerId id, String keyHash, String record, Duration ttl) {
    run(s -> s.hotPut(id, keyHash, record, ttl));
  }

  @Override
  public void delete(BreakerId id, String keyHash) {
    run(s -> s.hotDelete(id, keyHash));
  }

  private <T> T run(java.util.function.Function<BreakerStore, CompletableFuture<T>> command) {
    BreakerStore s = store.get();
    if (s == null || !up.getAsBoolean()) {
      throw new StoreUnavailableException("Redis is unavailable (the node is degraded)", null);
    }
    try {
      T v = StoreFutures.await(command.apply(s), timeout);
      succeeded.run();
      return v;
    } catch (RuntimeException e) {
      failed.accept(e);
      throw e;
    }
  }
}
