package io.breakerctl.runtime.toolkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.CallNotPermittedException;
import io.breakerctl.runtime.CallOutcome;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.internal.RegistryInternals;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Async calls and decorators through a HYBRID breaker on a real redis-server. */
@DisplayName("Async calls and decorators")
class AsyncCallsIT {

  @RegisterExtension
  static final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);

  private static final AtomicInteger SEQ = new AtomicInteger();
  static BreakerRegistry registry;
  static ExecutorService pool;

  @BeforeAll
  static void start() {
    registry =
        BreakerRegistry.builder()
            .redisUri(redis.uri())
            .nodeId("async")
            .mode(Mode.HYBRID)
            // exact totals in Redis are the subject: a node that degrades keeps the failures it
            // counts meanwhile to itself, and with the default 50 ms a starved machine's 300
            // failure records fired at once degraded it (the totals stayed short of 300 in a run
            // with a busy core)
            .commandTimeout(Duration.ofSeconds(2))
            .flushInterval(Duration.ofMillis(100))
            .defaults(Policy.builder().failureThreshold(100_000).minimumCalls(1_000_000).build())
            .build();
    pool = Executors.newFixedThreadPool(8);
  }

  @AfterAll
  static void stop() {
    pool.shutdownNow();
    registry.close();
  }

  private static CircuitBreaker breaker(OutcomeCounter counter) {
    CircuitBreaker cb = registry.breaker(BreakerId.parse("async:calls-" + SEQ.incrementAndGet()));
    cb.observe(counter);
    return cb;
  }

  private static BreakerSnapshot shared(CircuitBreaker cb) {
    return RegistryInternals.store(registry).state(cb.id()).join();
  }

  @Test
  @DisplayName("1,000 concurrent async calls record exactly their outcomes")
  void thousandConcurrentCalls() throws Exception {
    OutcomeCounter counter = new OutcomeCounter();
    CircuitBreaker cb = breaker(counter);
    CountDownLatch go = new CountDownLatch(1);
    List<CompletionStage<String>> stages = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      int kind = i % 10; // 6 successes, 3 failures, 1 caller error in every ten
      stages.add(
          cb.callAsync(
              () ->
                  CompletableFuture.supplyAsync(
                      () -> {
                        await(go);
                        sleepMicros(ThreadLocalRandom.current().nextInt(200));
                        if (kind < 6) {
                          return "ok";
                        }
                        if (kind < 9) {
                          throw new IllegalStateException("down");
                        }
                        throw new Status.Failure(404);
                      },
                      pool)));
    }
    go.countDown();
    int ok = 0;
    int failed = 0;
    for (CompletionStage<String> s : stages) {
      try {
        s.toCompletableFuture().get(10, TimeUnit.SECONDS);
        ok++;
      } catch (java.util.concurrent.ExecutionException e) {
        failed++;
      }
    }

    assertThat(ok).isEqualTo(600);
    assertThat(failed).isEqualTo(400);
    // a stage completes the caller's stage first and then records its outcome (so a cancel that
    // wins records nothing): the last outcomes may land just after the last get() returned
    Poll.until(
        Duration.ofSeconds(5),
        "the observer to see every outcome",
        () ->
            counter.count(CallOutcome.SUCCESS) == 600 && counter.count(CallOutcome.FAILURE) == 300);
    Poll.until(
        Duration.ofSeconds(5),
        "the observer to see every caller error",
        () -> counter.count(CallOutcome.IGNORED) == 100);
    assertThat(counter.count(CallOutcome.SUCCESS)).isEqualTo(600);
    assertThat(counter.count(CallOutcome.FAILURE)).isEqualTo(300);
    assertThat(counter.count(CallOutcome.IGNORED)).isEqualTo(100);
    Poll.until(
        Duration.ofSeconds(10),
        "600 successes and 300 failures in Redis",
        () -> {
          BreakerSnapshot s = shared(cb);
          return s.number("successesTotal") == 600 && s.number("failuresTotal") == 300;
        });
    assertThat(cb.view().state()).isEqualTo(State.CLOSED);
  }

  @Test
  @DisplayName("a cancelled stage records nothing, whoever cancels it")
  void cancellationRecordsNothing() throws Exception {
    OutcomeCounter counter = new OutcomeCounter();
    CircuitBreaker cb = breaker(counter);
    CompletableFuture<String> never = new CompletableFuture<>();
    CompletionStage<String> byCaller = cb.callAsync(() -> never);
    byCaller.toCompletableFuture().cancel(true);
    CompletableFuture<String> cancelledBelow = new CompletableFuture<>();
    CompletionStage<String> byDependency = cb.callAsync(() -> cancelledBelow);
    cancelledBelow.cancel(true);
    never.complete("too late"); // already cancelled: nothing more is recorded

    assertThat(never).isCancelled();
    assertThatThrownBy(() -> byDependency.toCompletableFuture().join())
        .isInstanceOf(CancellationException.class);
    assertThat(counter.count(CallOutcome.IGNORED)).isEqualTo(2);
    assertThat(counter.count(CallOutcome.SUCCESS) + counter.count(CallOutcome.FAILURE)).isZero();
    cb.tryAcquire().onFailure(new IllegalStateException("fence"), 1_000_000);
    Poll.until(Duration.ofSeconds(5), "the fence", () -> shared(cb).number("failuresTotal") >= 1);
    Thread.sleep(250); // two flush intervals: a success would have been flushed by now
    assertThat(shared(cb).number("failuresTotal")).isEqualTo(1);
    assertThat(shared(cb).number("successesTotal")).isZero();
  }

  @Test
  @DisplayName(
      "decorated functions run through the breaker on every call and are rejected when open")
  void decorators() throws Exception {
    OutcomeCounter counter = new OutcomeCounter();
    CircuitBreaker cb = breaker(counter);
    Supplier<String> get = cb.decorate(() -> "member");
    Function<Integer, Integer> twice = cb.decorate((Integer x) -> 2 * x);
    java.util.concurrent.Callable<String> checked = cb.decorateChecked(() -> "checked");
    Supplier<CompletionStage<String>> async =
        cb.decorateAsync(() -> CompletableFuture.completedFuture("async"));

    assertThat(get.get()).isEqualTo("member");
    assertThat(twice.apply(21)).isEqualTo(42);
    assertThat(checked.call()).isEqualTo("checked");
    assertThat(async.get().toCompletableFuture().join()).isEqualTo("async");
    assertThat(counter.count(CallOutcome.SUCCESS)).isEqualTo(4);

    registry.breaker(cb.id()); // same instance
    forceOpen(cb);
    assertThatThrownBy(get::get).isInstanceOf(CallNotPermittedException.class);
    assertThatThrownBy(() -> async.get().toCompletableFuture().join())
        .hasCauseInstanceOf(CallNotPermittedException.class);
    assertThat(counter.count(CallOutcome.REJECTED)).isEqualTo(2);
  }

  private static void forceOpen(CircuitBreaker cb) {
    RegistryInternals.store(registry)
        .override(
            cb.id(),
            new OverrideRequest(
                OverrideKind.FORCED_OPEN, "test", "decorators", Duration.ofMinutes(5), "c-1"))
        .join();
    Poll.until(
        Duration.ofSeconds(5),
        "the override reaches the node",
        () -> cb.view().state() == State.FORCED_OPEN);
  }

  private static void await(CountDownLatch l) {
    try {
      l.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void sleepMicros(long micros) {
    java.util.concurrent.locks.LockSupport.parkNanos(micros * 1_000);
  }
}
