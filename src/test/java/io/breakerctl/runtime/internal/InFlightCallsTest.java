package io.breakerctl.runtime.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.Permission;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.runtime.store.inprocess.InProcessBreakerStore;
import io.breakerctl.testing.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link InFlightCalls}: a call still running at {@code slowCallMillis} counts as slow then, once;
 * on the {@link InProcessBreakerStore}. The sweep runs on the registry's timer, so the tests wait
 * for what it does (bounded, 10 s); what they assert holds however late it runs.
 */
@DisplayName("calls in flight past slowCallMillis count as slow while they run, once")
class InFlightCallsTest {
  private static final BreakerId ID = BreakerId.parse("checkout:hanging");
  private static final Policy POLICY =
      Policy.builder()
          .failureThreshold(3)
          .slowCallMillis(40)
          .open(Duration.ofSeconds(60))
          .probeLease(Duration.ofSeconds(5))
          .build();

  private final MutableClock clock = new MutableClock(1_000_000_000L);
  private final InProcessBreakerStore store = new InProcessBreakerStore(clock);
  private final List<BreakerRegistry> registries = new ArrayList<>();

  @AfterEach
  void close() {
    registries.forEach(BreakerRegistry::close);
  }

  private CircuitBreaker node(Mode mode, Policy defaults) {
    BreakerRegistry r =
        BreakerRegistry.builder()
            .store(store)
            .clock(clock)
            .nodeId("n1")
            .mode(mode)
            .defaults(defaults)
            .refreshInterval(Duration.ofHours(1))
            .flushInterval(Duration.ofHours(1))
            .build();
    registries.add(r);
    return r.breaker(ID);
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within 10 s: " + what);
      }
      Thread.sleep(5);
    }
  }

  private List<Permission> start(CircuitBreaker b, int calls) {
    List<Permission> running = new ArrayList<>();
    for (int i = 0; i < calls; i++) {
      Permission p = b.tryAcquire();
      assertThat(p.allowed()).as("call %d admitted", i).isTrue();
      running.add(p);
    }
    return running;
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Mode.class)
  @DisplayName("three calls that hang trip the breaker before any ends; their ends count nothing")
  void hangingCallsTrip(Mode mode) throws Exception {
    CircuitBreaker b = node(mode, POLICY);
    List<Permission> running = start(b, 3);

    await("the breaker rejects while its 3 calls still run", () -> rejects(b));
    assertThat(b.view().state()).isEqualTo(State.OPEN);
    long records = mode == Mode.LOCAL ? 0 : 3; // one per slow call, sent as a failure is
    await(records + " records", () -> store.commands("record") == records);
    String generation = shared("generation");

    long slowNanos = Duration.ofSeconds(3).toNanos();
    running.forEach(p -> p.onSuccess(slowNanos));
    running.forEach(p -> p.onSuccess(slowNanos)); // a second report changes nothing either

    assertThat(b.view().state())
        .as("a success after the count does not undo it")
        .isEqualTo(State.OPEN);
    assertThat(b.view().pendingSuccesses()).as("no success of a counted call").isZero();
    assertThat(store.commands("record")).as("no record for a counted call").isEqualTo(records);
    if (mode != Mode.LOCAL) {
      assertThat(shared("state")).isEqualTo("OPEN");
      assertThat(shared("generation")).as("one trip, nothing after it").isEqualTo(generation);
    }
  }

  /** Whether a call would be rejected now; an admitted one ends at once, counted as nothing. */
  private static boolean rejects(CircuitBreaker b) {
    Permission p = b.tryAcquire();
    if (p.allowed()) {
      p.onIgnored();
    }
    return !p.allowed();
  }

  private String shared(String field) {
    return StoreFutures.await(store.state(ID)).fields().get(field);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Mode.class)
  @DisplayName("calls that end before slowCallMillis are reported as usual, never counted slow")
  void quickCallsAreNotSlow(Mode mode) throws Exception {
    CircuitBreaker b = node(mode, POLICY);
    for (int round = 0; round < 3; round++) {
      List<Permission> running = start(b, 5);
      running.forEach(p -> p.onSuccess(1_000_000));
    }
    // a call that ends before its bucket's sweep was reported: a sweep of its bucket finds none
    Thread.sleep(4 * 40);
    Permission witness = b.tryAcquire();
    assertThat(witness.allowed()).as("still closed: nothing counted slow").isTrue();
    witness.onSuccess(1_000_000);
    if (mode == Mode.HYBRID) {
      assertThat(b.view().pendingSuccesses()).as("every success reported").isEqualTo(16);
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(
      value = Mode.class,
      names = {"SHARED", "HYBRID"})
  @DisplayName("a probe past slowCallMillis is not counted while it runs; its slow success fails")
  void probesAreBoundedByMaxProbe(Mode mode) throws Exception {
    CircuitBreaker b = node(mode, POLICY);
    for (int i = 0; i < 3; i++) {
      StoreFutures.await(store.record(ID, Outcome.failure("other", ""), POLICY));
    }
    if (mode == Mode.HYBRID) {
      ((DistributedBreaker) b).onSnapshot(StoreFutures.await(store.state(ID)));
    }
    clock.advance(Duration.ofSeconds(61));
    Permission probe = b.tryAcquire();
    assertThat(probe.allowed()).as("the probe").isTrue();
    assertThat(probe.lease()).isNotEmpty();

    Thread.sleep(4 * 40);
    assertThat(shared("state"))
        .as("a probe running past slowCallMillis is not counted while it runs")
        .isEqualTo("HALF_OPEN");

    probe.onSuccess(Duration.ofMillis(41).toNanos());
    assertThat(shared("state")).as("a probe that took slowCallMillis failed").isEqualTo("OPEN");
  }

  @org.junit.jupiter.api.RepeatedTest(20)
  @DisplayName("every call is counted once: in the sweep's sum or by its own end, across threads")
  void everyCallCountedOnce() throws Exception {
    InFlightCalls.Bucket bucket = new InFlightCalls.Bucket(null);
    int threads = 4;
    int perThread = 20_000;
    java.util.concurrent.ConcurrentLinkedQueue<Boolean> running =
        new java.util.concurrent.ConcurrentLinkedQueue<>();
    java.util.concurrent.atomic.AtomicLong entered = new java.util.concurrent.atomic.AtomicLong();
    java.util.concurrent.atomic.AtomicLong reported = new java.util.concurrent.atomic.AtomicLong();
    java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread w =
          new Thread(
              () -> {
                try {
                  go.await();
                } catch (InterruptedException e) {
                  return;
                }
                int cell = InFlightCalls.cell();
                for (int i = 0; i < perThread; i++) {
                  if (bucket.enter(cell)) {
                    entered.incrementAndGet();
                    running.add(Boolean.TRUE);
                  }
                  // ends a call some thread started (often another one), as async calls do
                  if (running.poll() != null && bucket.leave()) {
                    reported.incrementAndGet();
                  }
                }
              });
      w.start();
      workers.add(w);
    }
    go.countDown();
    Thread.sleep(java.util.concurrent.ThreadLocalRandom.current().nextInt(0, 3));
    bucket.mark(InFlightCalls.CLOSED);
    Thread.sleep(java.util.concurrent.ThreadLocalRandom.current().nextInt(0, 3));
    long swept = bucket.mark(InFlightCalls.SWEPT);
    for (Thread w : workers) {
      w.join(30_000);
      assertThat(w.isAlive()).as("worker ended").isFalse();
    }
    // the calls never ended are in the sum too; a call ended after the sweep is not reported
    assertThat(swept + reported.get())
        .as("swept %d + reported %d = entered %d", swept, reported.get(), entered.get())
        .isEqualTo(entered.get());
    assertThat(bucket.enter(InFlightCalls.cell())).as("a closed bucket takes no call").isFalse();
  }
}
