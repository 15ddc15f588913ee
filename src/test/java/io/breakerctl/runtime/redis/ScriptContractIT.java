package io.breakerctl.runtime.redis;

import static io.breakerctl.runtime.store.StoreFutures.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;
import io.breakerctl.runtime.store.AcquireResult;
import io.breakerctl.runtime.store.BreakerEvent;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.ForwardResult;
import io.breakerctl.runtime.store.NodeHeartbeat;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.OverrideResult;
import io.breakerctl.runtime.store.RecordResult;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.runtime.store.WarmResult;
import io.breakerctl.testing.RedisExtension;
import io.breakerctl.testing.RedisServerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The scripts' contract on every target: standalone and 3-master cluster, on the embedded 6.2
 * binary and on a 7.x redis-server when one is on PATH.
 */
@DisplayName("Lua scripts on real redis-server (standalone and cluster, 6.2 and 7.x)")
class ScriptContractIT {

  @RegisterExtension static final RedisExtension redis = RedisExtension.manual();

  private static List<StoreTarget> targets;
  private final List<Runnable> afterChecks = new ArrayList<>();

  @BeforeAll
  static void start() {
    targets = StoreTarget.startAll(redis, true);
  }

  static Stream<StoreTarget> targets() {
    return targets.stream();
  }

  @AfterEach
  void checkEvents() {
    afterChecks.forEach(Runnable::run);
  }

  private BreakerId fresh(StoreTarget t, String name) {
    BreakerId id = StoreTarget.freshId(name);
    afterChecks.add(() -> t.assertEventsLegal(id));
    return id;
  }

  private static Policy.Builder policy() {
    return Policy.builder();
  }

  private static List<BreakerEvent> events(StoreTarget t, BreakerId id) {
    return await(t.store.eventsAfter(id, "", 10_000));
  }

  private static List<TransitionCause> causes(StoreTarget t, BreakerId id) {
    return events(t, id).stream().map(BreakerEvent::cause).toList();
  }

  private static RecordResult fail(StoreTarget t, BreakerId id, Policy p) {
    return await(t.store.record(id, Outcome.failure("n1", ""), p));
  }

