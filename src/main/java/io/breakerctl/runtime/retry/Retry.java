package io.breakerctl.runtime.retry;

import io.breakerctl.runtime.CallNotPermittedException;
import io.breakerctl.runtime.CallOutcome;
import io.breakerctl.runtime.CallTimeoutException;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.FailureClassifier;
import io.breakerctl.runtime.Permission;
import io.breakerctl.runtime.model.BackoffHint;
import io.breakerctl.runtime.model.RateLimitAction;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Retries calls under one breaker with a {@link RetryPolicy}. Create once per breaker and policy
 * (the retry budget lives here) and share it.
 *
 * <p>Every attempt asks the breaker for permission and reports its classified outcome, so every
 * attempt counts in the failure accounting; a rejection ends the call at once ({@link
 * CallNotPermittedException}: no retry once the breaker rejects). An outcome in {@code retryOn} is
 * retried while attempts remain, after a full-jitter backoff of at least the dependency's {@code
 * Retry-After}, unless the wait would pass the caller's {@link Deadline} (with no deadline: a
 * {@code Retry-After} above {@code maxDelay}) or the retry budget is spent. An attempt runs at most
 * until the attempt timeout or the deadline, whichever is first; one past it is abandoned
 * (interrupted), counts as a {@link CallOutcome#TIMEOUT} and ends in {@link CallTimeoutException}
 * when it was the last. The call that gives up sees the last attempt's result or exception. An
 * answer whose back-off hint the breaker took (a failure with {@code Retry-After}, or a 429 under
 * {@code rateLimited: BACKOFF} or {@code COUNT}) is not retried: the whole fleet is shut for that
 * wait, so a retry could only meet a rejection; the caller sees the answer itself.
 */
public final class Retry {
  private static final ExecutorService ATTEMPTS =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "breakerctl-attempt");
            t.setDaemon(true);
            return t;
          });

  private final CircuitBreaker breaker;
  private final RetryPolicy policy;
  private final RetryBudget budget;
  private final ExecutorService executor;
  private final Clock clock;

  private Retry(CircuitBreaker breaker, RetryPolicy policy, ExecutorService executor, Clock clock) {
    this.breaker = Objects.requireNonNull(breaker, "breaker");
    this.policy = Objects.requireNonNull(policy, "policy");
    this.budget = new RetryBudget(policy.budgetRatio(), policy.budgetWindow().toNanos());
    this.executor = executor;
    this.clock = clock;
  }

  /**
   * Retries under {@code breaker} with {@code policy}; bounded synchronous attempts run on a shared
   * pool of daemon threads.
   */
  public static Retry of(CircuitBreaker breaker, RetryPolicy policy) {
    return new Retry(breaker, policy, ATTEMPTS, Clock.systemUTC());
  }

  /** The same, bounded synchronous attempts running on {@code executor}. */
  public static Retry of(CircuitBreaker breaker, RetryPolicy policy, ExecutorService executor) {
    return new Retry(
        breaker, policy, Objects.requireNonNull(executor, "executor"), Clock.systemUTC());
  }

  /** The breaker. */
  public CircuitBreaker breaker() {
    return breaker;
  }

  /** The policy. */
  public RetryPolicy policy() {
    return policy;
  }

  /** Runs {@code call} with retries and no deadline. */
  public <T> T call(AttemptCall<T> call) throws Exception {
    return call(Deadline.NONE, call);
  }

  /**
   * Runs {@code call} with retries within {@code deadline}.
   *
   * @throws CallNotPermittedException when the breaker rejects an attempt
   * @throws CallTimeoutException when the last attempt passed its timeout or the deadline passed
   */
  public <T> T call(Deadline deadline, AttemptCall<T> call) throws Exception {
    String key = UUID.randomUUID().toString();
    for (int n = 1; ; n++) {
      Permission p = permit(n, deadline);
      Attempt attempt = new Attempt(n, key, deadline);
      long bound = bound(deadline);
      long start = System.nanoTime();
      T result = null;
      Throwable error = null;
      CallOutcome outcome;
      try {
        result = bound == Long.MAX_VALUE ? call.call(attempt) : bounded(call, attempt, bound);
        outcome = breaker.classifier().classifyResult(result);
      } catch (AbandonedAttempt e) {
        error = new CallTimeoutException(breaker.id(), Duration.ofNanos(bound));
        outcome = CallOutcome.TIMEOUT;
      } catch (InterruptedException e) {
        p.onIgnored();
        throw e;
      } catch (Exception | Error e) {
        error = e;
        outcome = breaker.classifier().classify(e);
      }
      p.onOutcome(
          outcome, System.nanoTime() - start, hintOf(outcome, error != null ? error : result));
      long wait = retryWait(n, outcome, error != null ? error : result, deadline);
      if (wait < 0) {
        return finish(result, error);
      }
      try {
        TimeUnit.NANOSECONDS.sleep(wait);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return finish(result, error);
      }
    }
  }

  /**
   * Starts {@code call} with retries within {@code deadline}; the stage fails with the last
   * attempt's exception, {@link CallNotPermittedException} or {@link CallTimeoutException}.
   * Cancelling it stops further attempts.
   */
  public <T> CompletionStage<T> callAsync(Deadline deadline, AsyncAttemptCall<T> call) {
    CompletableFuture<T> out = new CompletableFuture<>();
    attemptAsync(1, UUID.randomUUID().toString(), deadline, call, out);
    return out;
  }

  private <T> void attemptAsync(
      int n, String key, Deadline deadline, AsyncAttemptCall<T> call, CompletableFuture<T> out) {
    if (out.isDone()) {
      return;
    }
    Permission p;
    try {
      p = permit(n, deadline);
    } catch (RuntimeException e) {
      out.completeExceptionally(e);
      return;
    }
    long bound = bound(deadline);
    long start = System.nanoTime();
    AtomicBoolean settled = new AtomicBoolean();
    CompletableFuture<T> stage;
    try {
      stage = call.start(new Attempt(n, key, deadline)).toCompletableFuture();
    } catch (RuntimeException | Error e) {
      stage = CompletableFuture.failedFuture(e);
    }
    CompletableFuture<T> running = stage;
    if (bound != Long.MAX_VALUE) {
      CompletableFuture.delayedExecutor(bound, TimeUnit.NANOSECONDS)
          .execute(
              () -> {
                if (settled.compareAndSet(false, true)) {
                  p.onOutcome(CallOutcome.TIMEOUT, System.nanoTime() - start);
                  running.cancel(true);
                  Throwable timeout =
                      new CallTimeoutException(breaker.id(), Duration.ofNanos(bound));
                  next(n, key, deadline, call, out, CallOutcome.TIMEOUT, null, timeout);
                }
              });
    }
    stage.whenComplete(
        (v, e) -> {
          if (!settled.compareAndSet(false, true)) {
            return;
          }
          Throwable error = e == null ? null : FailureClassifier.unwrap(e);
          CallOutcome outcome =
              error == null
                  ? breaker.classifier().classifyResult(v)
                  : breaker.classifier().classify(error);
          p.onOutcome(
              outcome, System.nanoTime() - start, hintOf(outcome, error != null ? error : v));
          next(n, key, deadline, call, out, outcome, v, error);
        });
  }

  private <T> void next(
      int n,
      String key,
      Deadline deadline,
      AsyncAttemptCall<T> call,
      CompletableFuture<T> out,
      CallOutcome outcome,
      T result,
      Throwable error) {
    long wait = out.isDone() ? -1 : retryWait(n, outcome, error != null ? error : result, deadline);
    if (wait < 0) {
      if (error != null) {
        out.completeExceptionally(error);
      } else {
        out.complete(result);
      }
      return;
    }
    CompletableFuture.delayedExecutor(wait, TimeUnit.NANOSECONDS)
        .execute(() -> attemptAsync(n + 1, key, deadline, call, out));
  }

  /** Asks the breaker for attempt {@code n}; counts it; throws when rejected or out of time. */
  private Permission permit(int n, Deadline deadline) {
    if (deadline.expired()) {
      throw new CallTimeoutException(breaker.id(), Duration.ZERO);
    }
    Permission p = breaker.tryAcquire();
    if (!p.allowed()) {
      throw CallNotPermittedException.of(breaker.id(), p);
    }
    if (n == 1) {
      budget.first();
    } else {
      breaker.observer().retried(n);
    }
    return p;
  }

  /** The nanoseconds attempt may run: the attempt timeout or the deadline, whichever is first. */
  private long bound(Deadline deadline) {
    long bound = deadline.remainingNanos();
    if (policy.attemptTimeout().isPresent()) {
      bound = Math.min(bound, policy.attemptTimeout().get().toNanos());
    }
    return bound;
  }

  /**
   * The back-off hint an answer that may carry one (a failure, a rate limit) reports with its
   * outcome, as {@code Permission.onResult} and {@code onError} find it; else null.
   */
  private BackoffHint hintOf(CallOutcome outcome, Object errorOrResult) {
    return outcome.failure() || outcome == CallOutcome.RATE_LIMITED
        ? breaker.classifier().backoffHint(errorOrResult, clock).orElse(null)
        : null;
  }

  /** Whether the breaker took this answer's back-off hint (see the class comment). */
  private boolean backsOffTheFleet(CallOutcome outcome, Object errorOrResult) {
    boolean taken =
        outcome.failure()
            || (outcome == CallOutcome.RATE_LIMITED
                && breaker.view().policy().rateLimited() != RateLimitAction.IGNORE);
    return taken
        && BackoffHint.lenient(() -> Optional.ofNullable(hintOf(outcome, errorOrResult)))
            .isPresent();
  }

  /**
   * The wait before the next attempt in nanoseconds, or -1 when the call ends here: the outcome is
   * not retried, attempts or time ran out, or the budget is spent (reported to the observer).
   */
  private long retryWait(int n, CallOutcome outcome, Object errorOrResult, Deadline deadline) {
    if (!policy.retryOn().contains(outcome)
        || n >= policy.maxAttempts()
        || backsOffTheFleet(outcome, errorOrResult)) {
      return -1;
    }
    long cap =
        Math.min(policy.maxDelay().toNanos(), policy.baseDelay().toNanos() << Math.min(n - 1, 30));
    long wait = ThreadLocalRandom.current().nextLong(cap + 1);
    if (outcome == CallOutcome.RATE_LIMITED) {
      long asked =
          FailureClassifier.retryAfter(errorOrResult, clock).map(Duration::toNanos).orElse(0L);
      if (deadline.unbounded() && asked > policy.maxDelay().toNanos()) {
        return -1;
      }
      wait = Math.max(wait, asked);
    }
    if (wait >= deadline.remainingNanos()) {
      return -1;
    }
    if (!budget.tryRetry(breaker.view().degraded())) {
      breaker.observer().retryBudgetExhausted();
      return -1;
    }
    return wait;
  }

  private <T> T bounded(AttemptCall<T> call, Attempt attempt, long nanos) throws Exception {
    Future<T> f = executor.submit(() -> call.call(attempt));
    try {
      return f.get(nanos, TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      f.cancel(true);
      throw new AbandonedAttempt();
    } catch (InterruptedException e) {
      f.cancel(true);
      throw e;
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof Exception ex) {
        throw ex;
      }
      throw (Error) cause;
    }
  }

  private static <T> T finish(T result, Throwable error) throws Exception {
    if (error == null) {
      return result;
    }
    if (error instanceof Error e) {
      throw e;
    }
    throw (Exception) error;
  }

  /** An attempt passed its bound and was abandoned. */
  private static final class AbandonedAttempt extends Exception {
    private static final long serialVersionUID = 1L;

    AbandonedAttempt() {
      super(null, null, false, false);
    }
  }
}
