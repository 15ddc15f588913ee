package io.breakerctl.runtime.store;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waits for a store's futures. A store completes its futures exceptionally with a {@link
 * StoreException} of the right kind (the Redis adapter translates its client's errors as they
 * come); these waits rethrow it unwrapped, so a caller catches the store's kinds and never a {@code
 * CompletionException}.
 */
public final class StoreFutures {
  private StoreFutures() {}

  /**
   * Waits for one of a store's futures (each is bounded by the store's command timeout) and
   * rethrows its failure unwrapped.
   *
   * @throws StoreException the failure
   */
  public static <T> T await(CompletableFuture<T> future) {
    try {
      return future.join();
    } catch (CompletionException | CancellationException e) {
      throw failure(e);
    }
  }

  /**
   * Waits at most {@code limit} for one of a store's futures: a caller's own deadline, precise even
   * when the client's timeout fires late on a loaded machine.
   *
   * @throws StoreUnavailableException when the deadline passes
   * @throws StoreException the failure
   */
  public static <T> T await(CompletableFuture<T> future, Duration limit) {
    try {
      return future.get(limit.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw new StoreUnavailableException(
          "Redis did not answer within " + limit.toMillis() + " ms", e, StoreFault.TIMEOUT);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreUnavailableException("interrupted waiting for Redis", e);
    } catch (ExecutionException | CancellationException e) {
      throw failure(e);
    }
  }

  /** The store's own exception behind {@code e}, or one that names the unexpected failure. */
  private static StoreException failure(Exception e) {
    Throwable t = e;
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    if (t instanceof StoreException se) {
      return se;
    }
    if (t instanceof CancellationException) {
      return new StoreUnavailableException(
          "Redis call: Redis unavailable: cancelled", t, StoreFault.UNREACHABLE);
    }
    if (t instanceof TimeoutException) {
      return new StoreUnavailableException(
          "Redis call: Redis unavailable: " + t.getMessage(), t, StoreFault.TIMEOUT);
    }
    String msg = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    return new StoreException("Redis call: " + msg, t);
  }
}
