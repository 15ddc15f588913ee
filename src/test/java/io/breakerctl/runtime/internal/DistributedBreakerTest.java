package io.breakerctl.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.breakerctl.runtime.BackgroundTask;
import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.CircuitEvent;
import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.Permission;
import io.breakerctl.runtime.fallback.Fallbacks;
import io.breakerctl.runtime.model.AdmissionReason;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.FallbackPolicy;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.StoreFailureMode;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.BreakerStore;
import io.breakerctl.runtime.store.ForwardingBreakerStore;
import io.breakerctl.runtime.store.NodeHeartbeat;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.RenewResult;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.runtime.store.inprocess.InProcessBreakerStore;
import io.breakerctl.testing.ManualTime;
import io.breakerctl.testing.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * {@link DistributedBreaker} on the {@link InProcessBreakerStore} with one injected clock for the
 * store and the nodes: admission, the hand-off of failures, batching, degraded decisions and the
 * reconciliation, without Redis. The registries run on {@link ManualTime}: their periodic and
 * background work runs on the test's thread, only as the test moves that time, so no test sleeps or
 * waits for another thread. Background work (refresh, flush) is switched off by long intervals
 * where a test flushes by hand; the tests of recovery, refresh and flush run the registry's timer
 * until what they wait for happens (bounded in test time).
 */
class DistributedBreakerTest {
  private static final BreakerId ID = BreakerId.parse("checkout:payments");
  private static final Policy POLICY =
      Policy.builder()
          .failureThreshold(5)
          .window(Duration.ofSeconds(60))
          .open(Duration.ofSeconds(10))
          .maxOpen(Duration.ofSeconds(40))
          .probeLease(Duration.ofSeconds(5))
          .build();

  private final MutableClock clock = new MutableClock(1_000_000_000L);
  private final ManualTime time = new ManualTime(clock);
  private final InProcessBreakerStore store = new InProcessBreakerStore(clock);
  private final List<BreakerRegistry> registries = new ArrayList<>();

  @AfterEach
  void close() {
    registries.forEach(BreakerRegistry::close);
  }

  /** A registry on the in-process store and on {@link #time}: its clock, ticker and scheduler. */
  private BreakerRegistry.Builder builder() {
    return BreakerRegistry.builder()
        .store(store)
        .clock(clock)
        .ticker(time::nanoTime)
        .scheduler(time.newScheduler());
  }

  /**
   * Builds the registry, closed after the test, and runs what its start left due now (the read
   * after subscribing, the first liveness beat), as its own thread would at once.
   */
  private BreakerRegistry start(BreakerRegistry.Builder builder) {
    BreakerRegistry r = builder.build();
    registries.add(r);
    time.runDue();
    return r;
  }

  private DistributedBreaker node(String name, Mode mode, Policy defaults) {
    BreakerRegistry r =
        start(
            builder()
                .nodeId(name)
                .mode(mode)
                .defaults(defaults)
                .refreshInterval(Duration.ofHours(1))
                .flushInterval(Duration.ofHours(1)));
    return (DistributedBreaker) r.breaker(ID);
  }

  private DistributedBreaker node(String name) {
    return node(name, Mode.HYBRID, POLICY);
  }

  private static void fail(CircuitBreaker b, int n) {
    for (int i = 0; i < n; i++) {
      Permission p = b.tryAcquire();
      if (p.allowed()) {
        p.onFailure(new RuntimeException("down"), 1_000_000);
      }
    }
  }

  private static void succeed(CircuitBreaker b, int n) {
    for (int i = 0; i < n; i++) {
      Permission p = b.tryAcquire();
      assertTrue(p.allowed(), "call " + i + " admitted");
      p.onSuccess(1_000_000);
    }
  }

  private BreakerSnapshot shared() {
    return StoreFutures.await(store.state(ID));
  }

  /**
   * Runs the registries' timers until {@code condition} holds: what is due now first, then time
   * moves to each next task; fails when it does not hold within a minute of test time.
   */
  private void await(String what, BooleanSupplier condition) {
    time.runUntil(what, condition, Duration.ofMinutes(1));
  }

  @Nested
  class Admission {
    @Test
    void closedHybridAdmitsWithoutAStoreCommand() {
      DistributedBreaker a = node("a");
      for (int i = 0; i < 1_000; i++) {
        Permission p = a.tryAcquire();
        assertTrue(p.allowed());
        p.onSuccess(1_000);
      }
      assertEquals(0, store.commands("acquire"), "closed calls stay on the node");
      assertEquals(0, store.commands("record"), "successes wait for the flush");
      assertEquals(1_000, a.view().pendingSuccesses());
    }

    @Test
    void sharedAsksTheStoreForEveryCall() {
      DistributedBreaker a = node("a", Mode.SHARED, POLICY);
      for (int i = 0; i < 10; i++) {
        a.tryAcquire().onSuccess(1_000);
      }
      assertEquals(10, store.commands("acquire"), "one acquire per call");
      assertEquals(0, store.commands("record"), "successes batched");
    }

    @Test
    void theFleetTripsAtTheThresholdInTotalAndEveryNodeRejects() {
      DistributedBreaker a = node("a");
      DistributedBreaker b = node("b");
      DistributedBreaker c = node("c");
      fail(a, 2);
      fail(b, 2);
      assertEquals(State.CLOSED, shared().effectiveState());
      assertEquals(4, shared().number("winFailures"));
      fail(c, 1);
      assertEquals(State.OPEN, shared().effectiveState(), "the fifth failure fleet-wide trips");
      for (DistributedBreaker n : List.of(a, b, c)) {
        Permission p = n.tryAcquire();
        assertFalse(p.allowed(), n.view().mode() + " node rejects after the push");
        assertEquals(State.OPEN, p.state());
      }
    }

