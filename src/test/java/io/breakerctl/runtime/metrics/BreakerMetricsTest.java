package io.breakerctl.runtime.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.BreakerView;
import io.breakerctl.runtime.CallNotPermittedException;
import io.breakerctl.runtime.CallObserver;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.CircuitEvent;
import io.breakerctl.runtime.FailureClassifier;
import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.Permission;
import io.breakerctl.runtime.model.AdmissionReason;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Criticality;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.StoreFault;
import io.breakerctl.runtime.store.inprocess.InProcessBreakerStore;
import io.breakerctl.testing.MutableClock;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The Micrometer binder on a LOCAL-mode registry (no Redis) and on a scripted breaker. */
class BreakerMetricsTest {

  private static final String ID = "checkout:payments";
  private static final Policy POLICY =
      Policy.builder().failureThreshold(3).open(Duration.ofSeconds(10)).halfOpenPermits(1).build();

  private final MutableClock clock = new MutableClock(1_700_000_000_000L);
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private BreakerRegistry registry;

  @BeforeEach
  void setUp() {
    registry =
        BreakerRegistry.builder()
            .mode(Mode.LOCAL)
            .nodeId("node-1")
            .defaults(POLICY)
            .clock(clock)
            .build();
  }

  @AfterEach
  void tearDown() {
    registry.close();
    meters.close();
  }

  @Test
  void gaugesAndCountersFollowTripRejectionsAndRecovery() {
    BreakerRegistryMetrics metrics = BreakerRegistryMetrics.bind(registry, meters);
    CircuitBreaker cb = metrics.breaker(ID);
    assertThat(metrics.breaker(ID)).isSameAs(cb);

    assertThat(meters.find(BreakerMetrics.STATE).gauges()).hasSize(State.values().length);
    assertStateIs(State.CLOSED);
    assertThat(gauge(BreakerMetrics.DEGRADED)).isZero();
    assertThat(gauge(BreakerMetrics.PENDING_SUCCESSES)).isZero();
    assertThat(gauge(BreakerMetrics.POLICY_VERSION)).isZero();
    assertThat(probes("success")).isZero();
    assertThat(probes("failure")).isZero();

    cb.call(() -> "ok");
    for (int i = 0; i < 3; i++) {
      assertThatThrownBy(() -> cb.call(fail())).isInstanceOf(IllegalStateException.class);
    }
    assertStateIs(State.OPEN);
    assertThat(transitions(State.CLOSED, State.OPEN)).isEqualTo(1);

    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(() -> cb.call(() -> "never"))
          .isInstanceOf(CallNotPermittedException.class);
    }
    assertThat(rejections("OPEN")).isEqualTo(2);

    clock.advance(Duration.ofSeconds(10));
    Permission probe = cb.tryAcquire();
    assertThat(probe.allowed()).isTrue();
    assertThat(probe.lease()).isNotEmpty();
    assertStateIs(State.HALF_OPEN);
    assertThat(transitions(State.OPEN, State.HALF_OPEN)).isEqualTo(1);

    Permission busy = cb.tryAcquire();
    assertThat(busy.allowed()).isFalse();
    assertThat(rejections(busy.reason().code())).isEqualTo(1);
    assertThat(busy.reason().code()).isEqualTo("PROBES_BUSY");

    probe.onSuccess(1_000_000);
    assertStateIs(State.CLOSED);
    assertThat(transitions(State.HALF_OPEN, State.CLOSED)).isEqualTo(1);
    assertThat(meters.find(BreakerMetrics.TRANSITIONS).counters()).hasSize(3);

    Meter any = meters.get(BreakerMetrics.REJECTIONS).tag("reason", "OPEN").counter();
    assertThat(any.getId().getTags())
        .contains(Tag.of("breaker", ID), Tag.of("node", "node-1"), Tag.of("reason", "OPEN"));

