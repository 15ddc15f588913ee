package io.breakerctl.runtime.toolkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.CallObserver;
import io.breakerctl.runtime.CallOutcome;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.FailureClassifier;
import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.internal.RegistryInternals;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Failure classification through the real breaker (HYBRID on a real redis-server): each row is a
 * call that throws or returns something; the breaker's observer must see the typed outcome, and
 * Redis must hold exactly the failures the row counts (a fence failure after the row orders it).
 */
@DisplayName("Failure classification through the real breaker")
class ClassificationIT {

  @RegisterExtension
  static final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);

  private static final AtomicInteger SEQ = new AtomicInteger();
  private static final FailureClassifier CUSTOM =
      FailureClassifier.builder()
          .ignoreExceptions(IllegalArgumentException.class)
          .recordExceptions(IOException.class)
          .recordException(e -> e.getMessage() != null && e.getMessage().startsWith("count me"))
          .recordResult(r -> "bad".equals(r))
          .build();

  static BreakerRegistry registry;

  @BeforeAll
  static void start() {
    registry =
        BreakerRegistry.builder()
            .redisUri(redis.uri())
            .nodeId("classify")
            .mode(Mode.HYBRID)
            .flushInterval(Duration.ofHours(1))
            .defaults(
                Policy.builder()
                    .failureThreshold(100)
                    .slowCallMillis(150)
                    .open(Duration.ofSeconds(30))
                    .build())
            .build();
  }

  @AfterAll
  static void stop() {
    registry.close();
  }

  static Stream<Arguments> table() {
    return Stream.of(
        row("a plain result", ok("member"), null, CallOutcome.SUCCESS),
        row("a runtime exception", thrown(new IllegalStateException("boom")), null, fail()),
        row("a socket timeout", thrown(new SocketTimeoutException("read")), null, timeout()),
        row("a timeout exception", thrown(new TimeoutException("t")), null, timeout()),
        row("a refused connection", thrown(new ConnectException("refused")), null, fail()),
        row(
            "a wrapped 503",
            thrown(new CompletionException(new Status.Failure(503))),
            null,
            fail()),
        row("a thrown 404", thrown(new Status.Failure(404)), null, CallOutcome.IGNORED),
        row("a thrown 429", thrown(new Status.Failure(429)), null, CallOutcome.RATE_LIMITED),
        row("a 500 result", ok(Status.of(500)), null, fail()),
        row("a 200 result", ok(Status.of(200)), null, CallOutcome.SUCCESS),
        row("a 404 result", ok(Status.of(404)), null, CallOutcome.IGNORED),
        row("a 429 result", ok(Status.of(429)), null, CallOutcome.RATE_LIMITED),
        row("a cancellation", thrown(new CancellationException()), null, CallOutcome.IGNORED),
        row("a slow success", slow(), null, CallOutcome.SLOW),
        row("custom: an ignored type", thrown(new IllegalArgumentException("x")), CUSTOM, ign()),
        row("custom: a recorded type", thrown(new IOException("io")), CUSTOM, fail()),
        row(
            "custom: a recorded predicate",
            thrown(new IllegalStateException("count me")),
            CUSTOM,
            fail()),
        row(
            "custom: an unlisted type",
            thrown(new IllegalStateException("other")),
            CUSTOM,
            CallOutcome.SUCCESS),
        row("custom: a failing result", ok("bad"), CUSTOM, fail()),
        row("custom: a good result", ok("good"), CUSTOM, CallOutcome.SUCCESS));
  }

  @ParameterizedTest(name = "{0} -> {3}")
  @MethodSource("table")
  @DisplayName("each exception and result counts as the table says")
  void classifies(String what, Callable<Object> call, FailureClassifier c, CallOutcome expected)
      throws Exception {
    CircuitBreaker cb = registry.breaker(BreakerId.parse("classify:row-" + SEQ.incrementAndGet()));
    if (c != null) {
      cb.classifier(c);
    }
    List<CallOutcome> seen = new CopyOnWriteArrayList<>();
    cb.observe(
        new CallObserver() {
          @Override
          public void outcome(CallOutcome outcome, long nanos) {
            seen.add(outcome);
          }
        });

    try {
      cb.callChecked(call);
    } catch (Exception e) {
      // the row's exception reaches the caller unchanged; its count is what is checked
    }
    long pending = cb.view().pendingSuccesses();
    cb.tryAcquire().onFailure(new IllegalStateException("fence"), 1_000_000);

    assertThat(seen).as(what).startsWith(expected);
    long failures = expected.failure() ? 2 : 1;
    Poll.until(Duration.ofSeconds(5), "the fence reaches Redis", () -> total(cb) >= 1);
    assertThat(total(cb)).as(what + ": failures in Redis").isEqualTo(failures);
    assertThat(pending)
        .as(what + ": successes pending")
        .isEqualTo(expected == CallOutcome.SUCCESS ? 1 : 0);
  }

  private static long total(CircuitBreaker cb) {
    return RegistryInternals.store(registry).state(cb.id()).join().number("failuresTotal");
  }

  private static Arguments row(
      String what, Callable<Object> call, FailureClassifier c, CallOutcome expected) {
    return Arguments.of(what, call, c, expected);
  }

  private static Callable<Object> ok(Object value) {
    return () -> value;
  }

  private static Callable<Object> thrown(Exception e) {
    return () -> {
      throw e;
    };
  }

  private static Callable<Object> slow() {
    return () -> {
      Thread.sleep(200);
      return "late";
    };
  }

  private static CallOutcome fail() {
    return CallOutcome.FAILURE;
  }

  private static CallOutcome timeout() {
    return CallOutcome.TIMEOUT;
  }

  private static CallOutcome ign() {
    return CallOutcome.IGNORED;
  }
}