    @Test
    void exactlyOneProbeFleetWideThenTheFleetCloses() {
      DistributedBreaker a = node("a");
      DistributedBreaker b = node("b");
      fail(a, 5);
      clock.advanceMillis(10_001);
      Permission probe = a.tryAcquire();
      assertTrue(probe.allowed());
      assertFalse(probe.lease().isEmpty(), "the probe runs under a lease");
      Permission second = b.tryAcquire();
      assertFalse(second.allowed(), "the other node gets no second probe");
      assertEquals(AdmissionReason.PROBES_BUSY, second.reason());
      assertFalse(a.tryAcquire().allowed(), "nor does the prober's next call");
      probe.onSuccess(1_000);
      assertEquals(State.CLOSED, shared().effectiveState());
      assertTrue(b.tryAcquire().allowed(), "the close is pushed to every node");
    }

    /**
     * The renewals of a probe's lease go at a fixed rate from the grant, never waiting on the one
     * before: with every answer lost (Redis renews, the reply never comes back) the lease still
     * lives past two lease lifetimes, and no other node gets a probe beside it. A renewal scheduled
     * on the previous answer stopped at the first lost one, and the lease ran out.
     */
    @Test
    void aProbesLeaseLivesWhileItsRenewalsGoUnanswered() {
      java.util.concurrent.atomic.AtomicInteger renewals =
          new java.util.concurrent.atomic.AtomicInteger();
      BreakerStore unanswered =
          new ForwardingBreakerStore(store) {
            @Override
            public java.util.concurrent.CompletableFuture<RenewResult> renew(
                BreakerId id, String node, Policy policy, String leaseId, String generation) {
              renewals.incrementAndGet();
              super.renew(id, node, policy, leaseId, generation); // the store renews ...
              return new java.util.concurrent.CompletableFuture<>(); // ... its answer is lost
            }
          };
      DistributedBreaker a =
          (DistributedBreaker)
              start(
                      builder()
                          .store(unanswered)
                          .nodeId("a")
                          .mode(Mode.HYBRID)
                          .defaults(POLICY)
                          .refreshInterval(Duration.ofHours(1))
                          .flushInterval(Duration.ofHours(1)))
                  .breaker(ID);
      DistributedBreaker b = node("b");
      fail(a, 5);
      time.advance(Duration.ofMillis(10_001));
      Permission probe = a.tryAcquire();
      assertTrue(probe.allowed());
      assertFalse(probe.lease().isEmpty(), "the probe runs under a lease");
      time.advance(Duration.ofSeconds(12)); // more than two lease lifetimes (5 s)
      assertTrue(renewals.get() >= 7, "one renewal every 5 s / 3, answered or not: " + renewals);
      Permission second = b.tryAcquire();
      assertFalse(second.allowed(), "the lease lives: the other node gets no second probe");
      assertEquals(AdmissionReason.PROBES_BUSY, second.reason());
      probe.onFailure(new RuntimeException("still down"), 1_000);
    }

    @Test
    void aFailedProbeReopensWithTheWindowDoubled() {
      DistributedBreaker a = node("a");
      fail(a, 5);
      clock.advanceMillis(10_001);
      Permission probe = a.tryAcquire();
      probe.onFailure(new RuntimeException("still down"), 1_000);
      assertEquals(State.OPEN, shared().effectiveState());
      assertEquals(20_000, shared().number("openMillis"));
      clock.advanceMillis(19_000);
      assertFalse(a.tryAcquire().allowed(), "still inside the doubled window");
    }
  }

  @Nested
  class HandOffAndBatching {
    @Test
    void eachFailureReachesTheStoreAtOnce() {
      DistributedBreaker a = node("a");
      for (int i = 1; i <= 3; i++) {
        fail(a, 1);
        assertEquals(i, shared().number("winFailures"), "failure " + i + " handed off");
      }
    }

    @Test
    void successesWaitForTheFlushAndTravelWithTheHeartbeat() {
      DistributedBreaker a = node("a");
      succeed(a, 25);
      assertEquals(0, shared().number("successesTotal"));
      a.flush();
      BreakerSnapshot s = shared();
      assertEquals(25, s.number("successesTotal"));
      assertEquals(0, a.view().pendingSuccesses());
      assertEquals(1, s.nodes().size());
      assertEquals("a", s.nodes().get(0).node());
    }

    @Test
    void theReportCarriesWhatEveryCallSiteAcceptsWhateverThePolicyUntilItCloses() {
      DistributedBreaker a = node("a"); // POLICY: fallbackPolicy NONE
      assertEquals("", reported(a), "no call site: nothing reported");
      Fallbacks<String> reads = site(a, FallbackPolicy.CACHED, FallbackPolicy.STATIC_DEFAULT);
      assertEquals(
          "NONE,CACHED,STATIC_DEFAULT,CONTROLLED_FAILURE",
          reported(a),
          "one call site: what it accepts, CONTROLLED_FAILURE and NONE always");
      Fallbacks<String> other = site(a, FallbackPolicy.STATIC_DEFAULT, FallbackPolicy.DEFERRED);
      assertEquals(
          "NONE,STATIC_DEFAULT,CONTROLLED_FAILURE",
          reported(a),
          "two call sites: what both accept");
      other.close();
      assertEquals(
          "NONE,CACHED,STATIC_DEFAULT,CONTROLLED_FAILURE",
          reported(a),
          "a closed call site is withdrawn");
      reads.close();
      assertEquals("", reported(a), "the last one closed: nothing");
    }

