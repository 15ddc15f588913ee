package io.breakerctl.runtime.local;

import static io.breakerctl.runtime.model.State.CLOSED;
import static io.breakerctl.runtime.model.State.DISABLED;
import static io.breakerctl.runtime.model.State.FORCED_CLOSED;
import static io.breakerctl.runtime.model.State.FORCED_OPEN;
import static io.breakerctl.runtime.model.State.HALF_OPEN;
import static io.breakerctl.runtime.model.State.METRICS_ONLY;
import static io.breakerctl.runtime.model.State.OPEN;
import static io.breakerctl.runtime.model.TransitionCause.FAILURE_RATE;
import static io.breakerctl.runtime.model.TransitionCause.FAILURE_THRESHOLD;
import static io.breakerctl.runtime.model.TransitionCause.OPEN_WINDOW_ENDED;
import static io.breakerctl.runtime.model.TransitionCause.OVERRIDE_CLEARED;
import static io.breakerctl.runtime.model.TransitionCause.OVERRIDE_EXPIRED;
import static io.breakerctl.runtime.model.TransitionCause.OVERRIDE_SET;
import static io.breakerctl.runtime.model.TransitionCause.OVERRIDE_UPDATED;
import static io.breakerctl.runtime.model.TransitionCause.PROBES_SUCCEEDED;
import static io.breakerctl.runtime.model.TransitionCause.PROBE_FAILED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.tuple;

import io.breakerctl.runtime.model.AdmissionReason;
import io.breakerctl.runtime.model.OverrideOutcome;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.RecordOutcome;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;
import io.breakerctl.runtime.model.Transitions;
import io.breakerctl.testing.MutableClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@DisplayName("LocalStateMachine")
class LocalStateMachineTest {

  /** A real epoch time on a whole second (bucket boundaries of a 10 s window fall on it). */
  private static final long T0 = 1_700_000_000_000L;

  private static final String NODE = "node-a";
  private static final String OTHER = "node-b";

  /** threshold 3, 10 s window (1 s buckets), open 30 s, max open 100 s, 5 s leases, 1 permit. */
  private static final Policy BASE =
      Policy.builder()
          .failureThreshold(3)
          .window(Duration.ofSeconds(10))
          .open(Duration.ofSeconds(30))
          .maxOpen(Duration.ofSeconds(100))
          .probeLease(Duration.ofSeconds(5))
          .build();

  private MutableClock clock;
  private final List<LocalTransition> events = Collections.synchronizedList(new ArrayList<>());
  private final List<LocalStateMachine> machines = new ArrayList<>();

  @BeforeEach
  void setUp() {
    clock = new MutableClock(T0);
  }

  @AfterEach
  void everyTransitionIsLegalAndNumbered() {
    List<LocalTransition> seen;
    synchronized (events) {
      seen = List.copyOf(events);
    }
    for (int i = 0; i < seen.size(); i++) {
      LocalTransition t = seen.get(i);
      assertThat(Transitions.isLegal(t.from(), t.to(), t.cause())).as("legal: %s", t).isTrue();
      assertThat(t.generation()).as("generation of %s", t).isEqualTo(i + 1L);
    }
    for (LocalStateMachine m : machines) {
      assertThat(m.generation()).isEqualTo(seen.size());
    }
  }

  private LocalStateMachine machine(Policy policy) {
    LocalStateMachine m = new LocalStateMachine(policy, clock);
    m.onTransition(events::add);
    machines.add(m);
    return m;
  }

  private static LocalRecordResult fail(LocalStateMachine m) {
    return m.record(1, 0, -1, -1, null, NODE);
  }

  private static LocalRecordResult succeed(LocalStateMachine m) {
    return m.record(0, 1, -1, -1, null, NODE);
  }

  private static LocalRecordResult probe(LocalStateMachine m, LocalAdmission a, boolean failed) {
    return m.record(failed ? 1 : 0, failed ? 0 : 1, -1, a.generation(), a.leaseId(), NODE);
  }

  /** Trips {@code m} (threshold 3) and moves the clock to the end of its open window. */
  private LocalAdmission tripAndProbe(LocalStateMachine m) {
    m.record(3, 0, -1, -1, null, NODE);
    clock.advanceMillis(m.openUntilMillis() - clock.millis());
    return m.tryAcquire(NODE);
  }

  private List<TransitionCause> causes() {
    synchronized (events) {
      return events.stream().map(LocalTransition::cause).toList();
    }
  }

  @Nested
  @DisplayName("tripping")
  class Tripping {

