package io.breakerctl.integration.resilience4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.event.CircuitBreakerEvent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The adapter over one LOCAL node (no server: the local machine counts every outcome at once):
 * classification, events, metrics, state and the actuator settings. The fleet's behaviour is {@code
 * Resilience4jFleetIT}'s.
 */
@DisplayName("A Resilience4j CircuitBreaker over a breakerctl breaker (one LOCAL node)")
class BreakerctlCircuitBreakerTest {

  static final CircuitBreakerConfig CONFIG =
      CircuitBreakerConfig.custom()
          .failureRateThreshold(50)
          .minimumNumberOfCalls(4)
          .slidingWindowSize(10)
          .waitDurationInOpenState(Duration.ofMinutes(1))
          .ignoreExceptions(IllegalArgumentException.class)
          .recordExceptions(IOException.class, UncheckedIOException.class)
          .recordResult(r -> "bad".equals(r))
          .build();

  private final List<AutoCloseable> open = new ArrayList<>();

  private BreakerctlCircuitBreakerRegistry registry(BreakerctlCircuitBreakerRegistry.Builder b) {
    BreakerctlCircuitBreakerRegistry r = b.build();
    open.add(r);
    return r;
  }

  private BreakerctlCircuitBreakerRegistry local() {
    return registry(
        BreakerctlCircuitBreakerRegistry.builder(
                BreakerRegistry.builder().mode(Mode.LOCAL).nodeId("unit-1"))
            .application("unit")
            .defaultConfig(CONFIG));
  }

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
  }

  private static void fail(CircuitBreaker cb, RuntimeException e) {
    assertThatThrownBy(
            () ->
                cb.executeSupplier(
                    () -> {
                      throw e;
                    }))
        .isSameAs(e);
  }

  @Test
  @DisplayName(
      "ignoreExceptions count neither way, exceptions outside recordExceptions are successes,"
          + " recordResult and recorded exceptions are failures; the failure rate is -1 below"
          + " minimumCalls")
  void classification() {
    CircuitBreaker cb = local().circuitBreaker("members");
    List<String> events = new ArrayList<>();
    cb.getEventPublisher().onEvent(e -> events.add(e.getEventType().name()));

    for (int i = 0; i < 5; i++) {
      fail(cb, new IllegalArgumentException("caller error"));
    }
    assertThat(cb.getMetrics().getNumberOfBufferedCalls()).as("ignored").isZero();
    fail(cb, new IllegalStateException("not a recorded exception"));
    assertThat(cb.executeSupplier(() -> "good")).isEqualTo("good");
    assertThat(cb.getMetrics().getNumberOfSuccessfulCalls()).isEqualTo(2);
    assertThat(cb.getMetrics().getFailureRate()).as("2 calls < minimumCalls 4").isEqualTo(-1f);
    assertThat(cb.executeSupplier(() -> "bad")).isEqualTo("bad");
    assertThat(cb.getMetrics().getNumberOfFailedCalls()).isEqualTo(1);
    assertThat(cb.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
    fail(cb, new CompletionException(new UncheckedIOException(new IOException("down"))));

    assertThat(cb.getState())
        .as("2 failures of 4 calls: 50 %")
        .isEqualTo(CircuitBreaker.State.OPEN);
    assertThatThrownBy(() -> cb.executeSupplier(() -> "never"))
        .isInstanceOf(CallNotPermittedException.class)
        .hasMessageContaining("members");
    assertThat(cb.tryAcquirePermission()).isFalse();
    assertThat(cb.getMetrics().getNumberOfNotPermittedCalls()).isEqualTo(2);
    assertThat(events)
        .containsExactly(
            "IGNORED_ERROR",
            "IGNORED_ERROR",
            "IGNORED_ERROR",
            "IGNORED_ERROR",
            "IGNORED_ERROR",
            "SUCCESS",
            "SUCCESS",
            "ERROR",
            "ERROR",
            "STATE_TRANSITION",
            "NOT_PERMITTED",
            "NOT_PERMITTED");
  }

  @Test
  @DisplayName(
      "a report finds its permission: nested calls on one thread, and stages completed on another"
          + " thread, each count once")
  void reportsFindTheirPermission() throws Exception {
    CircuitBreaker cb = local().circuitBreaker("nested");

    String outer = cb.executeSupplier(() -> cb.executeSupplier(() -> "inner") + "+outer");
    String outerOfFailed =
        cb.executeSupplier(
            () -> {
              fail(cb, new UncheckedIOException(new IOException("inner down")));
              return "outer";
            });

    assertThat(outer).isEqualTo("inner+outer");
    assertThat(outerOfFailed).isEqualTo("outer");
    assertThat(cb.getMetrics().getNumberOfBufferedCalls()).isEqualTo(4);
    assertThat(cb.getMetrics().getNumberOfSuccessfulCalls())
        .as("two outer, one inner")
        .isEqualTo(3);
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newSingleThreadExecutor();
    try {
      for (int i = 0; i < 2; i++) {
        // completed by the pool once the stage is decorated: reported on the pool's thread
        CompletableFuture<String> dependency = new CompletableFuture<>();
        CompletableFuture<String> failed =
            cb.executeCompletionStage(() -> dependency).toCompletableFuture();
        pool.submit(
            () ->
                dependency.completeExceptionally(
                    new UncheckedIOException(new IOException("async down"))));
        assertThatThrownBy(failed::join).hasCauseInstanceOf(UncheckedIOException.class);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(cb.getMetrics().getNumberOfBufferedCalls())
        .as("the window emptied on the trip")
        .isZero();
    assertThat(cb.getState())
        .as("3 failures of 6 calls: 50 %")
        .isEqualTo(CircuitBreaker.State.OPEN);
  }

  @Test
  @DisplayName("a transition reaches onStateTransition as Resilience4j names it")
  void transitionEvent() {
    CircuitBreaker cb = local().circuitBreaker("payments");
    List<CircuitBreakerEvent> transitions = new ArrayList<>();
    cb.getEventPublisher().onStateTransition(transitions::add);

    for (int i = 0; i < 4; i++) {
      fail(cb, new UncheckedIOException(new IOException("down")));
    }

    assertThat(transitions)
        .singleElement()
        .hasToString(
            transitions.get(0).getCreationTime()
                + ": CircuitBreaker 'payments' changed state from CLOSED to OPEN");
  }

  @Test
  @DisplayName("the registry maps names, refuses two names on one id, and keeps one instance each")
  void names() {
    BreakerctlCircuitBreakerRegistry r = local();

    CircuitBreaker a = r.circuitBreaker("memberService");

    assertThat(((BreakerctlCircuitBreaker) a).breakerId())
        .isEqualTo(BreakerId.parse("unit:member-service"));
    assertThat(r.circuitBreaker("memberService")).isSameAs(a);
    assertThat(r.getAllCircuitBreakers()).containsExactly(a);
    assertThat(r.mapping()).containsEntry("memberService", BreakerId.parse("unit:member-service"));
    assertThatThrownBy(() -> r.circuitBreaker("member-service"))
        .hasMessageContaining(
            "'memberService' and 'member-service' both map to unit:member-service");
    assertThat(r.remove("memberService")).contains(a);
    assertThat(r.circuitBreaker("member-service")).as("the id is free again").isNotSameAs(a);
    assertThat(r.breakerRegistry().breaker("unit:member-service").view().policy())
        .as("the default config is the node defaults")
        .isEqualTo(PolicyMapping.policy(CONFIG));
  }

  @Test
  @DisplayName("REJECT and LOCAL refuse every transition, naming the setting")
  void rejectAndLocal() {
    CircuitBreaker rejecting = local().circuitBreaker("members");
    CircuitBreaker localOnly =
        registry(
                BreakerctlCircuitBreakerRegistry.builder(
                        BreakerRegistry.builder().mode(Mode.LOCAL).nodeId("unit-2"))
                    .application("unit")
                    .actuatorOverrides(ActuatorOverrides.LOCAL))
            .circuitBreaker("members");

    assertThatThrownBy(rejecting::transitionToForcedOpenState)
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("transitionToForcedOpenState on 'members' (unit:members)")
        .hasMessageContaining("actuatorOverrides is REJECT");
    assertThatThrownBy(rejecting::reset).hasMessageContaining("actuatorOverrides is REJECT");
    assertThatThrownBy(localOnly::transitionToDisabledState)
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("actuatorOverrides LOCAL is not available");
    assertThat(rejecting.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
  }

  @Test
  @DisplayName("FLEET hands each transition over with actor actuator@<node>, the reason, an expiry")
  void fleetRequests() {
    List<String> applied = new ArrayList<>();
    FleetOverrides record =
        (id, kind, actor, reason, expiry) ->
            applied.add(id + " " + kind + " " + actor + " " + reason + " " + expiry);
    CircuitBreaker cb =
        registry(
                BreakerctlCircuitBreakerRegistry.builder(
                        BreakerRegistry.builder().mode(Mode.LOCAL).nodeId("unit-3"))
                    .application("unit")
                    .actuatorOverrides(record, Duration.ofMinutes(15)))
            .circuitBreaker("members");

    cb.transitionToForcedOpenState();
    cb.transitionToOpenStateFor(Duration.ofSeconds(90));
    cb.transitionToDisabledState();
    cb.transitionToMetricsOnlyState();
    cb.transitionToClosedState();
    assertThatThrownBy(cb::transitionToHalfOpenState)
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("no breakerctl override");

    String by = " actuator@unit-3 " + BreakerctlCircuitBreaker.ACTUATOR_REASON + " ";
    assertThat(applied)
        .containsExactly(
            "unit:members " + OverrideKind.FORCED_OPEN + by + "PT15M",
            "unit:members " + OverrideKind.FORCED_OPEN + by + "PT1M30S",
            "unit:members " + OverrideKind.DISABLED + by + "PT15M",
            "unit:members " + OverrideKind.METRICS_ONLY + by + "PT15M",
            "unit:members " + OverrideKind.CLEAR + by + "PT0S");
    assertThatThrownBy(
            () ->
                BreakerctlCircuitBreakerRegistry.builder(BreakerRegistry.builder())
                    .actuatorOverrides(ActuatorOverrides.FLEET))
        .hasMessageContaining("needs where overrides go and their expiry");
  }
}