    private Fallbacks<String> site(CircuitBreaker b, FallbackPolicy... accepts) {
      return Fallbacks.<String>builder(b).accepts(accepts).build();
    }

    /** What the node's report, flushed now, says its call sites accept. */
    private String reported(DistributedBreaker a) {
      a.flush();
      return shared().nodes().get(0).accepts();
    }

    @Test
    void aFailureCarriesThePendingSuccessesWithIt() {
      DistributedBreaker a = node("a");
      succeed(a, 7);
      fail(a, 1);
      assertEquals(7, shared().number("successesTotal"));
      assertEquals(8, shared().number("winCalls"));
    }

    @Test
    void aSlowSuccessCountsAsAFailure() {
      DistributedBreaker a = node("a", Mode.HYBRID, POLICY.toBuilder().slowCallMillis(100).build());
      Permission p = a.tryAcquire();
      p.onSuccess(Duration.ofMillis(150).toNanos());
      assertEquals(1, shared().number("winFailures"));
    }

    @Test
    void anOutcomeIsReportedOnce() {
      DistributedBreaker a = node("a", Mode.SHARED, POLICY);
      Permission p = a.tryAcquire();
      p.onFailure(new RuntimeException(), 1_000);
      p.onFailure(new RuntimeException(), 1_000);
      assertEquals(1, shared().number("winFailures"));
    }
  }

  @Nested
  class Degraded {
    @Test
    void anOpenFleetStaysOpenWhenTheStoreIsGone() {
      DistributedBreaker a = node("a");
      fail(a, 5);
      store.available(false);
      Permission p = a.tryAcquire();
      assertFalse(p.allowed(), "OPEN stays OPEN until its window ends");
      clock.advanceMillis(3_000);
      assertFalse(a.tryAcquire().allowed());
    }

    @Test
    void anOverrideStaysInForceInEveryModeUntilItExpires() {
      for (StoreFailureMode mode : StoreFailureMode.values()) {
        BreakerId id = BreakerId.parse("checkout:" + mode.name().toLowerCase().replace('_', '-'));
        store.available(true);
        BreakerRegistry r =
            start(
                builder()
                    .nodeId("n-" + mode)
                    .defaults(POLICY.toBuilder().storeFailureMode(mode).build())
                    .refreshInterval(Duration.ofHours(1))
                    .flushInterval(Duration.ofHours(1)));
        CircuitBreaker b = r.breaker(id);
        StoreFutures.await(
            store.override(
                id,
                new OverrideRequest(
                    OverrideKind.FORCED_OPEN, "oncall", "incident", Duration.ofMinutes(10), "c1")));
        assertFalse(b.tryAcquire().allowed(), mode + ": the pushed override rejects");
        store.available(false);
        ((DistributedBreaker) b).flush(); // the node's first failed command: it degrades
        await(mode + " degraded", r::degraded);
        assertFalse(b.tryAcquire().allowed(), mode + ": degraded, still forced open");
        clock.advanceMillis(60_000);
        assertFalse(b.tryAcquire().allowed(), mode + ": past lastKnownFor, still forced open");
        clock.advanceMillis(10 * 60_000);
        assertTrue(b.tryAcquire().allowed(), mode + ": admits once the override expired");
      }
    }

    @Test
    void aBreakerMadeWhileRedisIsDownIsReadOnceItAnswers() {
      BreakerRegistry r =
          start(
              builder()
                  .nodeId("late")
                  .defaults(POLICY)
                  .refreshInterval(Duration.ofHours(1))
                  .checkInterval(Duration.ofHours(1))
                  .sweepInterval(Duration.ofHours(1))
                  .flushInterval(Duration.ofHours(1)));
      DistributedBreaker first = (DistributedBreaker) r.breaker(BreakerId.parse("late:first"));
      await("the first breaker's read", () -> !first.neverRead());
      store.available(false);
      first.flush(); // the node's first failed command: it degrades
      await("degraded", r::degraded);
      DistributedBreaker made = (DistributedBreaker) r.breaker(BreakerId.parse("late:made"));
      assertTrue(made.neverRead(), "no read while Redis does not answer");
      store.available(true);
      // no sweep, no check and no refresh interval comes within the hour: only the retry reads it
      await("the breaker made while degraded is read", () -> !made.neverRead());
    }

    @Test
    void localOnlyStartsFromTheFleetStateNotFromAnEmptyMachine() {
      DistributedBreaker a = node("a");
      DistributedBreaker b = node("b");
      fail(a, 5);
      store.available(false);
      b.flush(); // its first command that fails: b notices and degrades
      await("degraded", () -> b.view().degraded());
      assertFalse(b.tryAcquire().allowed(), "the fleet's OPEN is a fresh local open window");
      clock.advanceMillis(10_001);
      Permission probe = b.tryAcquire();
      assertTrue(probe.allowed(), "then one local probe per process");
      assertFalse(b.tryAcquire().allowed(), "and only one");
      probe.onSuccess(1_000);
      assertTrue(b.tryAcquire().allowed(), "its success closes the local machine");
    }

    @Test
    void aTripMadeWhileDegradedIsPublishedOnRecovery() {
      DistributedBreaker a = node("a");
      DistributedBreaker b = node("b");
      store.available(false);
      fail(a, 1);
      await("degraded", () -> a.view().degraded());
      fail(a, 5);
      assertEquals(State.OPEN, a.acting(), "the seeded local machine trips alone");
      List<CircuitEvent> seen = new CopyOnWriteArrayList<>();
      b.onEvent(seen::add);
      store.available(true);
      await("a recovered", () -> !a.view().degraded());
      assertEquals(State.OPEN, shared().effectiveState(), "the degraded trip is in the store");
      await("b learned it", () -> b.acting() == State.OPEN);
      assertTrue(
          seen.stream().anyMatch(e -> e.type() == CircuitEvent.Type.TRANSITION),
          "b hears the trip: " + seen);
    }