    @Test
    @DisplayName("threshold 3: closed/1, closed/2, open/3")
    void threshold() {
      LocalStateMachine m = machine(BASE);

      assertThat(fail(m))
          .extracting(
              LocalRecordResult::state,
              LocalRecordResult::windowFailures,
              LocalRecordResult::transitioned)
          .containsExactly(CLOSED, 1L, false);
      assertThat(fail(m))
          .extracting(
              LocalRecordResult::state,
              LocalRecordResult::windowFailures,
              LocalRecordResult::transitioned)
          .containsExactly(CLOSED, 2L, false);
      LocalRecordResult third = fail(m);

      assertThat(third)
          .extracting(
              LocalRecordResult::state,
              LocalRecordResult::windowFailures,
              LocalRecordResult::transitioned)
          .containsExactly(OPEN, 3L, true);
      assertThat(third.generation()).isEqualTo(1);
      assertThat(m.state()).isEqualTo(OPEN);
      assertThat(m.openUntilMillis()).isEqualTo(T0 + 30_000);
      assertThat(m.counts().windowFailures()).isZero();
      assertThat(events)
          .extracting(
              LocalTransition::from,
              LocalTransition::to,
              LocalTransition::cause,
              LocalTransition::windowFailures,
              LocalTransition::atMillis)
          .containsExactly(tuple(CLOSED, OPEN, FAILURE_THRESHOLD, 3L, T0));
      assertThat(m.tryAcquire(NODE))
          .isEqualTo(new LocalAdmission(false, OPEN, AdmissionReason.OPEN, 1, null, T0 + 30_000));
    }

    @Test
    @DisplayName("failure rate trips once minimumCalls are in the window")
    void failureRate() {
      LocalStateMachine m =
          machine(
              BASE.toBuilder()
                  .failureThreshold(100)
                  .failureRateThreshold(50.0)
                  .minimumCalls(10)
                  .build());

      assertThat(m.record(2, 0, -1, -1, null, NODE).state())
          .as("100% of 2 calls")
          .isEqualTo(CLOSED);
      assertThat(m.record(0, 5, -1, -1, null, NODE).windowCalls()).isEqualTo(7);
      assertThat(fail(m))
          .extracting(LocalRecordResult::state, LocalRecordResult::windowCalls)
          .containsExactly(CLOSED, 8L);
      assertThat(fail(m))
          .extracting(LocalRecordResult::state, LocalRecordResult::windowCalls)
          .containsExactly(CLOSED, 9L);
      LocalRecordResult tenth = fail(m);

      assertThat(tenth)
          .extracting(
              LocalRecordResult::state,
              LocalRecordResult::windowFailures,
              LocalRecordResult::windowCalls)
          .containsExactly(OPEN, 5L, 10L);
      assertThat(causes()).containsExactly(FAILURE_RATE);
    }

    @Test
    @DisplayName("below the rate nothing trips, however many calls")
    void belowRate() {
      LocalStateMachine m =
          machine(
              BASE.toBuilder()
                  .failureThreshold(100)
                  .failureRateThreshold(50.0)
                  .minimumCalls(10)
                  .build());
      m.record(0, 20, -1, -1, null, NODE);

      LocalRecordResult r = m.record(19, 0, -1, -1, null, NODE);

      assertThat(r)
          .extracting(LocalRecordResult::state, LocalRecordResult::windowCalls)
          .containsExactly(CLOSED, 39L);
      assertThat(fail(m).state()).as("20 of 40 = 50%").isEqualTo(OPEN);
    }

    @Test
    @DisplayName("a call at least slowCallMillis slow counts as a failure")
    void slowCalls() {
      LocalStateMachine m = machine(BASE.toBuilder().slowCallMillis(100).build());

      LocalRecordResult slow = m.record(0, 1, 100, -1, null, NODE);
      LocalRecordResult fast = m.record(0, 1, 99, -1, null, NODE);
      LocalRecordResult unknown = m.record(0, 1, -1, -1, null, NODE);

      assertThat(slow)
          .extracting(LocalRecordResult::windowFailures, LocalRecordResult::windowCalls)
          .containsExactly(1L, 1L);
      assertThat(fast)
          .extracting(LocalRecordResult::windowFailures, LocalRecordResult::windowCalls)
          .containsExactly(1L, 2L);
      assertThat(unknown.windowFailures()).isEqualTo(1);
      assertThat(m.counts().failuresTotal()).isEqualTo(1);
      assertThat(m.counts().successesTotal()).isEqualTo(2);

      LocalRecordResult batch = m.record(0, 5, 500, -1, null, NODE);
      assertThat(batch)
          .extracting(LocalRecordResult::windowFailures, LocalRecordResult::windowCalls)
          .containsExactly(2L, 8L);
      assertThat(m.record(0, 0, 500, -1, null, NODE))
          .as("nothing reported, nothing slow")
          .extracting(LocalRecordResult::windowFailures, LocalRecordResult::windowCalls)
          .containsExactly(2L, 8L);
      assertThat(m.record(0, 1, 250, -1, null, NODE).state()).isEqualTo(OPEN);
      assertThat(m.counts().failuresTotal()).isEqualTo(3);
    }

    @Test
    @DisplayName("a disabled policy counts but never trips; an open breaker admits")
    void policyDisabled() {
      LocalStateMachine m = machine(BASE);
      m.record(3, 0, -1, -1, null, NODE);
      m.setPolicy(BASE.toBuilder().enabled(false).build());

      assertThat(m.tryAcquire(NODE))
          .extracting(LocalAdmission::allowed, LocalAdmission::state, LocalAdmission::reason)
          .containsExactly(true, OPEN, AdmissionReason.POLICY_DISABLED);

      LocalStateMachine closed =
          new LocalStateMachine(BASE.toBuilder().enabled(false).build(), clock);
      LocalRecordResult r = closed.record(10, 0, -1, -1, null, NODE);
      assertThat(r)
          .extracting(LocalRecordResult::state, LocalRecordResult::windowFailures)
          .containsExactly(CLOSED, 10L);
      assertThat(causes()).containsExactly(FAILURE_THRESHOLD);
    }