    metrics.close();
    assertThat(meters.getMeters()).isEmpty();
    assertThatThrownBy(() -> cb.call(fail())).isInstanceOf(IllegalStateException.class);
    assertThat(meters.getMeters()).as("no meter comes back after close").isEmpty();
    assertThatThrownBy(() -> metrics.breaker(ID)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void bindingOneBreakerTagsItsIdAndSegmentsOnlyAndBindsOnce() {
    CircuitBreaker cb = registry.breaker("claims:members");
    BreakerMetrics m = BreakerMetrics.bind(cb, meters);

    assertThat(m.tags())
        .containsExactly(
            Tag.of("breaker", "claims:members"),
            Tag.of("caller", "claims"),
            Tag.of("dependency", "members"));
    assertThat(meters.find(BreakerMetrics.DEGRADED).gauge().getId().getTag("node")).isNull();
    assertThatThrownBy(() -> m.bindTo(new SimpleMeterRegistry()))
        .isInstanceOf(IllegalStateException.class);

    BreakerMetrics withNode =
        BreakerMetrics.bind(registry, registry.breaker("claims:documents"), meters);
    assertThat(withNode.tags())
        .containsExactly(
            Tag.of("breaker", "claims:documents"),
            Tag.of("caller", "claims"),
            Tag.of("dependency", "documents"),
            Tag.of("node", "node-1"));

    BreakerMetrics extra =
        BreakerMetrics.of(registry.breaker("search:catalog"), "", Tags.of("zone", "eu-1"));
    extra.bindTo(meters);
    assertThat(extra.tags())
        .containsExactly(
            Tag.of("breaker", "search:catalog"),
            Tag.of("caller", "search"),
            Tag.of("dependency", "catalog"),
            Tag.of("zone", "eu-1"));
  }

  @Test
  void probesDegradedPendingAndPolicyVersionComeFromEventsAndView() {
    ScriptedBreaker cb = new ScriptedBreaker(BreakerId.parse(ID));
    BreakerMetrics m = BreakerMetrics.of(cb, "node-7", Tags.empty());
    m.bindTo(meters);

    cb.view.set(
        new BreakerView(
            cb.id(),
            Mode.HYBRID,
            State.HALF_OPEN,
            State.HALF_OPEN,
            "4",
            POLICY,
            "*:*",
            3,
            true,
            42,
            4,
            10));
    assertStateIs(State.HALF_OPEN);
    assertThat(gauge(BreakerMetrics.WINDOW_FAILURES)).isEqualTo(4);
    assertThat(gauge(BreakerMetrics.WINDOW_CALLS)).isEqualTo(10);
    assertThat(gauge(BreakerMetrics.WINDOW_FAILURE_RATE)).isEqualTo(40.0);
    assertThat(gauge(BreakerMetrics.DEGRADED)).isEqualTo(1);
    assertThat(gauge(BreakerMetrics.PENDING_SUCCESSES)).isEqualTo(42);
    assertThat(gauge(BreakerMetrics.POLICY_VERSION)).isEqualTo(3);

    cb.emit(CircuitEvent.Type.PROBE_FAILED, State.HALF_OPEN, State.OPEN, "COUNTED");
    cb.emit(CircuitEvent.Type.PROBE_SUCCEEDED, State.HALF_OPEN, State.CLOSED, "COUNTED");
    cb.emit(CircuitEvent.Type.PROBE_SUCCEEDED, State.HALF_OPEN, State.CLOSED, "COUNTED");
    cb.emit(CircuitEvent.Type.DEGRADED, State.CLOSED, State.CLOSED, "LOCAL_ONLY");
    cb.emit(CircuitEvent.Type.POLICY_ADOPTED, State.CLOSED, State.CLOSED, "*:*@3");
    assertThat(probes("success")).isEqualTo(2);
    assertThat(probes("failure")).isEqualTo(1);
    assertThat(meters.find(BreakerMetrics.TRANSITIONS).counters()).isEmpty();
    assertThat(meters.find(BreakerMetrics.REJECTIONS).counters()).isEmpty();

    m.close();
    assertThat(cb.listeners).isEmpty();
    assertThat(meters.getMeters()).isEmpty();
  }

  @Test
  void windowGaugesAreTheWindowTheLocalMachineTripsOn() {
    BreakerRegistryMetrics metrics = BreakerRegistryMetrics.bind(registry, meters);
    CircuitBreaker cb = metrics.breaker(ID);
    assertThat(gauge(BreakerMetrics.WINDOW_FAILURES)).isZero();
    assertThat(gauge(BreakerMetrics.WINDOW_CALLS)).isZero();
    assertThat(gauge(BreakerMetrics.WINDOW_FAILURE_RATE)).isZero();

    cb.call(() -> "ok");
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(() -> cb.call(fail())).isInstanceOf(IllegalStateException.class);
    }
    BreakerView v = cb.view();
    assertThat(v.windowFailures()).isEqualTo(2);
    assertThat(v.windowCalls()).isEqualTo(3);
    assertThat(gauge(BreakerMetrics.WINDOW_FAILURES)).isEqualTo(2);
    assertThat(gauge(BreakerMetrics.WINDOW_CALLS)).isEqualTo(3);
    assertThat(gauge(BreakerMetrics.WINDOW_FAILURE_RATE)).isCloseTo(200.0 / 3, within(1e-9));
    assertThat(v.failureRate()).isEqualTo(gauge(BreakerMetrics.WINDOW_FAILURE_RATE));
  }