    /**
     * The race behind a stall at a window's end (issue 28): a degraded node's recovery installs the
     * exact shared state into each breaker's local machine, one breaker after another, and only
     * then does the guard recover. A call decided in between came from that copy: a half-open
     * breaker whose lease another node holds, copied without the lease, granted a local probe
     * beside the fleet's. The store below runs such a call at the exact point (while the registry
     * reads its second breaker), so the test fails every time without the fix.
     */
    @Test
    void aCallDecidedDuringRecoveryNeverProbesBesideTheFleetsLease() {
      BreakerId other = BreakerId.parse("checkout:ledger");
      List<BreakerId> reads = new CopyOnWriteArrayList<>();
      List<Permission> duringRecovery = new CopyOnWriteArrayList<>();
      List<CircuitBreaker> mine = new CopyOnWriteArrayList<>();
      java.util.concurrent.atomic.AtomicBoolean recovering =
          new java.util.concurrent.atomic.AtomicBoolean();
      BreakerStore hooked =
          new ForwardingBreakerStore(store) {
            @Override
            public java.util.concurrent.CompletableFuture<BreakerSnapshot> state(BreakerId id) {
              if (recovering.get() && !reads.contains(id)) {
                if (!reads.isEmpty()) {
                  // the first breaker is reconciled and installed, the guard not yet recovered
                  BreakerId first = reads.get(0);
                  for (CircuitBreaker cb : mine) {
                    if (cb.id().equals(first)) {
                      duringRecovery.add(cb.tryAcquire());
                    }
                  }
                }
                reads.add(id);
              }
              return super.state(id);
            }
          };
      BreakerRegistry r =
          start(
              builder()
                  .store(hooked)
                  .nodeId("b")
                  .mode(Mode.SHARED)
                  .defaults(POLICY)
                  .refreshInterval(Duration.ofHours(1))
                  .flushInterval(Duration.ofHours(1)));
      mine.add(r.breaker(ID));
      mine.add(r.breaker(other));
      for (CircuitBreaker cb : mine) {
        fail(cb, 5);
        assertFalse(cb.tryAcquire().allowed(), cb.id() + " tripped, b knows it");
      }
      clock.advanceMillis(10_001);
      for (CircuitBreaker cb : mine) {
        assertTrue(
            StoreFutures.await(store.acquire(cb.id(), "a", POLICY)).allowed(),
            "node a holds the fleet's probe lease of " + cb.id());
      }
      store.failing("ping", true); // b's recovery checks fail until the test is ready
      ((DefaultBreakerRegistry) r).guard().trip(io.breakerctl.runtime.store.StoreFault.TIMEOUT);
      await("b degraded", r::degraded);
      for (CircuitBreaker cb : mine) {
        assertFalse(cb.tryAcquire().allowed(), "degraded: a fresh local open window");
      }
      recovering.set(true);
      store.failing("ping", false);
      await("b recovered", () -> !r.degraded());
      assertEquals(1, duringRecovery.size(), "one call decided between install and recovery");
      Permission p = duringRecovery.get(0);
      assertFalse(
          p.allowed(),
          "no lease, no probe: a call decided while the recovery installs the fleet's half-open"
              + " state must not be admitted (got "
              + p.reason()
              + ")");
      for (CircuitBreaker cb : mine) {
        Permission after = cb.tryAcquire();
        assertFalse(after.allowed(), "recovered: node a's lease is the only one");
        assertEquals(AdmissionReason.PROBES_BUSY, after.reason());
      }
    }

    @Test
    void reconcileAdoptsWhatTheFleetDidMeanwhileExactly() {
      DistributedBreaker a = node("a");
      DistributedBreaker b = node("b");
      ((DefaultBreakerRegistry) registries.get(1)).stopListening(); // b hears nothing by push
      fail(a, 1);
      store.failing("ping", true); // b's recovery checks fail until the fleet has tripped
      ((DefaultBreakerRegistry) registries.get(1))
          .guard()
          .trip(io.breakerctl.runtime.store.StoreFault.TIMEOUT);
      await("b degraded", () -> b.view().degraded());
      fail(a, 4); // the fleet trips while b is degraded and deaf: only reconcile can tell it
      store.failing("ping", false);
      assertEquals(State.OPEN, shared().effectiveState());
      await("b recovered", () -> !b.view().degraded());
      assertEquals(State.OPEN, b.acting(), "b enforces the fleet's trip after reconciling");
      assertEquals(shared().number("generation"), Long.parseLong(b.view().generation()));
    }

    @Test
    void aNodeReassertsAnOverrideTheStoreLost() {
      DistributedBreaker a = node("a");
      StoreFutures.await(
          store.override(
              ID,
              new OverrideRequest(
                  OverrideKind.FORCED_OPEN, "oncall", "incident", Duration.ofMinutes(10), "c9")));
      assertFalse(a.tryAcquire().allowed());
      store.lose(ID); // a flushed Redis: the next read is a new, empty incarnation
      a.onSnapshot(shared());
      assertEquals(State.FORCED_OPEN, a.acting(), "the node keeps what it enforces");
      await(
          "re-asserted", () -> shared().override().map(o -> o == State.FORCED_OPEN).orElse(false));
      assertEquals("oncall", shared().fields().get("overrideActor"));
      assertEquals("c9", shared().fields().get("overrideCorrelationId"));
    }
  }