  /** Waits until the open window of {@code id} has ended (read with the Java function). */
  private static void awaitHalfOpen(StoreTarget t, BreakerId id) {
    Poll.until(
        Duration.ofSeconds(5),
        "open window of " + id + " to end",
        () -> await(t.store.snapshot(id, 0)).effectiveState() == State.HALF_OPEN);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  @DisplayName("threshold 3: closed/1, closed/2, open/3; a second connection sees OPEN at once")
  void thresholdThree(StoreTarget t) {
    BreakerId id = fresh(t, "threshold");
    Policy p = policy().failureThreshold(3).build();

    RecordResult r1 = fail(t, id, p);
    RecordResult r2 = fail(t, id, p);
    RecordResult r3 = fail(t, id, p);

    assertThat(
            List.of(r1.state() + "/" + r1.windowFailures(), r2.state() + "/" + r2.windowFailures()))
        .containsExactly("CLOSED/1", "CLOSED/2");
    assertThat(r3.state() + "/" + r3.windowFailures()).isEqualTo("OPEN/3");
    assertThat(r3.transitioned()).isTrue();

    RedisFleetStore other = t.connect(Duration.ofSeconds(5));
    assertThat(await(other.snapshot(id, 10)).effectiveState()).isEqualTo(State.OPEN);
    AcquireResult a = await(other.acquire(id, "n2", p));
    assertThat(a.allowed()).isFalse();
    assertThat(a.reason().code()).isEqualTo("OPEN");

    List<BreakerEvent> ev = events(t, id);
    assertThat(ev).hasSize(1);
    assertThat(ev.get(0).cause()).isEqualTo(TransitionCause.FAILURE_THRESHOLD);
    assertThat(ev.get(0).field("failures")).isEqualTo("3");
    assertThat(ev.get(0).field("threshold")).isEqualTo("3");
    assertThat(ev.get(0).epoch()).isEqualTo(r3.epoch()).isNotEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  @DisplayName("failure rate trips once minimumCalls is reached; a batch of successes counts")
  void failureRate(StoreTarget t) {
    BreakerId id = fresh(t, "rate");
    Policy p = policy().failureThreshold(1000).failureRateThreshold(50.0).minimumCalls(10).build();

    RecordResult batch = await(t.store.record(id, Outcome.successes("n1", 5), p));
    assertThat(batch.windowCalls()).isEqualTo(5);
    for (int i = 0; i < 4; i++) {
      assertThat(fail(t, id, p).state()).as("failure %d of 9 calls", i + 1).isEqualTo(State.CLOSED);
    }
    RecordResult tripping = fail(t, id, p);

    assertThat(tripping.state()).isEqualTo(State.OPEN);
    assertThat(tripping.windowCalls()).isEqualTo(10);
    assertThat(causes(t, id)).containsExactly(TransitionCause.FAILURE_RATE);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  @DisplayName("slow calls count as failures when slowCallMillis is set")
  void slowCalls(StoreTarget t) {
    BreakerId id = fresh(t, "slow");
    Policy p = policy().failureThreshold(2).slowCallMillis(100).build();

    RecordResult fast = await(t.store.record(id, Outcome.success("n1", "", 50), p));
    RecordResult slow1 = await(t.store.record(id, Outcome.success("n1", "", 150), p));
    RecordResult slow2 = await(t.store.record(id, Outcome.success("n1", "", 100), p));

    assertThat(fast.windowFailures()).isZero();
    assertThat(slow1.windowFailures()).isEqualTo(1);
    assertThat(slow2.state()).isEqualTo(State.OPEN);
    assertThat(events(t, id).get(0).field("slow")).isEqualTo("1");
    BreakerSnapshot s = await(t.store.snapshot(id, 0));
    assertThat(s.number("failuresTotal")).isEqualTo(2);
    assertThat(s.number("successesTotal")).isEqualTo(1);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  @DisplayName("the window slides: failures older than windowSeconds no longer count")
  void windowSlides(StoreTarget t) {
    BreakerId id = fresh(t, "window");
    Policy p = policy().failureThreshold(3).window(Duration.ofMillis(500)).build();

    fail(t, id, p);
    fail(t, id, p);
    long before = await(t.store.redisTimeMillis(id));
    Poll.until(
        Duration.ofSeconds(3),
        "the window to pass",
        () -> await(t.store.redisTimeMillis(id)) > before + 600);
    RecordResult later = fail(t, id, p);

    assertThat(later.state()).isEqualTo(State.CLOSED);
    assertThat(later.windowFailures()).isEqualTo(1);
    assertThat(await(t.store.snapshot(id, 0)).number("failuresTotal")).isEqualTo(3);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  @DisplayName(
      "a late result from an older generation changes no state but counts in failuresTotal")
  void lateResults(StoreTarget t) {
    BreakerId id = fresh(t, "late");
    Policy p = policy().failureThreshold(2).open(Duration.ofMillis(200)).build();
    fail(t, id, p);
    fail(t, id, p);
    awaitHalfOpen(t, id);
    AcquireResult probe = await(t.store.acquire(id, "n1", p));
    RecordResult closed =
        await(
            t.store.record(id, Outcome.probe("n1", probe.generation(), probe.leaseId(), true), p));
    assertThat(closed.state()).isEqualTo(State.CLOSED);

    RecordResult late = await(t.store.record(id, Outcome.failure("n9", "0"), p));

    assertThat(late.reason().code()).isEqualTo("STALE_GENERATION");
    assertThat(late.accepted()).isFalse();
    assertThat(late.state()).isEqualTo(State.CLOSED);
    BreakerSnapshot s = await(t.store.snapshot(id, 0));
    assertThat(s.number("winFailures")).isZero();
    assertThat(s.number("failuresTotal")).isEqualTo(3);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  @DisplayName(
      "acquire's lean form (one key, no arguments): answers CLOSED; otherwise -1 and writes"
          + " nothing, and the store sends the full form")
  void leanAcquire(StoreTarget t) {
    BreakerId id = fresh(t, "lean");
    Policy p = policy().failureThreshold(1).open(Duration.ofMillis(100)).build();
    RedisServerProcess node = t.nodeFor(id);
    String hash = t.store.keys().hash(id);
    String body = BreakerScript.ACQUIRE.body();

    assertThat(node.call("EVAL", body, "1", hash)).isEqualTo(List.of(1L, "0", ""));
    AcquireResult unused = await(t.store.acquire(id, "n1", p));
    assertThat(unused.allowed()).isTrue();
    assertThat(unused.state()).isEqualTo(State.CLOSED);

    fail(t, id, p);
    awaitHalfOpen(t, id);
    Object storedBefore = node.call("HGETALL", hash);
    assertThat(node.call("EVAL", body, "1", hash)).isEqualTo(List.of(-1L));
    assertThat(node.call("HGETALL", hash)).isEqualTo(storedBefore);
    assertThat(causes(t, id)).containsExactly(TransitionCause.FAILURE_THRESHOLD);

    AcquireResult probe = await(t.store.acquire(id, "n1", p));
    assertThat(probe.reason().code()).isEqualTo("PROBE");
    assertThat(await(t.store.acquire(id, "n2", p)).reason().code()).isEqualTo("PROBES_BUSY");
    await(t.store.record(id, Outcome.probe("n1", probe.generation(), probe.leaseId(), true), p));
    AcquireResult closed = await(t.store.acquire(id, "n1", p));
    assertThat(closed.allowed()).isTrue();
    assertThat(closed.state()).isEqualTo(State.CLOSED);
    assertThat(closed.generation()).isNotEqualTo(probe.generation()).isNotEqualTo("0");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  @DisplayName(
      "leases: one probe, stale lease/owner/generation ignored, an expired lease frees its slot")
  void leaseLifecycle(StoreTarget t) {
    BreakerId id = fresh(t, "lease");
    Policy p =
        policy()
            .failureThreshold(1)
            .open(Duration.ofMillis(100))
            .probeLease(Duration.ofMillis(400))
            .build();
    fail(t, id, p);
    awaitHalfOpen(t, id);

    AcquireResult first = await(t.store.acquire(id, "n1", p));
    AcquireResult busy = await(t.store.acquire(id, "n2", p));
    assertThat(first.reason().code()).isEqualTo("PROBE");
    assertThat(first.lease()).isPresent();
    assertThat(busy.allowed()).isFalse();
    assertThat(busy.reason().code()).isEqualTo("PROBES_BUSY");

    String gen = first.generation();
    List<RecordResult> ignored =
        List.of(
            await(t.store.record(id, Outcome.probe("n1", gen, "999", false), p)),
            await(t.store.record(id, Outcome.probe("n2", gen, first.leaseId(), false), p)),
            await(t.store.record(id, Outcome.probe("n1", "0", first.leaseId(), false), p)));
    assertThat(ignored)
        .allSatisfy(
            r -> {
              assertThat(r.accepted()).isFalse();
              assertThat(r.reason().code()).isEqualTo("STALE_LEASE");
              assertThat(r.state()).isEqualTo(State.HALF_OPEN);
            });

    Poll.until(
        Duration.ofSeconds(3),
        "the lease to expire",
        () -> await(t.store.redisTimeMillis(id)) > first.untilMillis());
    AcquireResult second = await(t.store.acquire(id, "n2", p));
    assertThat(second.reason().code()).isEqualTo("PROBE");
    assertThat(second.leaseId()).isNotEqualTo(first.leaseId());

    RecordResult expired =
        await(t.store.record(id, Outcome.probe("n1", gen, first.leaseId(), false), p));
    assertThat(expired.accepted()).isFalse();
    assertThat(expired.state()).isEqualTo(State.HALF_OPEN);

    RecordResult ok =
        await(
            t.store.record(
                id, Outcome.probe("n2", second.generation(), second.leaseId(), true), p));
    assertThat(ok.state()).isEqualTo(State.CLOSED);
    assertThat(causes(t, id))
        .containsExactly(
            TransitionCause.FAILURE_THRESHOLD,
            TransitionCause.OPEN_WINDOW_ENDED,
            TransitionCause.PROBES_SUCCEEDED);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  @DisplayName("halfOpenPermits 3: three leases, three successes close")
  void threePermits(StoreTarget t) {
    BreakerId id = fresh(t, "permits");
    Policy p = policy().failureThreshold(1).open(Duration.ofMillis(100)).halfOpenPermits(3).build();
    fail(t, id, p);
    awaitHalfOpen(t, id);

    List<AcquireResult> grants = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      grants.add(await(t.store.acquire(id, "n" + i, p)));
    }
    assertThat(grants.stream().filter(AcquireResult::allowed).count()).isEqualTo(3);
    assertThat(grants.get(3).reason().code()).isEqualTo("PROBES_BUSY");

    RecordResult s1 = success(t, id, p, grants.get(0), "n0");
    RecordResult s2 = success(t, id, p, grants.get(1), "n1");
    AcquireResult stillBusy = await(t.store.acquire(id, "n5", p));
    RecordResult s3 = success(t, id, p, grants.get(2), "n2");

    assertThat(List.of(s1.state(), s2.state())).containsOnly(State.HALF_OPEN);
    assertThat(stillBusy.reason().code()).isEqualTo("PROBES_BUSY");
    assertThat(s3.state()).isEqualTo(State.CLOSED);
    BreakerEvent closing = events(t, id).get(2);
    assertThat(closing.cause()).isEqualTo(TransitionCause.PROBES_SUCCEEDED);
    assertThat(closing.field("successes")).isEqualTo("3");
  }

  private static RecordResult success(
      StoreTarget t, BreakerId id, Policy p, AcquireResult grant, String node) {
    return await(
        t.store.record(id, Outcome.probe(node, grant.generation(), grant.leaseId(), true), p));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  @DisplayName("a failed probe reopens with the open window doubled up to maxOpenSeconds")
  void backoff(StoreTarget t) {
    BreakerId id = fresh(t, "backoff");
    Policy p =
        policy()
            .failureThreshold(1)
            .open(Duration.ofMillis(100))
            .maxOpen(Duration.ofMillis(300))
            .build();
    fail(t, id, p);
    List<String> windows = new ArrayList<>();
    for (int round = 0; round < 3; round++) {
      awaitHalfOpen(t, id);
      AcquireResult probe = await(t.store.acquire(id, "n1", p));
      RecordResult r =
          await(
              t.store.record(
                  id, Outcome.probe("n1", probe.generation(), probe.leaseId(), false), p));
      assertThat(r.state()).isEqualTo(State.OPEN);
      windows.add(events(t, id).get(events(t, id).size() - 1).field("openMillis"));
    }
    assertThat(windows).containsExactly("200", "300", "300");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  @DisplayName("overrides: precedence over the machine, each change one event")
  void overridePrecedence(StoreTarget t) {
    BreakerId id = fresh(t, "override");
    Policy p = policy().failureThreshold(2).build();

    OverrideResult set = override(t, id, OverrideKind.FORCED_OPEN, Duration.ZERO);
    assertThat(set.outcome().code()).isEqualTo("SET");
    assertThat(set.previous()).isEqualTo(State.CLOSED);
    assertThat(await(t.store.acquire(id, "n1", p)).reason().code()).isEqualTo("FORCED_OPEN");
    assertThat(fail(t, id, p).reason().code()).isEqualTo("NOT_COUNTED");

    override(t, id, OverrideKind.FORCED_CLOSED, Duration.ZERO);
    for (int i = 0; i < 3; i++) {
      assertThat(fail(t, id, p).state()).isEqualTo(State.FORCED_CLOSED);
    }
    assertThat(await(t.store.acquire(id, "n1", p)).allowed()).isTrue();

    override(t, id, OverrideKind.METRICS_ONLY, Duration.ZERO);
    RecordResult counted = fail(t, id, p);
    assertThat(counted.accepted()).isTrue();
    assertThat(counted.state()).isEqualTo(State.METRICS_ONLY);
    assertThat(await(t.store.acquire(id, "n1", p)).allowed()).isTrue();

    override(t, id, OverrideKind.DISABLED, Duration.ZERO);
    assertThat(fail(t, id, p).reason().code()).isEqualTo("NOT_COUNTED");
    assertThat(override(t, id, OverrideKind.DISABLED, Duration.ZERO).outcome().code())
        .isEqualTo("UPDATED");

    OverrideResult cleared = override(t, id, OverrideKind.CLEAR, Duration.ZERO);
    assertThat(cleared.state()).isEqualTo(State.CLOSED);
    OverrideResult again = override(t, id, OverrideKind.CLEAR, Duration.ZERO);
    assertThat(again.changed()).isFalse();
    assertThat(again.outcome().code()).isEqualTo("NOT_OVERRIDDEN");

    assertThat(causes(t, id))
        .containsExactly(
            TransitionCause.OVERRIDE_SET,
            TransitionCause.OVERRIDE_SET,
            TransitionCause.OVERRIDE_SET,
            TransitionCause.OVERRIDE_SET,
            TransitionCause.OVERRIDE_UPDATED,
            TransitionCause.OVERRIDE_CLEARED);
    BreakerEvent first = events(t, id).get(0);
    assertThat(first.field("actor")).isEqualTo("alice");
    assertThat(first.field("reason")).isEqualTo("incident 42");
    assertThat(first.field("correlationId")).isEqualTo("corr-1");
    assertThat(await(t.store.snapshot(id, 0)).number("failuresTotal")).isEqualTo(6);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  @DisplayName("FORCED_CLOSED admits while the machine is OPEN; clearing resumes the machine")
  void forcedClosedOverOpen(StoreTarget t) {
    BreakerId id = fresh(t, "forced-closed");
    Policy p = policy().failureThreshold(1).open(Duration.ofSeconds(60)).build();
    fail(t, id, p);

    override(t, id, OverrideKind.FORCED_CLOSED, Duration.ZERO);
    assertThat(await(t.store.acquire(id, "n1", p)).allowed()).isTrue();
    OverrideResult cleared = override(t, id, OverrideKind.CLEAR, Duration.ZERO);

    assertThat(cleared.state()).isEqualTo(State.OPEN);
    assertThat(await(t.store.acquire(id, "n1", p)).allowed()).isFalse();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  @DisplayName(
      "an override expires at Redis time and exactly one OVERRIDE_EXPIRED event is recorded")
  void overrideExpiry(StoreTarget t) {
    BreakerId id = fresh(t, "expiry");
    Policy p = policy().build();
    override(t, id, OverrideKind.FORCED_OPEN, Duration.ofMillis(300));
    assertThat(await(t.store.acquire(id, "n1", p)).allowed()).isFalse();

    Poll.until(
        Duration.ofSeconds(3),
        "the override to expire (Java function)",
        () -> await(t.store.snapshot(id, 0)).effectiveState() == State.CLOSED);
    List<CompletableFuture<AcquireResult>> racing = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      racing.add(t.store.acquire(id, "n" + i, p));
    }

    assertThat(racing).allSatisfy(f -> assertThat(await(f).allowed()).isTrue());
    List<BreakerEvent> ev = events(t, id);
    assertThat(ev)
        .extracting(BreakerEvent::cause)
        .containsExactly(TransitionCause.OVERRIDE_SET, TransitionCause.OVERRIDE_EXPIRED);
    assertThat(ev.get(1).field("actor")).isEqualTo("alice");
    assertThat(await(t.store.snapshot(id, 0)).override()).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  @DisplayName("time-based changes read the same from the Java function and from the scripts")
  void javaAndLuaAgree(StoreTarget t) {
    BreakerId id = fresh(t, "agree");
    Policy p =
        policy().failureThreshold(1).open(Duration.ofMillis(300)).halfOpenPermits(1000).build();
    fail(t, id, p);
    override(t, id, OverrideKind.FORCED_CLOSED, Duration.ofMillis(150));

    List<State> compared = new ArrayList<>();
    long end = System.nanoTime() + Duration.ofMillis(700).toNanos();
    while (System.nanoTime() < end) {
      BreakerSnapshot before = await(t.store.snapshot(id, 0));
      AcquireResult a = await(t.store.acquire(id, "n1", p));
      long after = await(t.store.redisTimeMillis(id));
      State javaBefore = before.effectiveState();
      State javaAfter = before.effectiveStateAt(after);
      if (javaBefore == javaAfter) {
        assertThat(a.state())
            .as("script vs Java at %d..%d", before.redisTimeMillis(), after)
            .isEqualTo(javaBefore);
        compared.add(a.state());
      }
    }
    assertThat(compared).contains(State.FORCED_CLOSED, State.OPEN, State.HALF_OPEN);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  @DisplayName("warm is monotonic per policy id and the warmed policy governs the scripts")
  void warm(StoreTarget t) {
    BreakerId id = fresh(t, "warm");
    Policy two = policy().failureThreshold(2).build();
    Policy callers = policy().failureThreshold(100).build();

    assertThat(await(t.store.warm(id, "it:*", 2, two, "ctl")).outcome().code()).isEqualTo("WARMED");
    assertThat(await(t.store.warm(id, "it:*", 1, callers, "ctl")).outcome().code())
        .isEqualTo("STALE");
    assertThat(await(t.store.warm(id, "it:*", 2, callers, "ctl")).outcome().code())
        .isEqualTo("UNCHANGED");
    BreakerSnapshot s = await(t.store.snapshot(id, 0));
    assertThat(s.warmedPolicy())
        .get()
        .satisfies(
            w -> {
              assertThat(w.version()).isEqualTo(2);
              assertThat(w.policy()).isEqualTo(two);
            });

    fail(t, id, callers);
    assertThat(fail(t, id, callers).state())
        .as("threshold 2 from the warmed policy")
        .isEqualTo(State.OPEN);

    BreakerId raced = fresh(t, "warm-race");
    List<CompletableFuture<WarmResult>> all = new ArrayList<>();
    for (int v : List.of(5, 3, 16, 1, 9, 12, 2, 15, 7, 4, 11, 6, 14, 8, 13, 10)) {
      all.add(t.store.warm(raced, "*:*", v, policy().failureThreshold(v).build(), "ctl" + v));
    }
    all.forEach(StoreFutures::await);
    BreakerSnapshot after = await(t.store.snapshot(raced, 0));
    assertThat(after.warmedPolicy().orElseThrow().version()).isEqualTo(16);
    assertThat(after.warmedPolicy().orElseThrow().policy().failureThreshold()).isEqualTo(16);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  @DisplayName(
      "un-warm: a removed policy leaves the keys (caller's policy again); never a newer one")
  void unwarm(StoreTarget t) {
    BreakerId id = fresh(t, "unwarm");
    Policy two = policy().failureThreshold(2).build();
    Policy callers = policy().failureThreshold(3).build();
    assertThat(await(t.store.warm(id, "uw:*", 2, two, "ctl")).outcome().code()).isEqualTo("WARMED");

    // stale: the hash holds v2, newer than the v1 the removal names; another policy: untouched
    assertThat(await(t.store.unwarm(id, "uw:*", 1, "ctl")).outcome().code()).isEqualTo("STALE");
    assertThat(await(t.store.unwarm(id, "other:*", 9, "ctl")).outcome().code())
        .isEqualTo("UNCHANGED");
    assertThat(await(t.store.snapshot(id, 0)).warmedPolicy().orElseThrow().version()).isEqualTo(2);

    WarmResult removed = await(t.store.unwarm(id, "uw:*", 3, "ctl"));
    assertThat(removed.outcome().code()).isEqualTo("UNWARMED");
    assertThat(removed.written()).isTrue();
    BreakerSnapshot s = await(t.store.snapshot(id, 0));
    assertThat(s.warmedPolicy()).isEmpty();
    assertThat(s.fields().keySet())
        .noneMatch(f -> f.startsWith("p."))
        .doesNotContain("policy", "policyId", "policyVersion")
        .contains("epoch");
    assertThat(s.fields()).containsEntry("unwarmed", "uw:*@3");
    assertThat(await(t.store.unwarm(id, "uw:*", 3, "ctl")).outcome().code())
        .as("again: nothing of it warmed")
        .isEqualTo("UNCHANGED");

    // the caller's policy governs again: threshold 3, not the removed 2
    fail(t, id, callers);
    assertThat(fail(t, id, callers).state()).isEqualTo(State.CLOSED);
    assertThat(fail(t, id, callers).state()).isEqualTo(State.OPEN);

    // a warm read before the removal and arriving after it is refused; a newer version is not
    assertThat(await(t.store.warm(id, "uw:*", 2, two, "late")).outcome().code()).isEqualTo("STALE");
    assertThat(await(t.store.warm(id, "uw:*", 3, two, "late")).outcome().code()).isEqualTo("STALE");
    assertThat(await(t.store.snapshot(id, 0)).warmedPolicy()).isEmpty();
    assertThat(await(t.store.warm(id, "uw:*", 4, two, "ctl")).outcome().code()).isEqualTo("WARMED");
    BreakerSnapshot back = await(t.store.snapshot(id, 0));
    assertThat(back.warmedPolicy().orElseThrow().version()).isEqualTo(4);
    assertThat(back.fields()).doesNotContainKey("unwarmed");

    BreakerId none = fresh(t, "unwarm-none");
    assertThat(await(t.store.unwarm(none, "uw:*", 1, "ctl")).outcome().code())
        .isEqualTo("UNCHANGED");
    assertThat(await(t.store.snapshot(none, 0)).exists()).as("no keys created").isFalse();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  @DisplayName("NOSCRIPT: a master that lost its script cache gets the body by EVAL, routed by key")
  void noScriptFallback(StoreTarget t) {
    BreakerId id = fresh(t, "noscript");
    Policy p = policy().failureThreshold(2).build();
    fail(t, id, p);
    for (RedisServerProcess m : t.masters()) {
      m.call("SCRIPT", "FLUSH");
    }
    RedisServerProcess owner = t.nodeFor(id);
    assertThat(exists(owner, BreakerScript.RECORD)).isFalse();

    RecordResult r = fail(t, id, p);

    assertThat(r.state()).isEqualTo(State.OPEN);
    assertThat(exists(owner, BreakerScript.RECORD)).isTrue();
  }

  private static boolean exists(RedisServerProcess node, BreakerScript script) {
    Object reply = node.call("SCRIPT", "EXISTS", script.sha());
    return reply instanceof List<?> l && Long.valueOf(1).equals(l.get(0));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  @DisplayName(
      "forwarded cursor: monotonic, per epoch, trims only forwarded events beyond the tail")
  void forwardedCursor(StoreTarget t) {
    BreakerId id = fresh(t, "forwarded");
    // the first events from a store that declares a destination: the breaker's keys keep it
    RedisFleetStore declared = t.connect(Duration.ofSeconds(5)).forwardsHistory(Duration.ofDays(7));
    for (OverrideKind kind : List.of(OverrideKind.FORCED_OPEN, OverrideKind.CLEAR)) {
      await(declared.override(id, new OverrideRequest(kind, "op", "d", Duration.ZERO, "")));
    }
    for (int i = 1; i < 75; i++) {
      override(t, id, OverrideKind.FORCED_OPEN, Duration.ZERO);
      override(t, id, OverrideKind.CLEAR, Duration.ZERO);
    }
    List<BreakerEvent> ev = events(t, id);
    assertThat(ev).hasSize(150);
    String epoch = ev.get(0).epoch();

    ForwardResult wrongEpoch = await(t.store.markForwarded(id, "1", ev.get(9).streamId(), "fw"));
    assertThat(wrongEpoch.advanced()).isFalse();

    ForwardResult tenth = await(t.store.markForwarded(id, epoch, ev.get(9).streamId(), "fw"));
    assertThat(tenth.advanced()).isTrue();
    assertThat(events(t, id)).as("unforwarded events are never trimmed").hasSize(141);

    ForwardResult back = await(t.store.markForwarded(id, epoch, ev.get(5).streamId(), "fw"));
    assertThat(back.advanced()).isFalse();
    assertThat(back.forwarded()).isEqualTo(ev.get(9).streamId());

    ForwardResult most = await(t.store.markForwarded(id, epoch, ev.get(119).streamId(), "fw"));
    assertThat(most.forwarded()).isEqualTo(ev.get(119).streamId());
    assertThat(events(t, id))
        .as("forwarded events beyond the 100-event tail are trimmed")
        .hasSize(100);

    ForwardResult beyond = await(t.store.markForwarded(id, epoch, "99999999999999-0", "fw"));
    assertThat(beyond.forwarded()).isEqualTo(ev.get(149).streamId());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  @DisplayName("heartbeats: written with a flush, read back per node with Redis time")
  void heartbeats(StoreTarget t) {
    BreakerId id = fresh(t, "beat");
    Policy p = policy().build();
    NodeHeartbeat a = new NodeHeartbeat("node-a", State.CLOSED, "*:*", 3, false, 0);
    NodeHeartbeat b = new NodeHeartbeat("node-b", State.OPEN, "it-beat:*", 1, true, 0);

    await(t.store.record(id, new Outcome("node-a", 0, 5, -1, "", ""), p, a));
    await(t.store.record(id, new Outcome("node-b", 0, 1, -1, "", ""), p, b));
    await(t.store.record(id, new Outcome("node-a", 0, 2, -1, "", ""), p, a));

    BreakerSnapshot s = await(t.store.snapshot(id, 0));
    assertThat(s.nodes())
        .extracting(NodeHeartbeat::node)
        .containsExactlyInAnyOrder("node-a", "node-b");
    NodeHeartbeat readB =
        s.nodes().stream().filter(n -> n.node().equals("node-b")).findFirst().orElseThrow();
    assertThat(readB.state()).isEqualTo(State.OPEN);
    assertThat(readB.policyId()).isEqualTo("it-beat:*");
    assertThat(readB.policyVersion()).isEqualTo(1);
    assertThat(readB.degraded()).isTrue();
    assertThat(readB.atMillis()).isBetween(s.redisTimeMillis() - 60_000, s.redisTimeMillis());
    assertThat(s.number("successesTotal")).isEqualTo(8);
  }

  private static OverrideResult override(
      StoreTarget t, BreakerId id, OverrideKind kind, Duration duration) {
    return await(
        t.store.override(
            id, new OverrideRequest(kind, "alice", "incident 42", duration, "corr-1")));
  }
}
