package io.breakerctl.runtime;

import io.breakerctl.runtime.model.BreakerId;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * The call paths every {@code CircuitBreaker} shares once it answered a permission: run the call,
 * report its classified outcome (a rejection throws or fails the stage).
 */
final class BreakerCalls {
  private BreakerCalls() {}

  /** Runs {@code call} under {@code p} (the breaker {@code id}'s answer); rejected: throws. */
  static <T> T sync(BreakerId id, Permission p, Callable<T> call) throws Exception {
    if (!p.allowed()) {
      throw CallNotPermittedException.of(id, p);
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

  /** Starts {@code call} under {@code p} (the breaker {@code id}'s answer); rejected: fails. */
  static <T> CompletionStage<T> async(
      BreakerId id, Permission p, Supplier<? extends CompletionStage<T>> call) {
    if (!p.allowed()) {
      return CompletableFuture.failedFuture(CallNotPermittedException.of(id, p));
    }
    long start = System.nanoTime();
    CompletionStage<T> stage;
    try {
      stage = call.get();
      if (stage == null) {
        throw new NullPointerException("the async call of " + id + " returned no stage");
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