    @Test
    @DisplayName("negative counts are refused")
    void negativeCounts() {
      LocalStateMachine m = machine(BASE);

      assertThatIllegalArgumentException()
          .isThrownBy(() -> m.record(-1, 0, -1, -1, null, NODE))
          .withMessageContaining("failures=-1");
      assertThatIllegalArgumentException()
          .isThrownBy(() -> m.record(0, 1, -1, -2, null, NODE))
          .withMessageContaining("-2");
    }
  }

  @Nested
  @DisplayName("sliding window")
  class Window {

    private final Policy policy = BASE.toBuilder().failureThreshold(5).build();

    @Test
    @DisplayName("a bucket leaves the window a whole window after it started")
    void oldBucketsExpire() {
      LocalStateMachine m = machine(policy);
      m.record(2, 0, -1, -1, null, NODE);
      clock.advanceMillis(5_000);
      assertThat(m.record(2, 0, -1, -1, null, NODE).windowFailures()).isEqualTo(4);

      clock.advanceMillis(4_999);
      assertThat(succeed(m))
          .extracting(LocalRecordResult::windowFailures, LocalRecordResult::windowCalls)
          .containsExactly(4L, 5L);
      clock.advanceMillis(1);
      LocalRecordResult r = fail(m);

      assertThat(r)
          .extracting(
              LocalRecordResult::state,
              LocalRecordResult::windowFailures,
              LocalRecordResult::windowCalls)
          .containsExactly(CLOSED, 3L, 4L);
    }

    @Test
    @DisplayName("the newest bucket leaves exactly one window later")
    void newestBucketExpires() {
      LocalStateMachine m = machine(policy);
      m.record(4, 0, -1, -1, null, NODE);
      clock.advanceMillis(9_999);
      assertThat(succeed(m).windowFailures()).isEqualTo(4);

      LocalStateMachine other = new LocalStateMachine(policy, clock);
      other.record(4, 0, -1, -1, null, NODE);
      clock.advanceMillis(10_000);

      assertThat(fail(other))
          .extracting(
              LocalRecordResult::state,
              LocalRecordResult::windowFailures,
              LocalRecordResult::windowCalls)
          .containsExactly(CLOSED, 1L, 1L);
    }

    @Test
    @DisplayName("a gap of a whole window empties it")
    void longGapResets() {
      LocalStateMachine m = machine(policy);
      m.record(4, 1, -1, -1, null, NODE);
      clock.advanceMillis(25_000);

      LocalRecordResult r = fail(m);

      assertThat(r)
          .extracting(LocalRecordResult::windowFailures, LocalRecordResult::windowCalls)
          .containsExactly(1L, 1L);
    }

    @Test
    @DisplayName("a clock that steps back a bucket empties it")
    void clockBackResets() {
      LocalStateMachine m = machine(policy);
      m.record(4, 0, -1, -1, null, NODE);
      clock.advanceMillis(-1_000);

      assertThat(fail(m).windowFailures()).isEqualTo(1);
    }

    @Test
    @DisplayName("a new window length resets the window through the bucket arithmetic")
    void windowLengthChange() {
      LocalStateMachine m = machine(policy);
      m.record(4, 0, -1, -1, null, NODE);

      m.setPolicy(policy.toBuilder().window(Duration.ofSeconds(20)).build());
      LocalRecordResult longer = fail(m);

      assertThat(longer)
          .extracting(LocalRecordResult::state, LocalRecordResult::windowFailures)
          .containsExactly(CLOSED, 1L);

      m.record(3, 0, -1, -1, null, NODE);
      m.setPolicy(policy.toBuilder().window(Duration.ofMillis(20_005)).build());
      assertThat(fail(m))
          .as("same 2 s bucket: the window is kept")
          .extracting(LocalRecordResult::state, LocalRecordResult::windowFailures)
          .containsExactly(OPEN, 5L);
    }
  }

  @Nested
  @DisplayName("half-open and probes")
  class HalfOpen {

    @Test
    @DisplayName("OPEN reads HALF_OPEN at exactly openUntil; the first acquire records it")
    void openWindowEnds() {
      LocalStateMachine m = machine(BASE);
      m.record(3, 0, -1, -1, null, NODE);
      clock.advanceMillis(29_999);

      assertThat(m.state()).isEqualTo(OPEN);
      assertThat(m.tryAcquire(NODE).reason().code()).isEqualTo("OPEN");
      clock.advanceMillis(1);
      assertThat(m.state()).isEqualTo(HALF_OPEN);
      assertThat(causes()).as("reading records nothing").containsExactly(FAILURE_THRESHOLD);

      LocalAdmission a = m.tryAcquire(NODE);

      assertThat(a)
          .isEqualTo(
              new LocalAdmission(true, HALF_OPEN, AdmissionReason.PROBE, 2, "1", T0 + 35_000));
      assertThat(events)
          .last()
          .isEqualTo(new LocalTransition(OPEN, HALF_OPEN, OPEN_WINDOW_ENDED, 2, T0 + 30_000, 0));
    }

