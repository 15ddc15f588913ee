package io.breakerctl.runtime.fallback;

/**
 * The work behind a deferrable request: runs a request (its payload) against the dependency, when
 * it is called and again, once, after recovery for a request that was deferred.
 */
public interface DeferredWork<T> {

  /** Runs the request. */
  T run(byte[] payload) throws Exception;

  /** What is recorded as a deferred request's result (default: {@code String.valueOf}). */
  default String summarize(T result) {
    return String.valueOf(result);
  }
}
