package io.breakerctl.runtime.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.CallNotPermittedException;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.Permission;
import io.breakerctl.runtime.model.Policy;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ObservedBreaker} with a real {@link ObservationRegistry} and a handler that records what
 * every observation was told (the way a tracing bridge hears it): one observation per call with the
 * decision's key values, the call run in its scope, the outcome and the error, a transition
 * observation and an event on the call that made it; nothing wrapped under the NOOP registry.
 */
class ObservedBreakerTest {
  private final BreakerRegistry node =
      BreakerRegistry.builder()
          .mode(Mode.LOCAL)
          .nodeId("node-1")
          .defaults(Policy.builder().failureThreshold(1).open(Duration.ofSeconds(60)).build())
          .build();
  private final ObservationRegistry observations = ObservationRegistry.create();
  private final List<Heard> stopped = new CopyOnWriteArrayList<>();

  /** What one observation was told by the time it stopped. */
  record Heard(String name, Map<String, String> keys, Throwable error, List<String> events) {}

  ObservedBreakerTest() {
    observations
        .observationConfig()
        .observationHandler(
            new ObservationHandler<>() {
              @Override
              public void onStop(Observation.Context c) {
                Map<String, String> keys = new TreeMap<>();
                for (KeyValue kv : c.getLowCardinalityKeyValues()) {
                  keys.put(kv.getKey(), kv.getValue());
                }
                List<String> events = c.getOrDefault("events", new ArrayList<String>());
                stopped.add(new Heard(c.getName(), keys, c.getError(), events));
              }

              @Override
              public void onEvent(Observation.Event event, Observation.Context c) {
                List<String> events = c.computeIfAbsent("events", k -> new ArrayList<String>());
                events.add(event.getName() + " " + event.getContextualName());
              }

              @Override
              public boolean supportsContext(Observation.Context c) {
                return true;
              }
            });
  }

  @AfterEach
  void close() {
    node.close();
  }

  @Test
  void aCallIsOneObservationInWhoseScopeTheCallRuns() {
    CircuitBreaker cb = ObservedBreaker.of(node.breaker("checkout:payments"), observations);
    AtomicReference<Observation> inScope = new AtomicReference<>();
    assertThat(
            cb.call(
                () -> {
                  inScope.set(observations.getCurrentObservation());
                  return "ok";
                }))
        .isEqualTo("ok");
    assertThat(inScope.get()).as("the call runs in its observation's scope").isNotNull();
    assertThat(stopped).hasSize(1);
    Heard h = stopped.get(0);
    assertThat(h.name()).isEqualTo(ObservedBreaker.CALL);
    assertThat(h.keys())
        .containsEntry("breaker", "checkout:payments")
        .containsEntry("decision", "admitted")
        .containsEntry("reason", "CLOSED")
        .containsEntry("state", "CLOSED")
        .containsEntry("policy.version", "0")
        .containsEntry("outcome", "success");
    assertThat(observations.getCurrentObservation()).as("the scope closed").isNull();
  }

  @Test
  void theFailureThatTripsCarriesTheTransitionAndTheRejectionIsObservedToo() {
    CircuitBreaker cb = ObservedBreaker.of(node.breaker("checkout:payments"), observations);
    IllegalStateException down = new IllegalStateException("down");
    assertThatThrownBy(
            () ->
                cb.call(
                    () -> {
                      throw down;
                    }))
        .isSameAs(down);
    assertThatThrownBy(() -> cb.call(() -> "never")).isInstanceOf(CallNotPermittedException.class);

    Heard failed = only(ObservedBreaker.CALL, "failure");
    assertThat(failed.error()).isSameAs(down);
    assertThat(failed.events()).containsExactly(ObservedBreaker.TRANSITION + " CLOSED->OPEN");
    Heard transition =
        stopped.stream().filter(h -> h.name().equals(ObservedBreaker.TRANSITION)).findFirst().get();
    assertThat(transition.keys())
        .containsEntry("breaker", "checkout:payments")
        .containsEntry("from", "CLOSED")
        .containsEntry("to", "OPEN")
        .containsKeys("cause", "source");
    Heard rejected =
        stopped.stream()
            .filter(h -> "rejected".equals(h.keys().get("decision")))
            .findFirst()
            .orElseThrow();
    assertThat(rejected.keys())
        .containsEntry("reason", "OPEN")
        .containsEntry("state", "OPEN")
        .doesNotContainKey("outcome");
  }

  @Test
  void aManualPermissionEndsItsObservationWithTheOutcome() {
    CircuitBreaker cb = ObservedBreaker.of(node.breaker("checkout:payments"), observations);
    Permission p = cb.tryAcquire();
    assertThat(stopped).as("running until its outcome").isEmpty();
    p.onIgnored();
    assertThat(only(ObservedBreaker.CALL, "abandoned").keys())
        .containsEntry("decision", "admitted");
  }

  @Test
  void underTheNoopRegistryNothingIsWrapped() {
    CircuitBreaker raw = node.breaker("checkout:payments");
    Permission p = ObservedBreaker.of(raw, ObservationRegistry.NOOP).tryAcquire();
    assertThat(p.getClass()).isEqualTo(raw.tryAcquire().getClass());
    p.onSuccess(1_000);
  }

  private Heard only(String name, String outcome) {
    List<Heard> found =
        stopped.stream()
            .filter(h -> h.name().equals(name) && outcome.equals(h.keys().get("outcome")))
            .toList();
    assertThat(found).hasSize(1);
    return found.get(0);
  }
}