    @Test
    @DisplayName("one permit: one lease, then PROBES_BUSY until it expires")
    void oneLease() {
      LocalStateMachine m = machine(BASE);
      LocalAdmission first = tripAndProbe(m);

      LocalAdmission second = m.tryAcquire(OTHER);

      assertThat(first.reason().code()).isEqualTo("PROBE");
      assertThat(second)
          .isEqualTo(
              new LocalAdmission(
                  false, HALF_OPEN, AdmissionReason.PROBES_BUSY, 2, null, first.untilMillis()));
    }

    @Test
    @DisplayName("an expired lease frees its slot and its result no longer counts")
    void expiredLease() {
      LocalStateMachine m = machine(BASE);
      LocalAdmission first = tripAndProbe(m);
      clock.advanceMillis(5_000);

      LocalRecordResult late = probe(m, first, false);
      LocalAdmission next = m.tryAcquire(OTHER);
      LocalRecordResult afterRemoval = probe(m, first, false);

      assertThat(late)
          .extracting(
              LocalRecordResult::state, LocalRecordResult::accepted, LocalRecordResult::reason)
          .containsExactly(HALF_OPEN, false, RecordOutcome.LEASE_EXPIRED);
      assertThat(next)
          .extracting(LocalAdmission::reason, LocalAdmission::leaseId)
          .containsExactly(AdmissionReason.PROBE, "2");
      assertThat(afterRemoval.reason()).isEqualTo(RecordOutcome.STALE_LEASE);
      assertThat(m.state()).isEqualTo(HALF_OPEN);
    }

    @Test
    @DisplayName("a lease of another owner, generation or id is ignored")
    void staleLease() {
      LocalStateMachine m = machine(BASE);
      LocalAdmission a = tripAndProbe(m);

      List<LocalRecordResult> stale =
          List.of(
              m.record(1, 0, -1, a.generation(), a.leaseId(), OTHER),
              m.record(1, 0, -1, a.generation() - 1, a.leaseId(), NODE),
              m.record(1, 0, -1, -1, a.leaseId(), NODE),
              m.record(1, 0, -1, a.generation(), "99", NODE));

      assertThat(stale)
          .extracting(
              LocalRecordResult::state, LocalRecordResult::accepted, LocalRecordResult::reason)
          .containsOnly(tuple(HALF_OPEN, false, RecordOutcome.STALE_LEASE));
      assertThat(m.generation()).isEqualTo(2);
      assertThat(m.tryAcquire(OTHER).reason())
          .as("lease still held")
          .isEqualTo(AdmissionReason.PROBES_BUSY);
      assertThat(m.counts().failuresTotal()).isEqualTo(3 + 4);
      assertThat(probe(m, a, false).state()).isEqualTo(CLOSED);
    }

    @Test
    @DisplayName("a transition drops live leases and probe successes")
    void transitionDropsLeases() {
      LocalStateMachine m = machine(BASE.toBuilder().halfOpenPermits(2).build());
      LocalAdmission held = tripAndProbe(m);
      probe(m, m.tryAcquire(NODE), false);
      assertThat(m.tryAcquire(OTHER).reason().code()).isEqualTo("PROBES_BUSY");

      m.overrides().set(FORCED_OPEN, Duration.ZERO, "alice", "");
      m.overrides().clear("alice", "");
      LocalAdmission fresh = m.tryAcquire(OTHER);
      LocalAdmission second = m.tryAcquire(OTHER);

      assertThat(List.of(fresh, second))
          .extracting(LocalAdmission::reason, LocalAdmission::generation)
          .containsExactly(tuple(AdmissionReason.PROBE, 4L), tuple(AdmissionReason.PROBE, 4L));
      assertThat(probe(m, held, false).reason()).isEqualTo(RecordOutcome.STALE_LEASE);
      assertThat(m.state()).isEqualTo(HALF_OPEN);
    }

    @Test
    @DisplayName("a result without a lease is not counted in HALF_OPEN")
    void noLeaseInHalfOpen() {
      LocalStateMachine m = machine(BASE);
      tripAndProbe(m);

      LocalRecordResult r = fail(m);

      assertThat(r)
          .extracting(
              LocalRecordResult::state, LocalRecordResult::accepted, LocalRecordResult::reason)
          .containsExactly(HALF_OPEN, false, RecordOutcome.NOT_COUNTED);
      assertThat(m.counts().failuresTotal()).isEqualTo(4);
    }

    @Test
    @DisplayName("three permits: three leases, closed after three successes")
    void threePermits() {
      LocalStateMachine m = machine(BASE.toBuilder().halfOpenPermits(3).build());
      LocalAdmission a1 = tripAndProbe(m);
      LocalAdmission a2 = m.tryAcquire(NODE);
      LocalAdmission a3 = m.tryAcquire(NODE);

      assertThat(List.of(a1, a2, a3))
          .extracting(LocalAdmission::leaseId)
          .containsExactly("1", "2", "3");
      assertThat(m.tryAcquire(NODE).reason().code()).isEqualTo("PROBES_BUSY");

      LocalRecordResult r1 = probe(m, a1, false);
      assertThat(m.tryAcquire(NODE).reason())
          .as("2 live + 1 succeeded")
          .isEqualTo(AdmissionReason.PROBES_BUSY);
      LocalRecordResult r2 = probe(m, a2, false);
      LocalRecordResult r3 = probe(m, a3, false);

      assertThat(List.of(r1, r2))
          .extracting(
              LocalRecordResult::state,
              LocalRecordResult::transitioned,
              LocalRecordResult::accepted)
          .containsOnly(tuple(HALF_OPEN, false, true));
      assertThat(r3)
          .extracting(
              LocalRecordResult::state,
              LocalRecordResult::transitioned,
              LocalRecordResult::windowFailures)
          .containsExactly(CLOSED, true, 0L);
      assertThat(events.get(events.size() - 1).cause()).isEqualTo(PROBES_SUCCEEDED);
      assertThat(m.tryAcquire(NODE).reason().code()).isEqualTo("CLOSED");
      assertThat(m.openUntilMillis()).isZero();
    }

