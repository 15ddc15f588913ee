package io.breakerctl.runtime.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.FailureClassifier;
import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.Permission;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.micrometer.tagged.TaggedCircuitBreakerMetrics;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link MeterNaming#WITH_RESILIENCE4J}: every meter Resilience4j's own Micrometer binder registers
 * for one of its breakers, ours registers too, with the same name, type, tag keys and lower-case
 * {@code state} and {@code kind} values (Resilience4j's binder, run here on a Resilience4j breaker,
 * is the reference; only {@code slow.calls} is left out, on purpose); and the values follow the
 * breaker.
 */
class Resilience4jMetersTest {
  private static final String ID = "checkout:payments";

  private final SimpleMeterRegistry ours = new SimpleMeterRegistry();
  private final SimpleMeterRegistry theirs = new SimpleMeterRegistry();
  private final BreakerRegistry registry =
      BreakerRegistry.builder()
          .mode(Mode.LOCAL)
          .nodeId("node-1")
          .defaults(
              Policy.builder()
                  .failureThreshold(2)
                  .minimumCalls(3)
                  .open(Duration.ofSeconds(60))
                  .build())
          .build();

  @AfterEach
  void close() {
    registry.close();
    ours.close();
    theirs.close();
  }

  /** Each meter as name, type, tag keys and its state or kind value. */
  private static Set<String> shapes(MeterRegistry meters, Set<String> leaveOutTagKeys) {
    Set<String> shapes = new TreeSet<>();
    for (Meter m : meters.getMeters()) {
      Meter.Id id = m.getId();
      if (!id.getName().startsWith("resilience4j.")) {
        continue;
      }
      Set<String> keys = new TreeSet<>();
      String value = "";
      for (Tag t : id.getTags()) {
        if (!leaveOutTagKeys.contains(t.getKey())) {
          keys.add(t.getKey());
        }
        if (t.getKey().equals("state") || t.getKey().equals("kind")) {
          value = t.getValue();
        }
      }
      shapes.add(id.getName() + " " + id.getType() + " " + keys + " " + value);
    }
    return shapes;
  }

  @Test
  void everyMeterResilience4jRegistersIsRegisteredAlike() {
    CircuitBreakerRegistry reference = CircuitBreakerRegistry.of(CircuitBreakerConfig.ofDefaults());
    reference.circuitBreaker(ID).onSuccess(1, TimeUnit.MILLISECONDS);
    TaggedCircuitBreakerMetrics.ofCircuitBreakerRegistry(reference).bindTo(theirs);

    CircuitBreaker cb = registry.breaker(ID);
    BreakerMetrics.of(cb, "node-1", Tags.empty(), MeterNaming.WITH_RESILIENCE4J).bindTo(ours);

    Set<String> expected = shapes(theirs, Set.of());
    expected.removeIf(s -> s.startsWith("resilience4j.circuitbreaker.slow.calls "));
    assertThat(expected).as("Resilience4j's binder registered its meters").hasSizeGreaterThan(10);
    Set<String> extra = Set.of("caller", "dependency", "node", "criticality");
    assertThat(shapes(ours, extra)).isEqualTo(expected);
    assertThat(ours.getMeters())
        .filteredOn(m -> m.getId().getName().startsWith("resilience4j."))
        .allSatisfy(m -> assertThat(m.getId().getTag("name")).isEqualTo(ID));
  }

  @Test
  void valuesFollowTheBreaker() {
    CircuitBreaker cb = registry.breaker(ID);
    cb.classifier(
        FailureClassifier.builder().ignoreExceptions(IllegalArgumentException.class).build());
    BreakerMetrics.of(cb, "node-1", Tags.empty(), MeterNaming.WITH_RESILIENCE4J).bindTo(ours);
    assertThat(state("closed")).isEqualTo(1);
    assertThat(state("open")).isZero();

    Permission ok = cb.tryAcquire();
    ok.onSuccess(2_000_000);
    assertThat(rate(Resilience4jMeters.FAILURE_RATE)).as("below minimumCalls").isEqualTo(-1);
    cb.tryAcquire().onError(new IllegalArgumentException("caller's mistake"), 1_000_000);
    cb.tryAcquire().onError(new IllegalStateException("down"), 1_000_000);
    cb.tryAcquire().onError(new IllegalStateException("down"), 1_000_000);
    assertThat(calls("successful")).isEqualTo(1);
    assertThat(calls("failed")).isEqualTo(2);
    assertThat(calls("ignored")).isEqualTo(1);
    assertThat(state("open")).as("tripped").isEqualTo(1);
    assertThat(state("closed")).isZero();

    assertThat(cb.tryAcquire().allowed()).isFalse();
    assertThat(
            ours.get(Resilience4jMeters.NOT_PERMITTED)
                .tag("kind", "not_permitted")
                .counter()
                .count())
        .isEqualTo(1);
    assertThat(rate(Resilience4jMeters.SLOW_CALL_RATE)).isEqualTo(-1);
    assertThat(Resilience4jMeters.stateOf(State.FORCED_CLOSED)).isEqualTo("metrics_only");
    assertThat(Resilience4jMeters.stateOf(State.HALF_OPEN)).isEqualTo("half_open");
  }

  private double state(String s) {
    return ours.get(Resilience4jMeters.STATE).tag("state", s).gauge().value();
  }

  private double rate(String name) {
    return ours.get(name).gauge().value();
  }

  private long calls(String kind) {
    return ours.get(Resilience4jMeters.CALLS).tag("kind", kind).timer().count();
  }
}