  @Nested
  class RefusedWork {
    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.EnumSource(
        value = io.breakerctl.runtime.store.StoreFault.class,
        names = {"OOM", "READONLY", "NOPERM"}) // every hard fault takes this path (StoreFaultTest)
    void oneRefusalDegradesTheNodeWithItsReasonAndTheLocalMachineTrips(
        io.breakerctl.runtime.store.StoreFault fault) {
      DistributedBreaker a = node("a", Mode.SHARED, POLICY);
      succeed(a, 3);
      BreakerRegistry r = registries.get(0);
      store.refusing("acquire", fault);
      store.refusing("record", fault);
      store.refusing("alive", fault);
      int reached = 0;
      for (int i = 0; i < 20; i++) {
        Permission p = a.tryAcquire();
        if (p.allowed()) {
          reached++;
          p.onFailure(new RuntimeException("down"), 1_000_000);
        }
      }
      assertTrue(r.degraded(), "degraded at the first refusal");
      assertEquals(java.util.Optional.of(fault.code()), r.degradedReason());
      assertEquals(POLICY.failureThreshold(), reached, "the local machine trips at the threshold");
      store.refusing("acquire", (io.breakerctl.runtime.store.StoreFault) null);
      store.refusing("record", (io.breakerctl.runtime.store.StoreFault) null);
      // a PING and reads answer, but the recovery check's script write is still refused
      long checks = store.commands("alive");
      await("two recovery checks", () -> store.commands("alive") >= checks + 2);
      assertTrue(r.degraded(), "still degraded while a script write is refused");
      store.refusing("alive", (io.breakerctl.runtime.store.StoreFault) null);
      await("recovered", () -> !r.degraded());
      assertEquals(java.util.Optional.empty(), r.degradedReason());
      await("the local trip published", () -> shared().effectiveState() == State.OPEN);
    }
  }