    @Test
    @DisplayName("a failed probe reopens with the open window doubled up to maxOpen")
    void backoff() {
      LocalStateMachine m =
          machine(
              BASE.toBuilder()
                  .open(Duration.ofSeconds(10))
                  .maxOpen(Duration.ofSeconds(25))
                  .probeLease(Duration.ofHours(1))
                  .build());
      List<Long> windows = new ArrayList<>();

      LocalAdmission a = tripAndProbe(m);
      for (int i = 0; i < 3; i++) {
        long now = clock.millis();
        LocalRecordResult r = probe(m, a, true);
        assertThat(r)
            .extracting(LocalRecordResult::state, LocalRecordResult::transitioned)
            .containsExactly(OPEN, true);
        windows.add(m.openUntilMillis() - now);
        clock.advanceMillis(m.openUntilMillis() - now);
        a = m.tryAcquire(NODE);
      }
      probe(m, a, false);
      m.record(3, 0, -1, -1, null, NODE);

      assertThat(windows).containsExactly(20_000L, 25_000L, 25_000L);
      assertThat(m.openUntilMillis() - clock.millis()).as("closing resets").isEqualTo(10_000);
      assertThat(causes()).contains(PROBE_FAILED);
    }

    @Test
    @DisplayName("concurrent acquirers get exactly halfOpenPermits leases")
    @Timeout(10)
    void concurrentProbes() throws Exception {
      LocalStateMachine m = machine(BASE.toBuilder().halfOpenPermits(3).build());
      m.record(3, 0, -1, -1, null, NODE);
      clock.advanceMillis(30_000);
      Set<String> leases = ConcurrentHashMap.newKeySet();
      AtomicInteger granted = new AtomicInteger();

      runConcurrently(
          8,
          () -> {
            for (int i = 0; i < 200; i++) {
              LocalAdmission a = m.tryAcquire(NODE);
              if (a.allowed()) {
                granted.incrementAndGet();
                leases.add(a.leaseId());
              }
            }
          });

      assertThat(granted).hasValue(3);
      assertThat(leases).containsExactlyInAnyOrder("1", "2", "3");
      assertThat(causes()).containsExactly(FAILURE_THRESHOLD, OPEN_WINDOW_ENDED);
    }
  }

  @Nested
  @DisplayName("overrides")
  class Overrides {

    @Test
    @DisplayName("FORCED_OPEN rejects and counts only the totals")
    void forcedOpen() {
      LocalStateMachine m = machine(BASE);

      LocalOverrideResult set = m.overrides().set(FORCED_OPEN, Duration.ZERO, "alice", "incident");
      LocalAdmission a = m.tryAcquire(NODE);
      LocalRecordResult r = fail(m);

      assertThat(set)
          .isEqualTo(new LocalOverrideResult(true, FORCED_OPEN, OverrideOutcome.SET, 1, CLOSED));
      assertThat(a)
          .isEqualTo(
              new LocalAdmission(false, FORCED_OPEN, AdmissionReason.FORCED_OPEN, 1, null, 0));
      assertThat(r)
          .extracting(LocalRecordResult::accepted, LocalRecordResult::reason)
          .containsExactly(false, RecordOutcome.NOT_COUNTED);
      assertThat(m.counts().windowFailures()).isZero();
      assertThat(m.counts().failuresTotal()).isEqualTo(1);
      assertThat(m.activeOverride())
          .hasValueSatisfying(o -> assertThat(o.actor()).isEqualTo("alice"));
    }

    @ParameterizedTest
    @EnumSource(
        value = State.class,
        names = {"FORCED_CLOSED", "METRICS_ONLY"})
    @DisplayName("FORCED_CLOSED and METRICS_ONLY admit and count but never trip")
    void countingOverrides(State kind) {
      LocalStateMachine m = machine(BASE);
      m.overrides().set(kind, Duration.ZERO, "alice", "");

      LocalRecordResult r = m.record(10, 0, -1, -1, null, NODE);

      assertThat(r)
          .extracting(
              LocalRecordResult::state,
              LocalRecordResult::windowFailures,
              LocalRecordResult::accepted,
              LocalRecordResult::transitioned)
          .containsExactly(kind, 10L, true, false);
      assertThat(m.tryAcquire(NODE))
          .extracting(LocalAdmission::allowed, LocalAdmission::reason)
          .containsExactly(true, AdmissionReason.of(kind));
      assertThat(m.overrides().clear("alice", "").state()).isEqualTo(CLOSED);
      assertThat(fail(m).state()).as("the counted window trips after clearing").isEqualTo(OPEN);
    }

