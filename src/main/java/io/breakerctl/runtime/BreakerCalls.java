package io.breakerctl.runtime;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/** The call paths shared by every {@link CircuitBreaker}: permission, run, classified outcome. */
final class BreakerCalls {
  private BreakerCalls() {}

  static <T> T sync(CircuitBreaker cb, Callable<T> call) throws Exception {
    Permission p = cb.tryAcquire();
    if (!p.allowed()) {
      throw rejection(cb, p);
    }
    long start = System.nanoTime();
    T result;
    try {
      result = call.call();
    } catch (Exception | Error e) {
      p.onError(e, System.nanoTime() - start);
      throw e;
    }
    p.onResult(result, System.nanoTime() - start);
    return result;
  }

  static <T> CompletionStage<T> async(
      CircuitBreaker cb, Supplier<? extends CompletionStage<T>> call) {
    Permission p = cb.tryAcquire();
    if (!p.allowed()) {
      return CompletableFuture.failedFuture(rejection(cb, p));
    }
    long start = System.nanoTime();
    CompletionStage<T> stage;
    try {
      stage = call.get();
      if (stage == null) {
        throw new NullPointerException("the async call of " + cb.id() + " returned no stage");
      }
    } catch (RuntimeException | Error e) {
      p.onError(e, System.nanoTime() - start);
      return CompletableFuture.failedFuture(e);
    }
    AsyncCall<T> out = new AsyncCall<>(p, stage);
    stage.whenComplete(
        (v, e) -> {
          long nanos = System.nanoTime() - start;
          if (e == null) {
            if (out.complete(v)) {
              p.onResult(v, nanos);
            }
          } else if (out.completeExceptionally(FailureClassifier.unwrap(e))) {
            p.onError(e, nanos);
          }
        });
    return out;
  }

  static CallNotPermittedException rejection(CircuitBreaker cb, Permission p) {
    return new CallNotPermittedException(cb.id(), p.state(), p.reason(), p.rejectionStackTrace());
  }

  /**
   * The stage a caller gets: completed by the call's stage, or cancelled by the caller first, which
   * records nothing and cancels the call's stage. Exactly one of the two completes it.
   */
  private static final class AsyncCall<T> extends CompletableFuture<T> {
    private final Permission permission;
    private final CompletionStage<T> source;

    AsyncCall(Permission permission, CompletionStage<T> source) {
      this.permission = permission;
      this.source = source;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      boolean cancelled = super.cancel(mayInterruptIfRunning);
      if (cancelled) {
        permission.onIgnored();
        try {
          source.toCompletableFuture().cancel(mayInterruptIfRunning);
        } catch (UnsupportedOperationException e) {
          // a stage that cannot be cancelled runs on; its outcome is no longer recorded
        }
      }
      return cancelled;
    }
  }
}