  @Nested
  class BackgroundFailures {
    @Test
    void countedPerAttemptLoggedOncePerChangeAndMetered() {
      DistributedBreaker a = node("a");
      List<java.util.logging.LogRecord> logged = new CopyOnWriteArrayList<>();
      java.util.logging.Logger log =
          java.util.logging.Logger.getLogger(BreakerRegistry.class.getName());
      java.util.logging.Handler h =
          new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
              if (r.getMessage().contains("{1} is failing")
                  || r.getMessage().contains("works again after")) {
                logged.add(r);
              }
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
          };
      log.addHandler(h);
      java.util.logging.Level was = log.getLevel();
      log.setLevel(java.util.logging.Level.ALL); // in-process CLI tests turn the root logger off
      io.micrometer.core.instrument.simple.SimpleMeterRegistry meters =
          new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
      try (io.breakerctl.runtime.metrics.BreakerRegistryMetrics m =
          io.breakerctl.runtime.metrics.BreakerRegistryMetrics.bind(registries.get(0), meters)) {
        // an error of the request, not of the coordinator: logged by the task's health
        store.refusing("record", io.breakerctl.runtime.store.StoreFault.OTHER);
        for (int i = 0; i < 3; i++) {
          a.flush();
        }
        assertEquals(3, registries.get(0).backgroundFailures(BackgroundTask.FLUSH));
        assertEquals(
            3.0,
            meters
                .get(io.breakerctl.runtime.metrics.BreakerRegistryMetrics.BACKGROUND_FAILURES)
                .tag("task", "flush")
                .functionCounter()
                .count());
        store.refusing("record", (io.breakerctl.runtime.store.StoreFault) null);
        a.flush();
        a.flush();
        assertEquals(3, registries.get(0).backgroundFailures(BackgroundTask.FLUSH));
        store.failing("record", true); // an outage: counted, left to the registry's one warning
        a.flush();
        assertEquals(4, registries.get(0).backgroundFailures(BackgroundTask.FLUSH));
      } finally {
        log.setLevel(was);
        log.removeHandler(h);
      }
      List<String> flushLines =
          logged.stream()
              .filter(r -> java.util.Arrays.asList(r.getParameters()).contains("flush"))
              .map(r -> r.getLevel() + " " + java.util.Arrays.toString(r.getParameters()))
              .toList();
      assertEquals(
          2, flushLines.size(), "one line when it fails, one when it works: " + flushLines);
      assertTrue(flushLines.get(0).startsWith("WARNING"), flushLines.get(0));
      assertTrue(flushLines.get(1).startsWith("INFO") && flushLines.get(1).contains("3"));
    }
  }

  @Nested
  class RefreshByPush {
    private BreakerRegistry registry(Duration sweep) {
      BreakerRegistry r =
          start(
              builder()
                  .nodeId("push")
                  .defaults(POLICY)
                  .refreshInterval(Duration.ofMillis(50))
                  .checkInterval(Duration.ofMillis(100))
                  .sweepInterval(sweep)
                  .flushInterval(Duration.ofHours(1)));
      return r;
    }

    private BreakerRegistry registry() {
      return registry(Duration.ofMillis(400));
    }

    @Test
    void aHealthyNodeReadsOnlyTheCanaryBetweenSweeps() {
      BreakerRegistry r = registry(Duration.ofHours(1));
      for (int i = 0; i < 5; i++) {
        r.breaker(BreakerId.parse("push:dep" + i));
      }
      await("each breaker's first read", () -> store.commands("state") >= 5);
      // the check after subscribing (the first canary read), waited for rather than slept
      // through: a loaded machine may run it later than any fixed pause
      await("the canary check after subscribing", () -> store.commands("canary") >= 1);
      long reads = store.commands("state");
      long stamps = store.commands("stamps");
      long canaries = store.commands("canary");
      // three canary checks (100 ms apart): however long they take, nothing else is read
      await("the canary is checked meanwhile", () -> store.commands("canary") - canaries >= 3);
      assertEquals(reads, store.commands("state"), "no full read while push works");
      assertEquals(stamps, store.commands("stamps"), "no stamp read before the sweep is due");
    }

    @Test
    void aPushedTripSetsTheViewAtOnceAndTheFullReadFollowsLater() {
      BreakerRegistry r = registry(Duration.ofHours(1));
      CircuitBreaker b = r.breaker(ID);
      await("the first read", () -> store.commands("state") >= 1);
      await("the canary check after subscribing", () -> store.commands("canary") >= 1);
      long reads = store.commands("state");
      for (int i = 0; i < 5; i++) {
        StoreFutures.await(store.record(ID, Outcome.failure("elsewhere", ""), POLICY));
      }
      // the in-process store delivers the trip's message with the fifth record
      assertEquals(State.OPEN, b.view().state(), "the push set the view");
      assertFalse(b.tryAcquire().allowed());
      // 50-100 ms later, jittered: not in the instant every node got the message. In test time
      // the registry's timer runs all that falls due in 49 ms, so an immediate read would have run
      time.advance(Duration.ofMillis(49));
      assertEquals(reads, store.commands("state"), "no full read at once");
      await("the full read after the push", () -> store.commands("state") == reads + 1);
      assertEquals(State.OPEN, b.view().state());
    }

    @Test
    void theSweepComparesEveryStampAtItsInterval() {
      BreakerRegistry r = registry(Duration.ofMillis(300));
      for (int i = 0; i < 5; i++) {
        r.breaker(BreakerId.parse("push:dep" + i));
      }
      // the first heartbeats create the keys (a new epoch): the sweep after them reads each once
      await("each breaker's first heartbeat", () -> store.commands("record") >= 5);
      time.advance(Duration.ofMillis(700));
      long reads = store.commands("state");
      long stamps = store.commands("stamps");
      // two sweeps (300 ms apart), however long the machine takes to run them
      await("stamps at the sweep interval", () -> store.commands("stamps") - stamps >= 2);
      assertEquals(reads, store.commands("state"), "no full read: nothing moved");
    }

    @Test
    void aLostMessageIsCaughtByTheSweepReadingOnlyThatBreaker() {
      BreakerRegistry r = registry();
      List<CircuitBreaker> bs = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        bs.add(r.breaker(BreakerId.parse("push:dep" + i)));
      }
      store.dropMessages(true);
      long reads = store.commands("state");
      StoreFutures.await(
          store.override(
              BreakerId.parse("push:dep3"),
              new OverrideRequest(OverrideKind.FORCED_OPEN, "oncall", "lost", Duration.ZERO, "")));
      await("the sweep caught it", () -> !bs.get(3).tryAcquire().allowed());
      assertEquals(1, store.commands("state") - reads, "only the moved breaker is read");
      assertTrue(bs.get(2).tryAcquire().allowed());
    }

    @Test
    void dataLostWithTheConnectionUpMovesTheCanaryAndTheNodeReassertsItsView() {
      BreakerRegistry r = registry(Duration.ofHours(1));
      List<CircuitBreaker> bs = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        bs.add(r.breaker(BreakerId.parse("push:dep" + i)));
      }
      BreakerId id = BreakerId.parse("push:dep3");
      StoreFutures.await(
          store.override(
              id,
              new OverrideRequest(OverrideKind.FORCED_OPEN, "oncall", "kept", Duration.ZERO, "")));
      await("the override arrived by push", () -> !bs.get(3).tryAcquire().allowed());
      // the tick sends the changed heartbeat and every breaker's first one (waited for, not slept
      // through: a loaded machine sends the first ones late); then the node sends nothing
      await(
          "the changed heartbeat stored",
          () ->
              StoreFutures.await(store.state(id)).nodes().stream()
                  .anyMatch(n -> n.state() == State.FORCED_OPEN));
      for (CircuitBreaker b : bs) {
        await(
            "the first heartbeat of " + b.id() + " stored",
            () -> !StoreFutures.await(store.state(b.id())).nodes().isEmpty());
      }
      long stamps = store.commands("stamps");
      long records = store.commands("record");
      store.flushAll(); // FLUSHALL: no message, no closed connection; only the canary moves
      await(
          "the node put its override back",
          () -> "FORCED_OPEN".equals(StoreFutures.await(store.state(id)).fields().get("override")));
      assertTrue(store.commands("stamps") > stamps, "the moved canary started a stamp check");
      assertEquals(records, store.commands("record"), "no flush of the node's told it meanwhile");
      assertFalse(bs.get(3).tryAcquire().allowed(), "the override stays in force meanwhile");
      assertTrue(bs.get(2).tryAcquire().allowed());
    }

    @Test
    void withoutASubscriptionEveryBreakerIsReadEachRefresh() {
      BreakerRegistry r = registry();
      for (int i = 0; i < 3; i++) {
        r.breaker(BreakerId.parse("push:dep" + i));
      }
      ((DefaultBreakerRegistry) r).stopListening();
      long reads = store.commands("state");
      // three refreshes of the 3 breakers (50 ms apart), however long the machine takes: a
      // subscribed node would read none of them
      await("full reads at the refresh interval", () -> store.commands("state") - reads >= 3 * 3);
    }
  }

  @Nested
  class FlushByNeed {
    private DistributedBreaker node(Policy policy) {
      BreakerRegistry r =
          start(
              builder()
                  .nodeId("need")
                  .defaults(policy)
                  .refreshInterval(Duration.ofHours(1))
                  .checkInterval(Duration.ofHours(1))
                  .flushInterval(Duration.ofMillis(300))
                  .heartbeatInterval(Duration.ofHours(1)));
      return (DistributedBreaker) r.breaker(ID);
    }

    @Test
    void anIdleBreakerSendsItsHeartbeatOnceThenNothing() {
      node(POLICY);
      await("first heartbeat", () -> store.commands("record") >= 1);
      long records = store.commands("record");
      time.advance(Duration.ofSeconds(1));
      assertEquals(records, store.commands("record"), "nothing changed: nothing sent");
      assertEquals(1, shared().nodes().size());
    }

    @Test
    void aChangedReportGoesAtTheNextTick() {
      DistributedBreaker a = node(POLICY);
      await("first heartbeat", () -> store.commands("record") >= 1);
      StoreFutures.await(
          store.override(
              ID,
              new OverrideRequest(
                  OverrideKind.FORCED_OPEN, "oncall", "report", Duration.ZERO, "")));
      await(
          "the heartbeat reports FORCED_OPEN",
          () -> {
            // the store counts a command before it runs it: the heartbeat may not be there yet
            List<NodeHeartbeat> nodes = shared().nodes();
            return !nodes.isEmpty() && nodes.get(0).state() == State.FORCED_OPEN;
          });
      assertEquals(State.FORCED_OPEN, a.acting());
    }

    @Test
    void countPolicySuccessesWaitUpToFlushIntervalRatePolicySuccessesGoEachTick() {
      DistributedBreaker count = node(POLICY);
      await("first heartbeat", () -> store.commands("record") >= 1);
      succeed(count, 10);
      await("flushed within the interval", () -> shared().number("successesTotal") == 10);
      assertEquals(0, count.view().pendingSuccesses());
    }

    @Test
    void oneLivenessBeatForTheNodeAndGoneAtClose() {
      node(POLICY);
      await("the start's liveness beat", () -> store.aliveUntil("need").isPresent());
      assertEquals(
          clock.millis() + Duration.ofHours(3).toMillis(),
          store.aliveUntil("need").getAsLong(),
          "valid for three heartbeat intervals");
      long beats = store.commands("alive");
      registries.remove(registries.size() - 1).close();
      assertEquals(beats + 1, store.commands("alive"), "one more at close");
      assertEquals(clock.millis(), store.aliveUntil("need").getAsLong(), "gone at close");
    }

    @Test
    void closeSendsNoReportWhereNothingIsPending() {
      node(POLICY);
      await("first report", () -> store.commands("record") >= 1);
      long records = store.commands("record");
      registries.remove(registries.size() - 1).close();
      assertEquals(records, store.commands("record"), "nothing pending: nothing sent at close");
    }

    @Test
    void closeFlushesEverySuccess() {
      DistributedBreaker a = node(POLICY);
      succeed(a, 42);
      registries.remove(registries.size() - 1).close();
      assertEquals(42, shared().number("successesTotal"), "no success lost at close");
    }
  }

  /** A 429 or 503 answer with {@code Retry-After} (a thrown client error). */
  private static final class Answer extends RuntimeException
      implements io.breakerctl.runtime.DependencyStatus {
    private static final long serialVersionUID = 1L;
    private final int code;
    private final transient java.util.Optional<Duration> retryAfter;

    Answer(int code, Duration retryAfter) {
      super("status " + code, null, false, false);
      this.code = code;
      this.retryAfter = java.util.Optional.ofNullable(retryAfter);
    }

    @Override
    public int statusCode() {
      return code;
    }

    @Override
    public java.util.Optional<Duration> retryAfter() {
      return retryAfter;
    }
  }

  /** One call answered by {@code error}, reported through the classifier. */
  private static void answered(CircuitBreaker b, RuntimeException error) {
    Permission p = b.tryAcquire();
    assertTrue(p.allowed(), "the call is admitted");
    p.onError(error, 1_000_000);
  }

  @Nested
  class BackoffHints {
    private Policy rateLimited(io.breakerctl.runtime.model.RateLimitAction a) {
      return POLICY.toBuilder().rateLimited(a).build();
    }

    @Test
    void oneNodesRetryAfterBacksEveryNodeOffForTheHintThenOneProbe() {
      Policy p = rateLimited(io.breakerctl.runtime.model.RateLimitAction.BACKOFF);
      DistributedBreaker a = node("a", Mode.HYBRID, p);
      DistributedBreaker b = node("b", Mode.HYBRID, p);
      long before = clock.millis();
      answered(a, new Answer(429, Duration.ofSeconds(7)));
      BreakerSnapshot s = shared();
      assertEquals(State.OPEN, s.effectiveState(), "one node's 429 opened the fleet");
      assertEquals(before + 7_000, s.openWindow().untilMillis(), "for the hint, not openSeconds");
      assertEquals(0, s.number("winFailures"), "a rate limit under BACKOFF is not counted");
      assertEquals(
          new io.breakerctl.runtime.model.BackoffHint(
              7_000, io.breakerctl.runtime.model.BackoffHint.Source.RETRY_AFTER),
          s.backoffHint().orElseThrow().hint());
      for (DistributedBreaker n : List.of(a, b)) {
        Permission r = n.tryAcquire();
        assertFalse(r.allowed(), "every node rejects within the hint");
        assertEquals(State.OPEN, r.state());
      }
      clock.advanceMillis(6_999);
      assertFalse(b.tryAcquire().allowed(), "still the hint's window");
      clock.advanceMillis(1);
      Permission probe = b.tryAcquire();
      assertTrue(probe.allowed(), "a probe at the hint's end");
      assertFalse(a.tryAcquire().allowed(), "exactly one");
      probe.onSuccess(1_000);
      assertEquals(State.CLOSED, shared().effectiveState());
    }

    @Test
    void aProbeAnsweredWithAHintReopensForTheHintNotTheDoubledWindow() {
      Policy p = rateLimited(io.breakerctl.runtime.model.RateLimitAction.BACKOFF);
      DistributedBreaker a = node("a", Mode.HYBRID, p);
      fail(a, 5);
      clock.advanceMillis(10_001);
      Permission probe = a.tryAcquire();
      assertTrue(probe.allowed());
      long at = clock.millis();
      probe.onError(new Answer(429, Duration.ofSeconds(3)), 1_000_000);
      BreakerSnapshot s = shared();
      assertEquals(State.OPEN, s.effectiveState());
      assertEquals(at + 3_000, s.openWindow().untilMillis(), "the hint, not 20 s doubled");
      assertEquals(3_000, s.openWindow().millis(), "the base of the next doubling");
    }

    /** Node {@code node}'s hint of {@code millis} alone, straight to the store. */
    private void hintFrom(String node, long millis, Policy p) {
      StoreFutures.await(
          store.record(
              ID,
              Outcome.backoff(
                  node,
                  "",
                  "",
                  new io.breakerctl.runtime.model.BackoffHint(
                      millis, io.breakerctl.runtime.model.BackoffHint.Source.GRPC_PUSHBACK)),
              p));
    }

    @Test
    void aLongerHintFromAnotherNodeLengthensEveryNodesWindowAShorterOneNever() {
      Policy p = rateLimited(io.breakerctl.runtime.model.RateLimitAction.BACKOFF);
      DistributedBreaker a = node("a", Mode.HYBRID, p);
      DistributedBreaker b = node("b", Mode.HYBRID, p);
      long start = clock.millis();
      answered(a, new Answer(429, Duration.ofSeconds(2)));
      clock.advanceMillis(1_000);
      hintFrom("c", 500, p); // a late call's answer: ends before the window in force
      assertEquals(start + 2_000, shared().openWindow().untilMillis(), "never shortened");
      hintFrom("c", 5_000, p);
      assertEquals(start + 6_000, shared().openWindow().untilMillis(), "lengthened");
      clock.advanceMillis(4_999);
      for (DistributedBreaker n : List.of(a, b)) {
        assertFalse(n.tryAcquire().allowed(), "every node keeps to the lengthened window");
      }
      clock.advanceMillis(1);
      Permission probe = a.tryAcquire();
      assertTrue(probe.allowed(), "a probe at its end");
      assertFalse(b.tryAcquire().allowed(), "exactly one");
    }

    @Test
    void byDefaultARateLimitIsNeitherCountedNorBackingOff() {
      DistributedBreaker a = node("a");
      answered(a, new Answer(429, Duration.ofSeconds(7)));
      assertEquals(State.CLOSED, shared().effectiveState(), "rateLimited IGNORE, the default");
      assertTrue(a.tryAcquire().allowed());
    }

    @Test
    void countedRateLimitsCountAsFailures() {
      Policy p = rateLimited(io.breakerctl.runtime.model.RateLimitAction.COUNT);
      DistributedBreaker a = node("a", Mode.HYBRID, p);
      for (int i = 0; i < 4; i++) {
        answered(a, new Answer(429, null));
      }
      assertEquals(4, shared().number("winFailures"), "each 429 without a hint counted");
      assertEquals(State.CLOSED, shared().effectiveState());
      answered(a, new Answer(429, Duration.ofSeconds(2)));
      assertEquals(State.OPEN, shared().effectiveState());
      assertEquals(2_000, shared().openWindow().millis(), "the trip opened for the hint");
    }

    @Test
    void aFailureWithAHintBacksOffWhateverThePolicySaysOfRateLimits() {
      DistributedBreaker a = node("a");
      long before = clock.millis();
      answered(a, new Answer(503, Duration.ofSeconds(4)));
      assertEquals(State.OPEN, shared().effectiveState());
      assertEquals(before + 4_000, shared().openWindow().untilMillis());
    }

    @Test
    void aCallersExplicitHintIsCappedByMaxOpen() {
      DistributedBreaker a = node("a");
      long before = clock.millis();
      Permission p = a.tryAcquire();
      p.onOutcome(
          io.breakerctl.runtime.CallOutcome.FAILURE,
          1_000_000,
          io.breakerctl.runtime.model.BackoffHint.of(
                  Duration.ofHours(2), io.breakerctl.runtime.model.BackoffHint.Source.CALLER)
              .orElseThrow());
      BreakerSnapshot s = shared();
      assertEquals(before + 40_000, s.openWindow().untilMillis(), "maxOpenSeconds caps the hint");
      assertEquals(7_200_000, s.backoffHint().orElseThrow().hint().millis(), "as asked");
      assertEquals("CALLER", s.fields().get("hintSource"));
    }

    @Test
    void aNegativeHintFromTheCallersCodeIsRefusedAndNothingIsRecorded() {
      DistributedBreaker a = node("a");
      Permission p = a.tryAcquire();
      IllegalArgumentException e =
          org.junit.jupiter.api.Assertions.assertThrows(
              IllegalArgumentException.class,
              () -> p.onError(new Answer(429, Duration.ofSeconds(-3)), 1_000_000));
      assertTrue(e.getMessage().contains("PT-3S"), e.getMessage());
      assertEquals(0, store.commands("record"), "nothing recorded");
    }
  }
}