    @Test
    @DisplayName("FORCED_CLOSED takes precedence over OPEN")
    void forcedClosedOverOpen() {
      LocalStateMachine m = machine(BASE);
      m.record(3, 0, -1, -1, null, NODE);

      LocalOverrideResult set = m.overrides().set(FORCED_CLOSED, Duration.ZERO, "alice", "");

      assertThat(set.previous()).isEqualTo(OPEN);
      assertThat(m.tryAcquire(NODE).allowed()).isTrue();
      assertThat(m.state()).isEqualTo(FORCED_CLOSED);
    }

    @Test
    @DisplayName("DISABLED admits and counts only the totals")
    void disabled() {
      LocalStateMachine m = machine(BASE);
      m.overrides().set(DISABLED, Duration.ZERO, "alice", "");

      LocalRecordResult r = m.record(10, 0, -1, -1, null, NODE);

      assertThat(r)
          .extracting(
              LocalRecordResult::state, LocalRecordResult::accepted, LocalRecordResult::reason)
          .containsExactly(DISABLED, false, RecordOutcome.NOT_COUNTED);
      assertThat(m.counts().windowFailures()).isZero();
      assertThat(m.counts().failuresTotal()).isEqualTo(10);
      assertThat(m.tryAcquire(NODE).reason().code()).isEqualTo("DISABLED");
    }

    @Test
    @DisplayName("an override stops applying at its expiry; the first operation records it")
    void expiry() {
      LocalStateMachine m = machine(BASE);
      m.overrides().set(FORCED_OPEN, Duration.ofSeconds(5), "alice", "");
      clock.advanceMillis(4_999);

      assertThat(m.tryAcquire(NODE).untilMillis()).isEqualTo(T0 + 5_000);
      clock.advanceMillis(1);
      assertThat(m.state()).isEqualTo(CLOSED);
      assertThat(m.activeOverride()).isEmpty();
      assertThat(causes()).containsExactly(OVERRIDE_SET);

      LocalAdmission a = m.tryAcquire(NODE);

      assertThat(a).isEqualTo(new LocalAdmission(true, CLOSED, AdmissionReason.CLOSED, 2, null, 0));
      assertThat(events)
          .last()
          .isEqualTo(new LocalTransition(FORCED_OPEN, CLOSED, OVERRIDE_EXPIRED, 2, T0 + 5_000, 0));
    }

    @Test
    @DisplayName("an open window that ended under the override resumes as HALF_OPEN")
    void expiryResumesHalfOpen() {
      LocalStateMachine m = machine(BASE);
      m.record(3, 0, -1, -1, null, NODE);
      m.overrides().set(FORCED_CLOSED, Duration.ofSeconds(60), "alice", "");
      clock.advanceMillis(60_000);

      LocalAdmission a = m.tryAcquire(NODE);

      assertThat(a.reason().code()).isEqualTo("PROBE");
      assertThat(events)
          .extracting(LocalTransition::from, LocalTransition::to, LocalTransition::cause)
          .containsExactly(
              tuple(CLOSED, OPEN, FAILURE_THRESHOLD),
              tuple(OPEN, FORCED_CLOSED, OVERRIDE_SET),
              tuple(FORCED_CLOSED, HALF_OPEN, OVERRIDE_EXPIRED));
    }

    @Test
    @DisplayName("clear resumes the machine: OPEN before openUntil, HALF_OPEN after")
    void clear() {
      LocalStateMachine m = machine(BASE);
      m.record(3, 0, -1, -1, null, NODE);
      m.overrides().set(FORCED_CLOSED, Duration.ZERO, "alice", "");

      LocalOverrideResult early = m.overrides().clear("bob", "done");
      m.overrides().set(FORCED_CLOSED, Duration.ZERO, "alice", "");
      clock.advanceMillis(30_000);
      LocalOverrideResult late = m.overrides().clear("bob", "done");

      assertThat(early)
          .isEqualTo(
              new LocalOverrideResult(true, OPEN, OverrideOutcome.CLEARED, 3, FORCED_CLOSED));
      assertThat(late)
          .isEqualTo(
              new LocalOverrideResult(true, HALF_OPEN, OverrideOutcome.CLEARED, 5, FORCED_CLOSED));
      assertThat(causes())
          .containsExactly(
              FAILURE_THRESHOLD, OVERRIDE_SET, OVERRIDE_CLEARED, OVERRIDE_SET, OVERRIDE_CLEARED);
      assertThat(m.tryAcquire(NODE).reason().code()).isEqualTo("PROBE");
    }

    @Test
    @DisplayName("clear without an override changes nothing")
    void clearNothing() {
      LocalStateMachine m = machine(BASE);

      LocalOverrideResult r = m.overrides().clear("bob", "");

      assertThat(r)
          .isEqualTo(
              new LocalOverrideResult(false, CLOSED, OverrideOutcome.NOT_OVERRIDDEN, 0, CLOSED));
      assertThat(events).isEmpty();
    }