  @Test
  void windowGaugesFollowTheFleetWindowTheStoreAnswered() throws Exception {
    InProcessBreakerStore store = new InProcessBreakerStore();
    Policy five = Policy.builder().failureThreshold(5).open(Duration.ofSeconds(10)).build();
    try (BreakerRegistry other =
            BreakerRegistry.builder().store(store).nodeId("node-3").defaults(five).build();
        BreakerRegistry shared =
            BreakerRegistry.builder().store(store).nodeId("node-2").defaults(five).build()) {
      // another node's failures are in the fleet's window, not in this node's machine
      CircuitBreaker elsewhere = other.breaker(ID);
      for (int i = 0; i < 2; i++) {
        assertThatThrownBy(() -> elsewhere.call(fail())).isInstanceOf(IllegalStateException.class);
      }
      BreakerRegistryMetrics metrics = BreakerRegistryMetrics.bind(shared, meters);
      CircuitBreaker cb = metrics.breaker(ID);
      assertThatThrownBy(() -> cb.call(fail())).isInstanceOf(IllegalStateException.class);
      BreakerSnapshot.Window stored =
          store.state(BreakerId.parse(ID)).get(10, TimeUnit.SECONDS).window();
      assertThat(stored.failures()).isEqualTo(3);
      assertThat(cb.view().windowFailures()).isEqualTo(stored.failures());
      assertThat(cb.view().windowCalls()).isEqualTo(stored.calls());
      assertThat(gauge(BreakerMetrics.WINDOW_FAILURES)).isEqualTo(stored.failures());
      assertThat(gauge(BreakerMetrics.WINDOW_CALLS)).isEqualTo(stored.calls());
      assertThat(gauge(BreakerMetrics.WINDOW_FAILURE_RATE)).isEqualTo(100.0);
      metrics.close();
    }
  }

  @Test
  void aHalfOpenRefusalAfterATimedOutAcquireCountsAsLeaseContention() {
    InProcessBreakerStore store = new InProcessBreakerStore(clock);
    try (BreakerRegistry shared =
        BreakerRegistry.builder()
            .store(store)
            .nodeId("node-2")
            .defaults(POLICY)
            .clock(clock)
            .build()) {
      BreakerRegistryMetrics metrics = BreakerRegistryMetrics.bind(shared, meters);
      CircuitBreaker cb = metrics.breaker(ID);
      for (int i = 0; i < 3; i++) {
        assertThatThrownBy(() -> cb.call(fail())).isInstanceOf(IllegalStateException.class);
      }
      assertThat(cb.view().sharedState()).isEqualTo(State.OPEN);
      clock.advance(Duration.ofSeconds(10));

      // a fault of the request is no contention: refused without a lease, not counted
      store.refusing("acquire", StoreFault.OTHER);
      Permission refused = cb.tryAcquire();
      assertThat(refused.allowed()).isFalse();
      assertThat(refused.reason()).isEqualTo(AdmissionReason.NO_LEASE);
      assertThat(meters.get(BreakerMetrics.LEASE_DENIED).counter().count()).isZero();

      store.refusing("acquire", StoreFault.TIMEOUT);
      Permission timedOut = cb.tryAcquire();
      assertThat(timedOut.allowed()).isFalse();
      assertThat(timedOut.reason()).isEqualTo(AdmissionReason.NO_LEASE);
      assertThat(meters.get(BreakerMetrics.LEASE_DENIED).counter().count()).isEqualTo(1);
      assertThat(rejections("NO_LEASE")).isEqualTo(2);

      store.refusing("acquire", (StoreFault) null);
      Permission probe = cb.tryAcquire();
      assertThat(probe.allowed()).isTrue();
      assertThat(cb.tryAcquire().reason().code()).isEqualTo("PROBES_BUSY");
      assertThat(meters.get(BreakerMetrics.LEASE_DENIED).counter().count()).isEqualTo(2);
      probe.onSuccess(1_000_000);
      metrics.close();
    }
  }

