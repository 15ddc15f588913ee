package io.breakerctl.runtime.redis;

import static io.breakerctl.runtime.store.StoreFutures.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.AcquireResult;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.OverrideResult;
import io.breakerctl.runtime.store.RecordResult;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.RedisExtension;
import io.breakerctl.testing.RedisServerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** When a breaker's keys may expire, when they must not, and what re-creation does. */
@DisplayName("Key lifecycle: idle expiry, pinning, epochs, the stream's hard cap")
class KeyLifecycleIT {

  @RegisterExtension static final RedisExtension redis = RedisExtension.manual();

  private static List<StoreTarget> targets;

  @BeforeAll
  static void start() {
    targets = StoreTarget.startAll(redis, true);
  }

  static Stream<StoreTarget> targets() {
    return targets.stream();
  }

  static Stream<StoreTarget> standaloneTargets() {
    return targets.stream().filter(t -> !t.isCluster());
  }

  /** A store of its own writing idle TTL {@code idle}. */
  private static RedisFleetStore connect(StoreTarget t, Duration idle) {
    return t.connect(
        StoreConfig.builder().uri(t.uri()).idleTtl(idle).timeout(Duration.ofSeconds(5)).build());
  }

  private static long pttl(StoreTarget t, BreakerId id, String key) {
    return (Long) t.nodeFor(id).call("PTTL", key);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  @DisplayName(
      "idle keys expire; never while open, half-open or overridden, nor unforwarded within the"
          + " history hold; new epoch after")
  void expiryRules(StoreTarget t) {
    RedisFleetStore store = connect(t, Duration.ofSeconds(2)).forwardsHistory(Duration.ofDays(7));
    BreakerId id = StoreTarget.freshId("ttl");
    BreakerKeys k = store.keys();
    Policy p = Policy.builder().failureThreshold(1).open(Duration.ofMillis(200)).build();

    await(store.record(id, Outcome.successes("n1", 3), p));
    assertThat(pttl(t, id, k.hash(id))).as("idle closed breaker").isBetween(1L, 2000L);

    await(store.record(id, Outcome.failure("n1", ""), p));
    assertThat(pttl(t, id, k.hash(id))).as("open").isEqualTo(-1);
    assertThat(pttl(t, id, k.events(id))).as("stream while open").isEqualTo(-1);

    Poll.until(
        Duration.ofSeconds(3),
        "half-open",
        () -> await(store.snapshot(id, 0)).effectiveState() == State.HALF_OPEN);
    AcquireResult probe = await(store.acquire(id, "n1", p));
    assertThat(pttl(t, id, k.leases(id))).as("lease set while half-open").isEqualTo(-1);
    await(store.record(id, Outcome.probe("n1", probe.generation(), probe.leaseId(), true), p));
    await(store.record(id, Outcome.successes("n1", 1), p));
    assertThat(pttl(t, id, k.hash(id)))
        .as("closed, events not forwarded: held for the history hold, then the idle TTL")
        .isGreaterThan(Duration.ofDays(7).toMillis())
        .isLessThanOrEqualTo(Duration.ofDays(7).plusSeconds(2).toMillis());

    BreakerSnapshot closed = await(store.snapshot(id, 1));
    String last = closed.recentEvents().get(0).streamId();
    await(store.markForwarded(id, closed.epoch(), last, "fw"));
    assertThat(pttl(t, id, k.hash(id))).as("closed and forwarded").isBetween(1L, 2000L);
    assertThat(pttl(t, id, k.events(id))).isBetween(1L, 2000L);

    OverrideRequest force =
        new OverrideRequest(OverrideKind.FORCED_OPEN, "op", "drill", Duration.ZERO, "c");
    await(store.override(id, force));
    BreakerSnapshot forced = await(store.snapshot(id, 1));
    await(store.markForwarded(id, forced.epoch(), forced.recentEvents().get(0).streamId(), "fw"));
    assertThat(pttl(t, id, k.hash(id))).as("override live, events forwarded").isEqualTo(-1);

    OverrideRequest clear =
        new OverrideRequest(OverrideKind.CLEAR, "op", "done", Duration.ZERO, "c");
    await(store.override(id, clear));
    BreakerSnapshot cleared = await(store.snapshot(id, 1));
    await(store.markForwarded(id, cleared.epoch(), cleared.recentEvents().get(0).streamId(), "fw"));
    assertThat(pttl(t, id, k.hash(id))).isBetween(1L, 2000L);

    Poll.until(
        Duration.ofSeconds(5),
        "the idle keys to expire",
        () -> !await(store.snapshot(id, 0)).exists());
    assertThat((Long) t.nodeFor(id).call("EXISTS", k.events(id))).isZero();
    await(store.record(id, Outcome.successes("n1", 1), p));
    assertThat(await(store.snapshot(id, 0)).epoch())
        .as("re-created keys carry a new epoch")
        .isNotEmpty()
        .isNotEqualTo(closed.epoch());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  @DisplayName("after FLUSHALL the breaker starts over with a new epoch")
  void flushMakesNewEpoch(StoreTarget t) {
    BreakerId id = StoreTarget.freshId("flush");
    Policy p = Policy.builder().failureThreshold(1).build();
    String before = await(t.store.record(id, Outcome.failure("n1", ""), p)).epoch();
    for (RedisServerProcess m : t.masters()) {
      m.flushAll();
    }
    RecordResult after = await(t.store.record(id, Outcome.failure("n1", ""), p));
    assertThat(after.epoch()).isNotEqualTo(before);
    assertThat(after.state()).isEqualTo(State.OPEN);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  @DisplayName(
      "a node's client warm-up runs its scripts on the master of their keys, writing nothing")
  void warmUpWritesNothing(StoreTarget t) {
    RedisServerProcess node = t.nodeFor(ScriptRunner.WARM_UP_ID);
    Map<String, long[]> before = node.commandStats();
    await(t.store.warmUp());
    Map<String, long[]> after = node.commandStats();
    long evals = after.get("eval")[0] - before.getOrDefault("eval", new long[1])[0];
    assertThat(evals).isEqualTo(ScriptRunner.WARM_UP_CALLS + 1L);
    for (String key : t.store.keys().scriptKeys(ScriptRunner.WARM_UP_ID)) {
      assertThat(node.call("EXISTS", key)).as(key).isEqualTo(0L);
    }
    // commands run by a script count under their own names: none ran but EVAL itself
    for (Map.Entry<String, long[]> c : after.entrySet()) {
      long delta = c.getValue()[0] - before.getOrDefault(c.getKey(), new long[1])[0];
      if (delta > 0) {
        assertThat(c.getKey()).as("a command the warm-up ran").matches("eval|info|ping|cluster.*");
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("standaloneTargets")
  @DisplayName("the stream's hard cap drops the oldest unforwarded events and counts them")
  void hardCap(StoreTarget t) {
    BreakerId id = StoreTarget.freshId("cap");
    RedisFleetStore store = t.connect(Duration.ofSeconds(5)).forwardsHistory(Duration.ofDays(7));
    List<CompletableFuture<OverrideResult>> pending = new ArrayList<>();
    int events = 10_005;
    for (int i = 0; i < events; i++) {
      OverrideKind kind = i % 2 == 0 ? OverrideKind.FORCED_OPEN : OverrideKind.CLEAR;
      pending.add(store.override(id, new OverrideRequest(kind, "op", "cap", Duration.ZERO, "")));
      if (pending.size() == 500) {
        pending.forEach(StoreFutures::await);
        pending.clear();
      }
    }
    pending.forEach(StoreFutures::await);

    assertThat((Long) t.nodeFor(id).call("XLEN", t.store.keys().events(id))).isEqualTo(10_000);
    assertThat(await(t.store.snapshot(id, 0)).number("eventsDropped")).isEqualTo(5);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  @DisplayName(
      "without a history destination the stream keeps its 100 newest events, counts nothing and"
          + " holds nothing")
  void boundedTail(StoreTarget t) {
    BreakerId id = StoreTarget.freshId("tail");
    RedisFleetStore store = connect(t, Duration.ofSeconds(60));
    for (int i = 0; i < 251; i++) {
      OverrideKind kind = i % 2 == 0 ? OverrideKind.FORCED_OPEN : OverrideKind.CLEAR;
      await(store.override(id, new OverrideRequest(kind, "op", "tail", Duration.ZERO, "")));
    }
    await(
        store.override(id, new OverrideRequest(OverrideKind.CLEAR, "op", "t", Duration.ZERO, "")));
    BreakerKeys k = store.keys();
    assertThat((Long) t.nodeFor(id).call("XLEN", k.events(id))).isEqualTo(100);
    BreakerSnapshot s = await(store.snapshot(id, 0));
    assertThat(s.fields())
        .containsEntry("streamLength", "100")
        .doesNotContainKeys("eventsDropped", "history", "unfwdSince", "unfwdCount");
    assertThat((Long) t.nodeFor(id).call("EXISTS", k.unforwarded(id))).isZero();
    for (String key : List.of(k.hash(id), k.events(id))) {
      assertThat(pttl(t, id, key)).as(key).isBetween(1L, 60_000L);
    }

    // a destination declared later: the tail's events wait too, the hold from the oldest of them
    RedisFleetStore declared =
        connect(t, Duration.ofSeconds(60)).forwardsHistory(Duration.ofDays(7));
    await(
        declared.override(
            id, new OverrideRequest(OverrideKind.FORCED_OPEN, "op", "d", Duration.ZERO, "")));
    List<?> oldest =
        (List<?>)
            ((List<?>) t.nodeFor(id).call("XRANGE", k.events(id), "-", "+", "COUNT", "1")).get(0);
    String oldestMillis = oldest.get(0).toString().split("-")[0];
    assertThat(await(store.snapshot(id, 0)).fields())
        .containsEntry("history", "forward")
        .containsEntry("unfwdCount", "101")
        .containsEntry("unfwdSince", oldestMillis);
  }
}
