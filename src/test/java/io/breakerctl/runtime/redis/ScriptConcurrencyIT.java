package io.breakerctl.runtime.redis;

import static io.breakerctl.runtime.store.StoreFutures.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;
import io.breakerctl.runtime.store.BreakerEvent;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.RecordResult;
import io.breakerctl.testing.ChildJvm;
import io.breakerctl.testing.Promises;
import io.breakerctl.testing.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Atomicity and probe election under real concurrency: 2 JVM processes, many threads each. Each
 * case runs {@link Promises#ROUNDS} times ({@code scripts/stress race} turns it up); no verdict
 * depends on timing: the probe leases outlive any start-up delay of the children.
 */
@DisplayName("Scripts under concurrency from 2 JVM processes")
class ScriptConcurrencyIT {

  @RegisterExtension static final RedisExtension redis = RedisExtension.manual();

  private static List<StoreTarget> targets;

  @BeforeAll
  static void start() {
    targets = StoreTarget.startAll(redis, true);
  }

  static Stream<StoreTarget> targets() {
    return targets.stream();
  }

  static Stream<Arguments> targetsAndPermits() {
    return targets.stream().flatMap(t -> Stream.of(Arguments.of(t, 1), Arguments.of(t, 3)));
  }

  private static final Pattern STORM = Pattern.compile("sent=(\\d+) transitions=(\\d+)");
  private static final Pattern RACE = Pattern.compile("allowed=(\\d+) leases=(.*)");

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  @DisplayName("2 processes x 8 threads: exactly one CLOSED->OPEN, failuresTotal = failures sent")
  void oneTripUnderContention(StoreTarget t) {
    Promises promises = new Promises();
    for (int round = 0; round < Promises.ROUNDS; round++) {
      promises.check("race-one-trip-" + name(t), () -> oneTrip(t));
    }
    promises.assertHeld();
  }

  private void oneTrip(StoreTarget t) {
    BreakerId id = StoreTarget.freshId("storm");
    int perThread = 40;
    long startAt = System.currentTimeMillis() + 2000;
    List<ChildJvm> children = new ArrayList<>();
    for (int p = 0; p < 2; p++) {
      children.add(
          redis.manage(
              ChildJvm.start(
                  FailureStormMain.class,
                  t.uri(),
                  id.toString(),
                  "8",
                  Integer.toString(perThread),
                  "50",
                  Long.toString(startAt),
                  "proc" + p)));
    }

    long sent = 0;
    long transitions = 0;
    for (ChildJvm c : children) {
      assertThat(c.waitFor(Duration.ofSeconds(60)))
          .as("child exit, stderr %s", c.stderr())
          .isZero();
      Matcher m = lastMatch(c.stdout(), STORM);
      sent += Long.parseLong(m.group(1));
      transitions += Long.parseLong(m.group(2));
    }

    assertThat(sent).isEqualTo(2 * 8 * perThread);
    assertThat(transitions).as("callers that won the trip").isEqualTo(1);
    List<BreakerEvent> events = await(t.store.eventsAfter(id, "", 100));
    assertThat(events)
        .extracting(BreakerEvent::cause)
        .containsExactly(TransitionCause.FAILURE_THRESHOLD);
    assertThat(events.get(0).field("failures")).isEqualTo("50");
    BreakerSnapshot s = await(t.store.snapshot(id, 0));
    assertThat(s.number("failuresTotal")).isEqualTo(sent);
    assertThat(s.effectiveState()).isEqualTo(State.OPEN);
  }

  @ParameterizedTest(name = "{0}, halfOpenPermits {1}")
  @MethodSource("targetsAndPermits")
  @DisplayName(
      "200 acquirers in 2 processes right after the window ends: exactly halfOpenPermits leases")
  void probeElection(StoreTarget t, int permits) {
    Promises promises = new Promises();
    for (int round = 0; round < Promises.ROUNDS; round++) {
      promises.check("race-leases-" + permits + "-" + name(t), () -> election(t, permits));
    }
    promises.assertHeld();
  }

  private void election(StoreTarget t, int permits) {
    BreakerId id = StoreTarget.freshId("election");
    // leases that outlive any start-up delay of the child JVMs: no lease expires during the race
    Policy policy =
        Policy.builder()
            .failureThreshold(1)
            .open(Duration.ofMillis(2000))
            .halfOpenPermits(permits)
            .probeLease(Duration.ofMinutes(5))
            .build();
    assertThat(await(t.store.warm(id, id.toString(), 1, policy, "it")).written()).isTrue();
    RecordResult trip = await(t.store.record(id, Outcome.failure("n0", ""), policy));
    assertThat(trip.state()).isEqualTo(State.OPEN);
    long openUntil = await(t.store.snapshot(id, 0)).number("openUntil");
    long startAt = openUntil + 5;

    List<ChildJvm> children = new ArrayList<>();
    for (int p = 0; p < 2; p++) {
      children.add(
          redis.manage(
              ChildJvm.start(
                  ProbeRaceMain.class,
                  t.uri(),
                  id.toString(),
                  "100",
                  Long.toString(startAt),
                  "proc" + p)));
    }
    long allowed = 0;
    Set<String> leaseIds = new HashSet<>();
    for (ChildJvm c : children) {
      assertThat(c.waitFor(Duration.ofSeconds(60)))
          .as("child exit, stderr %s", c.stderr())
          .isZero();
      Matcher m = lastMatch(c.stdout(), RACE);
      allowed += Long.parseLong(m.group(1));
      if (!m.group(2).isEmpty()) {
        leaseIds.addAll(List.of(m.group(2).split(",")));
      }
    }

    assertThat(allowed).isEqualTo(permits);
    assertThat(leaseIds).hasSize(permits);
    BreakerSnapshot s = await(t.store.snapshot(id, 0));
    assertThat(s.liveLeases()).hasSize(permits);
    assertThat(await(t.store.eventsAfter(id, "", 100)))
        .extracting(BreakerEvent::cause)
        .containsExactly(TransitionCause.FAILURE_THRESHOLD, TransitionCause.OPEN_WINDOW_ENDED);
  }

  /** The target's label as one word of a promise's name. */
  private static String name(StoreTarget t) {
    return t.toString().toLowerCase().replaceAll("[^a-z0-9]+", "-");
  }

  private static Matcher lastMatch(List<String> lines, Pattern p) {
    for (int i = lines.size() - 1; i >= 0; i--) {
      Matcher m = p.matcher(lines.get(i));
      if (m.matches()) {
        return m;
      }
    }
    throw new AssertionError("no line matching " + p + " in " + lines);
  }
}