  @Test
  void everyMeterCarriesThePolicysCriticalityAndAPolicyChangeRetagsThem() throws Exception {
    InProcessBreakerStore store = new InProcessBreakerStore();
    try (BreakerRegistry shared =
        BreakerRegistry.builder()
            .store(store)
            .nodeId("node-2")
            .defaults(POLICY.toBuilder().criticality(Criticality.MEDIUM).build())
            .build()) {
      BreakerRegistryMetrics metrics = BreakerRegistryMetrics.bind(shared, meters);
      CircuitBreaker cb = metrics.breaker(ID);
      cb.call(() -> "ok");
      assertThat(breakerMeters()).isNotEmpty();
      assertThat(breakerMeters())
          .allSatisfy(m -> assertThat(m.getId().getTag("criticality")).isEqualTo("MEDIUM"));
      int registered = breakerMeters().size();
      cb.observer().deferredPending(7);

      Policy critical = POLICY.toBuilder().criticality(Criticality.CRITICAL).build();
      store.warm(cb.id(), "*:*", 1, critical, "test").get(10, TimeUnit.SECONDS);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      // the view adopts the policy, then its event re-tags the meters (on the message's thread)
      while (!retagged(registered) && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(cb.view().policy().criticality()).isEqualTo(Criticality.CRITICAL);
      assertThat(breakerMeters()).hasSize(registered);
      assertThat(breakerMeters())
          .allSatisfy(m -> assertThat(m.getId().getTag("criticality")).isEqualTo("CRITICAL"));
      assertThat(gauge(BreakerMetrics.DEFERRED_PENDING))
          .as("a background figure is kept until its next report")
          .isEqualTo(7);
      cb.call(() -> "ok");
      assertThat(
              meters
                  .get(BreakerMetrics.CALLS)
                  .tag("outcome", "success")
                  .tag("criticality", "CRITICAL")
                  .timer()
                  .count())
          .as("calls are counted under the new tag")
          .isEqualTo(1);
      metrics.close();
      assertThat(breakerMeters()).isEmpty();
    }
  }

  private boolean retagged(int registered) {
    List<Meter> now = breakerMeters();
    return now.size() == registered
        && now.stream().allMatch(m -> "CRITICAL".equals(m.getId().getTag("criticality")));
  }

  private List<Meter> breakerMeters() {
    return meters.getMeters().stream()
        .filter(m -> m.getId().getName().startsWith("breakerctl.breaker."))
        .toList();
  }

  // ---- helpers -------------------------------------------------------------------------------

  private void assertStateIs(State expected) {
    for (State s : State.values()) {
      assertThat(meters.get(BreakerMetrics.STATE).tag("state", s.name()).gauge().value())
          .as("state gauge " + s)
          .isEqualTo(s == expected ? 1.0 : 0.0);
    }
  }

  private double gauge(String name) {
    return meters.get(name).gauge().value();
  }

  private double rejections(String reason) {
    return meters.get(BreakerMetrics.REJECTIONS).tag("reason", reason).counter().count();
  }

  private double transitions(State from, State to) {
    return meters
        .get(BreakerMetrics.TRANSITIONS)
        .tag("from", from.name())
        .tag("to", to.name())
        .counter()
        .count();
  }

  private double probes(String outcome) {
    return meters.get(BreakerMetrics.PROBES).tag("outcome", outcome).counter().count();
  }

  private static Supplier<String> fail() {
    return () -> {
      throw new IllegalStateException("payments down");
    };
  }

  /** A breaker whose view and events the test sets (for what LOCAL mode does not produce). */
  private static final class ScriptedBreaker implements CircuitBreaker {
    final BreakerId id;
    final AtomicReference<BreakerView> view;
    final List<Consumer<CircuitEvent>> listeners = new CopyOnWriteArrayList<>();

    ScriptedBreaker(BreakerId id) {
      this.id = id;
      this.view =
          new AtomicReference<>(
              new BreakerView(
                  id, Mode.HYBRID, State.CLOSED, State.CLOSED, "1", POLICY, "", 0, false, 0, 0, 0));
    }

    void emit(CircuitEvent.Type type, State from, State to, String detail) {
      CircuitEvent e = new CircuitEvent(id, type, from, to, detail, 0);
      listeners.forEach(l -> l.accept(e));
    }

    @Override
    public BreakerId id() {
      return id;
    }

    @Override
    public <T> T callChecked(Callable<T> call) {
      throw new UnsupportedOperationException();
    }

    @Override
    public <T> T call(Supplier<T> call) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Permission tryAcquire() {
      throw new UnsupportedOperationException();
    }

    @Override
    public BreakerView view() {
      return view.get();
    }

    @Override
    public AutoCloseable onEvent(Consumer<CircuitEvent> listener) {
      listeners.add(listener);
      return () -> listeners.remove(listener);
    }

    @Override
    public void probe(Callable<Boolean> healthCheck) {}

    volatile CallObserver observed = CallObserver.NONE;

    @Override
    public FailureClassifier classifier() {
      return FailureClassifier.DEFAULT;
    }

    @Override
    public void classifier(FailureClassifier classifier) {}

    @Override
    public AutoCloseable observe(CallObserver observer) {
      observed = observer;
      return () -> observed = CallObserver.NONE;
    }

    @Override
    public CallObserver observer() {
      return observed;
    }
  }
}
