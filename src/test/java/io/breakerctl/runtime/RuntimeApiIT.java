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

  /**
   * Two nodes register health checks that hang 4.5 s (then fail) under a 2 s lease. The check runs
   * on a thread of its own and its lease is renewed from the registry's timer, so the other node
   * never gets the slot while the check hangs: one check in flight fleet-wide at any moment. Before
   * this, the check ran on the registry's scheduler thread, which also sent the renewals: none went
   * while it hung, the lease ran out after 2 s, and the other node's check started beside it (every
   * run).
   */
  @Test
  @DisplayName("a health check that hangs past its lease keeps it: one check in flight fleet-wide")
  void aHangingHealthCheckKeepsItsLease() throws Exception {
    Policy p =
        Policy.builder()
            .failureThreshold(1)
            .open(Duration.ofMillis(300))
            .maxOpen(Duration.ofMillis(300))
            .probeLease(Duration.ofSeconds(2))
            .build();
    BreakerId id = BreakerId.parse("api:hanging-check-" + SEQ.incrementAndGet());
    List<CircuitBreaker> nodes = new java.util.ArrayList<>();
    for (String node : List.of("check-a", "check-b")) {
      nodes.add(
          redis
              .manage(
                  BreakerRegistry.builder()
                      .redisUri(redis.uri())
                      .nodeId(node + "-" + SEQ.get())
                      .mode(Mode.HYBRID)
                      .defaults(p)
                      .build())
              .breaker(id));
    }
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    AtomicInteger checks = new AtomicInteger();
    for (CircuitBreaker cb : nodes) {
      cb.probe(
          () -> {
            most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            checks.incrementAndGet();
            try {
              Thread.sleep(4_500);
            } finally {
              inFlight.decrementAndGet();
            }
            return false;
          });
    }
    nodes.get(0).tryAcquire().onFailure(new RuntimeException("down"), 1_000_000);
    Poll.until(
        Duration.ofSeconds(5),
        "both nodes see the trip",
        () -> nodes.stream().allMatch(cb -> cb.view().state() != State.CLOSED));
    // both nodes keep asking (each ask while half-open starts a check if none runs on that node)
    // until the first check has hung longer than two leases
    Poll.until(Duration.ofSeconds(20), "a check starts", () -> askAll(nodes, checks));
    long until = System.nanoTime() + Duration.ofMillis(4_800).toNanos();
    while (System.nanoTime() < until) {
      askAll(nodes, checks);
      Thread.sleep(20);
    }
    assertThat(most.get()).as("health checks in flight at once across both nodes").isEqualTo(1);
  }

  /** One ask on every node; true once a health check has started. */
  private static boolean askAll(List<CircuitBreaker> nodes, AtomicInteger checks) {
    for (CircuitBreaker cb : nodes) {
      Permission permission = cb.tryAcquire();
      if (permission.allowed()) {
        permission.onIgnored();
      }
    }
    return checks.get() > 0;
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