    @Test
    @DisplayName("the same kind updates, another kind is set over it")
    void updateAndReplace() {
      LocalStateMachine m = machine(BASE);
      m.overrides().set(FORCED_OPEN, Duration.ZERO, "alice", "a");

      LocalOverrideResult again = m.overrides().set(FORCED_OPEN, Duration.ofMinutes(1), "bob", "b");
      LocalOverrideResult other = m.overrides().set(METRICS_ONLY, Duration.ZERO, "bob", "c");

      assertThat(again.outcome().code()).isEqualTo("UPDATED");
      assertThat(other)
          .isEqualTo(
              new LocalOverrideResult(true, METRICS_ONLY, OverrideOutcome.SET, 3, FORCED_OPEN));
      assertThat(events)
          .extracting(LocalTransition::from, LocalTransition::to, LocalTransition::cause)
          .containsExactly(
              tuple(CLOSED, FORCED_OPEN, OVERRIDE_SET),
              tuple(FORCED_OPEN, FORCED_OPEN, OVERRIDE_UPDATED),
              tuple(FORCED_OPEN, METRICS_ONLY, OVERRIDE_SET));
    }

    @Test
    @DisplayName("only the four overrides and non-negative durations are accepted")
    void validation() {
      LocalStateMachine m = machine(BASE);

      assertThatIllegalArgumentException()
          .isThrownBy(() -> m.overrides().set(OPEN, Duration.ZERO, "alice", ""))
          .withMessageContaining("but was OPEN");
      assertThatIllegalArgumentException()
          .isThrownBy(() -> m.overrides().set(FORCED_OPEN, Duration.ofSeconds(-1), "alice", ""))
          .withMessageContaining("-1");
    }
  }

  @Nested
  @DisplayName("generations and listeners")
  class Generations {

    @Test
    @DisplayName("a late result of an older generation changes nothing but the totals")
    void lateResult() {
      LocalStateMachine m = machine(BASE);
      LocalAdmission admitted = m.tryAcquire(NODE);
      m.record(3, 0, -1, admitted.generation(), null, NODE);

      LocalRecordResult late = m.record(1, 0, -1, admitted.generation(), null, NODE);

      assertThat(late)
          .extracting(
              LocalRecordResult::state,
              LocalRecordResult::accepted,
              LocalRecordResult::reason,
              LocalRecordResult::generation)
          .containsExactly(OPEN, false, RecordOutcome.STALE_GENERATION, 1L);
      assertThat(m.counts().windowFailures()).isZero();
      assertThat(m.counts().failuresTotal()).isEqualTo(4);
      assertThat(causes()).containsExactly(FAILURE_THRESHOLD);
    }

    @Test
    @DisplayName("the closed fast path reads no clock")
    void closedFastPath() {
      Clock broken =
          new Clock() {
            @Override
            public ZoneId getZone() {
              return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
              return this;
            }

            @Override
            public Instant instant() {
              throw new AssertionError("clock read");
            }
          };
      LocalStateMachine m = new LocalStateMachine(BASE, broken);

      assertThat(m.tryAcquire(NODE))
          .isEqualTo(new LocalAdmission(true, CLOSED, AdmissionReason.CLOSED, 0, null, 0));
    }

    @Test
    @DisplayName("a listener sees the new state and a failing listener harms nothing")
    void listeners() {
      LocalStateMachine m = machine(BASE);
      List<State> seen = new ArrayList<>();
      m.onTransition(
          t -> {
            throw new IllegalStateException("listener bug");
          });
      m.onTransition(t -> seen.add(m.state()));

      LocalRecordResult r = m.record(3, 0, -1, -1, null, NODE);

      assertThat(r.state()).isEqualTo(OPEN);
      assertThat(seen).containsExactly(OPEN);
    }

    @Test
    @DisplayName("8 threads x 1000 failures: one trip, every failure counted")
    @Timeout(10)
    void concurrentFailures() throws Exception {
      LocalStateMachine m = machine(BASE.toBuilder().failureThreshold(500).build());
      AtomicInteger won = new AtomicInteger();

      runConcurrently(
          8,
          () -> {
            for (int i = 0; i < 1000; i++) {
              if (fail(m).transitioned()) {
                won.incrementAndGet();
              }
            }
          });

      assertThat(won).hasValue(1);
      assertThat(events)
          .extracting(LocalTransition::from, LocalTransition::to, LocalTransition::windowFailures)
          .containsExactly(tuple(CLOSED, OPEN, 500L));
      assertThat(m.counts().failuresTotal()).isEqualTo(8000);
    }
  }

  @Nested
  @DisplayName("seeding from the fleet's state")
  class Seeding {

    /** A machine outside the generation bookkeeping of the other tests (seed sets it). */
    private LocalStateMachine seeded(List<LocalTransition> heard) {
      LocalStateMachine m = new LocalStateMachine(BASE, clock);
      m.onTransition(heard::add);
      return m;
    }

