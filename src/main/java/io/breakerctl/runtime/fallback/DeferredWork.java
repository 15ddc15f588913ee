package io.breakerctl.runtime.fallback;

/**
 * The work behind a deferrable request: runs a request (its payload) against the dependency, when
 * it is called and again after recovery for a request that was deferred.
 *
 * <p>Delivery is <b>at least once</b>: a replay may run a request that already had its effect (the
 * node that ran it stopped before it recorded the end; a lease shorter than the work). Every run of
 * one request gets the same idempotency key, its tracking id ({@link #run(byte[], String)}: the
 * first call made by {@code Fallbacks.submit} as well as each replay), so the dependency can
 * deduplicate; each run is counted as an attempt in the request's record.
 */
public interface DeferredWork<T> {

  /** Runs the request. */
  T run(byte[] payload) throws Exception;

  /**
   * Runs the request under {@code idempotencyKey}, the request's tracking id, the same for every
   * run of it; by default {@link #run(byte[])} (the key unused). Override it (or build the work
   * with {@link #keyed}) to pass the key to the dependency.
   */
  default T run(byte[] payload, String idempotencyKey) throws Exception {
    return run(payload);
  }

  /** What is recorded as a deferred request's result (default: {@code String.valueOf}). */
  default String summarize(T result) {
    return String.valueOf(result);
  }

  /**
   * Work that takes the idempotency key: {@code (payload, key) -> client.transfer(payload, key)}.
   */
  static <T> DeferredWork<T> keyed(Keyed<T> work) {
    return new DeferredWork<>() {
      @Override
      public T run(byte[] payload) throws Exception {
        return work.run(payload, java.util.UUID.randomUUID().toString());
      }

      @Override
      public T run(byte[] payload, String idempotencyKey) throws Exception {
        return work.run(payload, idempotencyKey);
      }
    };
  }

  /** The body of {@link #keyed} work. */
  @FunctionalInterface
  interface Keyed<T> {
    T run(byte[] payload, String idempotencyKey) throws Exception;
  }
}
