package io.breakerctl.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The public API against a real redis-server: calls, rejections, events, the cheap probe. */
@DisplayName("Runtime API")
class RuntimeApiIT {

  @RegisterExtension
  static final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);

  private static final AtomicInteger SEQ = new AtomicInteger();

  private BreakerRegistry registry(Mode mode, Policy p) {
    return redis.manage(
        BreakerRegistry.builder()
            .redisUri(redis.uri())
            .nodeId("api-" + mode.name().toLowerCase())
            .mode(mode)
            .defaults(p)
            .build());
  }

  @Test
  @DisplayName(
      "call returns the value, records failures, then rejects naming breaker and state without a stack trace")
  void callsAndRejection() throws Exception {
    Policy p = Policy.builder().failureThreshold(2).open(Duration.ofSeconds(30)).build();
    CircuitBreaker cb =
        registry(Mode.HYBRID, p).breaker(BreakerId.parse("api:calls-" + SEQ.incrementAndGet()));
    List<CircuitEvent> events = new CopyOnWriteArrayList<>();
    cb.onEvent(events::add);

    assertThat(cb.call(() -> "ok")).isEqualTo("ok");
    assertThat(cb.callChecked(() -> 42)).isEqualTo(42);
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(
              () ->
                  cb.call(
                      () -> {
                        throw new IllegalStateException("boom");
                      }))
          .isInstanceOf(IllegalStateException.class);
    }
    Poll.until(
        Duration.ofSeconds(3),
        "the shared trip reaches this node",
        () -> cb.view().state() == State.OPEN);

    assertThatThrownBy(() -> cb.call(() -> "never"))
        .isInstanceOfSatisfying(
            CallNotPermittedException.class,
            e -> {
              assertThat(e.getMessage()).contains(cb.id().toString()).contains("OPEN");
              assertThat(e.getStackTrace()).isEmpty();
              assertThat(e.breaker()).isEqualTo(cb.id());
              assertThat(e.state()).isEqualTo(State.OPEN);
            });
    assertThat(events)
        .extracting(CircuitEvent::type)
        .contains(CircuitEvent.Type.TRANSITION, CircuitEvent.Type.REJECTED);
  }

  @Test
  @DisplayName("a cheap probe tests recovery instead of real traffic, which is rejected meanwhile")
  void cheapProbe() {
    Policy p = Policy.builder().failureThreshold(1).open(Duration.ofMillis(300)).build();
    CircuitBreaker cb =
        registry(Mode.HYBRID, p).breaker(BreakerId.parse("api:probe-" + SEQ.incrementAndGet()));
    AtomicInteger healthChecks = new AtomicInteger();
    cb.probe(
        () -> {
          healthChecks.incrementAndGet();
          return true;
        });
    List<CircuitEvent> events = new CopyOnWriteArrayList<>();
    cb.onEvent(events::add);
    cb.tryAcquire().onFailure(new RuntimeException("down"), 1_000_000);
    Poll.until(Duration.ofSeconds(3), "open", () -> cb.view().state() == State.OPEN);

    AtomicInteger realCalls = new AtomicInteger();
    Poll.until(
        Duration.ofSeconds(5),
        "the probe closes the breaker",
        () -> {
          Permission permission = cb.tryAcquire();
          if (permission.allowed()) {
            realCalls.incrementAndGet();
            permission.onSuccess(1_000_000);
          }
          return cb.view().state() == State.CLOSED;
        });

    assertThat(healthChecks.get()).isEqualTo(1);
    assertThat(events).extracting(CircuitEvent::type).contains(CircuitEvent.Type.PROBE_SUCCEEDED);
    assertThat(realCalls.get())
        .as("real calls admitted before the probe closed it")
        .isLessThanOrEqualTo(1);
  }

  @Test
  @DisplayName("LOCAL mode needs no Redis and behaves like the scripts")
  void localMode() {
    BreakerRegistry local =
        BreakerRegistry.builder()
            .mode(Mode.LOCAL)
            .defaults(Policy.builder().failureThreshold(3).build())
            .build();
    try {
      CircuitBreaker cb = local.breaker("api:local");
      for (int i = 0; i < 3; i++) {
        cb.tryAcquire().onFailure(new RuntimeException(), 1_000_000);
      }
      assertThat(cb.tryAcquire().allowed()).isFalse();
      assertThat(cb.view().state()).isEqualTo(State.OPEN);
      assertThat(local.degraded()).isFalse();
    } finally {
      local.close();
    }
  }
}