    @Test
    @DisplayName("takes state, window, override and generation exactly, and records nothing")
    void exact() {
      List<LocalTransition> heard = new ArrayList<>();
      LocalStateMachine m = seeded(heard);
      m.seeding()
          .seed(
              OPEN,
              T0 + 5_000,
              8_000,
              new ActiveOverride(FORCED_OPEN, T0 + 2_000, "oncall", "drill", T0),
              41);

      assertThat(m.state()).isEqualTo(FORCED_OPEN);
      assertThat(m.generation()).isEqualTo(41);
      assertThat(m.openUntilMillis()).isEqualTo(T0 + 5_000);
      assertThat(m.tryAcquire(NODE).allowed()).as("the override rejects").isFalse();
      assertThat(heard).as("seeding is not a transition").isEmpty();

      clock.advanceMillis(2_000);
      assertThat(m.tryAcquire(NODE).allowed()).as("expired: the open window beneath").isFalse();
      assertThat(m.state()).isEqualTo(OPEN);
      clock.advanceMillis(3_000);
      LocalAdmission probe = m.tryAcquire(NODE);
      assertThat(probe.reason().code()).isEqualTo("PROBE");
      LocalRecordResult r = probe(m, probe, true);
      assertThat(m.openUntilMillis())
          .as("the backoff doubles the seeded open length")
          .isEqualTo(clock.millis() + 16_000);
      assertThat(r.state()).isEqualTo(OPEN);
      assertThat(heard)
          .extracting(LocalTransition::cause)
          .containsExactly(OVERRIDE_EXPIRED, OPEN_WINDOW_ENDED, PROBE_FAILED);
      assertThat(heard.get(0).generation()).isEqualTo(42);
    }

    @Test
    @DisplayName("seedClosed takes the fleet's generation only while the machine is closed")
    void seedClosedNeverErasesAnOwnTrip() {
      LocalStateMachine m = seeded(new ArrayList<>());
      m.record(2, 0, -1, -1, null, NODE);
      assertThat(m.seeding().seedClosed(7)).isTrue();
      assertThat(m.generation()).isEqualTo(7);
      assertThat(m.counts().windowFailures()).as("the node's own count stays").isEqualTo(2);

      m.record(1, 0, -1, -1, null, NODE); // its own trip
      assertThat(m.state()).isEqualTo(OPEN);
      assertThat(m.seeding().seedClosed(7)).as("an own trip is never erased").isFalse();
      assertThat(m.state()).isEqualTo(OPEN);
      assertThat(m.generation()).isEqualTo(8);
      assertThat(m.tryAcquire(NODE).allowed()).isFalse();
    }

    @Test
    @DisplayName("seedClosed with an override: taken while closed, never over an own trip")
    void seedClosedWithAnOverride() {
      LocalStateMachine m = seeded(new ArrayList<>());
      m.record(2, 0, -1, -1, null, NODE);
      ActiveOverride forced = new ActiveOverride(FORCED_CLOSED, 0, "ops", "drill", T0);
      assertThat(m.seeding().seedClosed(forced, 4)).isTrue();
      assertThat(m.state()).isEqualTo(FORCED_CLOSED);
      assertThat(m.generation()).isEqualTo(4);
      assertThat(m.counts().windowFailures()).as("the node's own count stays").isEqualTo(2);

      assertThat(m.seeding().seedClosed(null, 4)).isTrue();
      m.record(1, 0, -1, -1, null, NODE); // its own trip
      assertThat(m.state()).isEqualTo(OPEN);
      assertThat(m.seeding().seedClosed(forced, 4)).as("an own trip is never erased").isFalse();
      assertThat(m.state()).isEqualTo(OPEN);
      assertThat(m.tryAcquire(NODE).allowed()).isFalse();
    }

    @Test
    @DisplayName("FORCED_CLOSED admits through failures; METRICS_ONLY counts and never rejects")
    void admittingOverrides() {
      LocalStateMachine closed = seeded(new ArrayList<>());
      closed.seeding().seed(CLOSED, 0, 0, new ActiveOverride(FORCED_CLOSED, 0, "", "", T0), 3);
      LocalStateMachine metrics = seeded(new ArrayList<>());
      metrics.seeding().seed(CLOSED, 0, 0, new ActiveOverride(METRICS_ONLY, 0, "", "", T0), 3);
      for (int i = 0; i < 10; i++) {
        assertThat(closed.tryAcquire(NODE).allowed()).isTrue();
        fail(closed);
        assertThat(metrics.tryAcquire(NODE).allowed()).isTrue();
        fail(metrics);
      }
      assertThat(closed.state()).isEqualTo(FORCED_CLOSED);
      assertThat(metrics.state()).isEqualTo(METRICS_ONLY);
      assertThat(metrics.counts().windowFailures()).as("METRICS_ONLY counts").isEqualTo(10);
    }

    @Test
    @DisplayName("CLOSED keeps the node's own window counts; bad seeds are refused")
    void closedAndInvalid() {
      LocalStateMachine m = seeded(new ArrayList<>());
      fail(m);
      fail(m);
      m.seeding().seed(CLOSED, 0, 0, null, 7);
      assertThat(m.counts().windowFailures()).isEqualTo(2);
      assertThat(m.tryAcquire(NODE).allowed()).isTrue();
      fail(m);
      assertThat(m.state()).as("its own third failure trips it").isEqualTo(OPEN);
      assertThatIllegalArgumentException()
          .isThrownBy(() -> m.seeding().seed(FORCED_OPEN, 0, 0, null, 1))
          .withMessageContaining("FORCED_OPEN");
      assertThatIllegalArgumentException()
          .isThrownBy(() -> m.seeding().seed(CLOSED, 0, 0, null, -1))
          .withMessageContaining("-1");
    }
  }

  private static void runConcurrently(int threads, Runnable body) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  body.run();
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> f : futures) {
        f.get(10, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
