package io.breakerctl.runtime.control.override;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import io.breakerctl.runtime.control.override.OverridePlan.Decision;
import io.breakerctl.runtime.control.override.OverrideStep.Status;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.LostAnswerException;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.runtime.store.StoreUnavailableException;
import io.breakerctl.runtime.store.WriteOutcome;
import io.breakerctl.runtime.store.Written;
import io.breakerctl.runtime.store.inprocess.InProcessBreakerStore;
import io.breakerctl.testing.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The override plan and its application on the in-process store (which answers as {@code
 * override.lua}, held to it by the conformance suite): the plan decides from one read, applying it
 * takes unchanged or set from the script's own answer, writes nothing for an unchanged breaker and
 * audits exactly the breakers it set.
 */
@DisplayName("override plan: decided from one read, applied by the script's answer")
class OverridePlannerTest {

  private static final OverrideKind[] FORCES = {
    OverrideKind.FORCED_OPEN, OverrideKind.FORCED_CLOSED, OverrideKind.DISABLED
  };

  private final MutableClock clock = new MutableClock(1_700_000_000_000L);
  private final InProcessBreakerStore store = new InProcessBreakerStore(clock);

  /** The audit records the planner asked for, by breaker. */
  private final List<BreakerId> audited = new ArrayList<>();

  private final OverridePlanner planner =
      new OverridePlanner(
          store::state,
          (id, r) -> new Written<>(StoreFutures.await(store.override(id, r)), ""),
          (id, r, written) -> {
            audited.add(id);
            return new OverrideAction(written.value(), r.correlationId(), true, "", "");
          });

  private static OverrideRequest request(OverrideKind kind, String actor, String reason) {
    return new OverrideRequest(kind, actor, reason, Duration.ofMinutes(10), "");
  }

  private void force(BreakerId id, OverrideKind kind, String actor, String reason) {
    StoreFutures.await(
        store.override(id, new OverrideRequest(kind, actor, reason, Duration.ofHours(1), "x")));
  }

  private OverridePlan plan(List<BreakerId> ids, OverrideRequest request) {
    return OverridePlanner.plan(store::state, ids, request);
  }

  private Map<String, String> fields(BreakerId id) {
    return StoreFutures.await(store.state(id)).fields();
  }

  private Map<BreakerId, Map<String, String>> fields(List<BreakerId> ids) {
    Map<BreakerId, Map<String, String>> m = new HashMap<>();
    ids.forEach(id -> m.put(id, fields(id)));
    return m;
  }

  private static BreakerId id(int n) {
    return BreakerId.parse("svc:dep-" + n);
  }

  @Nested
  @DisplayName("the plan")
  class Plan {

    @Test
    @DisplayName("unchanged when the same override, actor and reason hold; else update or set")
    void decidesFromTheHeldOverride() {
      BreakerId same = id(1);
      BreakerId otherReason = id(2);
      BreakerId otherActor = id(3);
      BreakerId otherKind = id(4);
      BreakerId fresh = id(5);
      force(same, OverrideKind.FORCED_OPEN, "alice", "incident");
      force(otherReason, OverrideKind.FORCED_OPEN, "alice", "drill");
      force(otherActor, OverrideKind.FORCED_OPEN, "bob", "incident");
      force(otherKind, OverrideKind.FORCED_CLOSED, "alice", "incident");
      List<BreakerId> ids = List.of(same, otherReason, otherActor, otherKind, fresh);

      OverridePlan p = plan(ids, request(OverrideKind.FORCED_OPEN, "alice", "incident"));

      assertThat(p.entries()).extracting(OverridePlan.Entry::id).containsExactlyElementsOf(ids);
      assertThat(p.entries())
          .extracting(OverridePlan.Entry::decision)
          .containsExactly(
              Decision.UNCHANGED,
              Decision.WOULD_UPDATE,
              Decision.WOULD_UPDATE,
              Decision.WOULD_SET,
              Decision.WOULD_SET);
    }

    @Test
    @DisplayName("an unchanged entry keeps the held expiry; a set one ends a duration from now")
    void expiries() {
      BreakerId held = id(1);
      force(held, OverrideKind.FORCED_OPEN, "alice", "incident");
      long heldUntil = Long.parseLong(fields(held).get("overrideUntil"));
      clock.advance(Duration.ofMinutes(1));

      OverridePlan p =
          plan(List.of(held, id(2)), request(OverrideKind.FORCED_OPEN, "alice", "incident"));

      assertThat(p.entries().get(0).untilMillis()).isEqualTo(heldUntil);
      assertThat(p.entries().get(1).untilMillis())
          .isEqualTo(clock.millis() + Duration.ofMinutes(10).toMillis());
    }

    @Test
    @DisplayName("a clear would clear an override and finds none on the others")
    void clear() {
      force(id(1), OverrideKind.DISABLED, "alice", "incident");

      OverridePlan p = plan(List.of(id(1), id(2)), request(OverrideKind.CLEAR, "bob", "over"));

      assertThat(p.entries())
          .extracting(OverridePlan.Entry::decision)
          .containsExactly(Decision.WOULD_CLEAR, Decision.NOT_OVERRIDDEN);
      assertThat(p.entries()).allMatch(e -> e.untilMillis() == 0);
    }

    @Test
    @DisplayName("planning writes nothing")
    void writesNothing() {
      List<BreakerId> ids = List.of(id(1), id(2));
      force(id(1), OverrideKind.FORCED_OPEN, "alice", "incident");
      Map<BreakerId, Map<String, String>> before = fields(ids);

      plan(ids, request(OverrideKind.FORCED_CLOSED, "bob", "why"));

      assertThat(fields(ids)).isEqualTo(before);
      assertThat(audited).isEmpty();
    }
  }

  @Nested
  @DisplayName("applying a plan")
  class Apply {

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    @DisplayName(
        "unchanged entries are not written, set entries are audited once each, befores hold")
    void invariants(long seed) {
      Random random = new Random(seed);
      List<BreakerId> ids = new ArrayList<>();
      for (int n = 0; n < 12; n++) {
        BreakerId id = id(n);
        ids.add(id);
        int pick = random.nextInt(5);
        if (pick < 3) {
          force(
              id,
              FORCES[random.nextInt(FORCES.length)],
              random.nextBoolean() ? "alice" : "bob",
              random.nextBoolean() ? "incident" : "drill");
        } else if (pick == 3) {
          force(id, OverrideKind.FORCED_OPEN, "alice", "incident");
        } // else: a breaker no node used yet
      }
      OverrideKind kind = random.nextInt(4) == 0 ? OverrideKind.CLEAR : OverrideKind.FORCED_OPEN;
      OverridePlan p = plan(ids, request(kind, "alice", "incident"));
      Map<BreakerId, Map<String, String>> before = fields(ids);

      AppliedOverrides done = planner.apply(p, () -> false);

      assertThat(done.failure()).isNull();
      assertThat(done.steps()).hasSameSizeAs(p.entries());
      Map<BreakerId, Decision> planned =
          p.entries().stream()
              .collect(Collectors.toMap(OverridePlan.Entry::id, OverridePlan.Entry::decision));
      for (OverrideStep s : done.steps()) {
        BreakerId id = s.entry().id();
        boolean nothingToDo =
            planned.get(id) == Decision.UNCHANGED || planned.get(id) == Decision.NOT_OVERRIDDEN;
        assertThat(s.status())
            .as("%s planned %s", id, planned.get(id))
            .isEqualTo(nothingToDo ? Status.UNCHANGED : Status.APPLIED);
        assertThat(s.action().result().previous())
            .as("the script's state before, as planned, of %s", id)
            .isEqualTo(s.entry().before().orElseThrow());
        if (planned.get(id) == Decision.UNCHANGED) {
          assertThat(fields(id)).as("%s not written", id).isEqualTo(before.get(id));
          assertThat(s.action().correlationId()).as("a kept override links no audit").isEmpty();
        }
      }
      assertThat(audited)
          .as("audited exactly the breakers set, once each")
          .containsExactlyElementsOf(
              done.steps().stream()
                  .filter(s -> s.status() == Status.APPLIED)
                  .map(s -> s.entry().id())
                  .toList());
    }

    @Test
    @DisplayName("the script decides: an override set after the plan is kept, not written again")
    void theScriptsAnswerDecides() {
      BreakerId id = id(1);
      OverrideRequest r = request(OverrideKind.FORCED_OPEN, "alice", "incident");
      OverridePlan p = plan(List.of(id), r);
      assertThat(p.entries().get(0).decision()).isEqualTo(Decision.WOULD_SET);
      // another run of the same command sets it between this plan and its application
      planner.apply(plan(List.of(id), r), () -> false);
      audited.clear();
      Map<String, String> set = fields(id);

      AppliedOverrides done = planner.apply(p, () -> false);

      assertThat(done.steps().get(0).status()).isEqualTo(Status.UNCHANGED);
      assertThat(fields(id)).isEqualTo(set);
      assertThat(audited).isEmpty();
    }

    @Test
    @DisplayName("an override changed after the plan is written as the script finds it")
    void aStalePlanIsNotTrusted() {
      BreakerId id = id(1);
      force(id, OverrideKind.FORCED_OPEN, "alice", "incident");
      OverridePlan p = plan(List.of(id), request(OverrideKind.FORCED_OPEN, "alice", "incident"));
      assertThat(p.entries().get(0).decision()).isEqualTo(Decision.UNCHANGED);
      StoreFutures.await(store.override(id, request(OverrideKind.CLEAR, "bob", "resolved")));

      AppliedOverrides done = planner.apply(p, () -> false);

      assertThat(done.steps().get(0).status()).isEqualTo(Status.APPLIED);
      assertThat(done.steps().get(0).action().result().previous()).isEqualTo(State.CLOSED);
      assertThat(fields(id)).containsEntry("override", "FORCED_OPEN");
      assertThat(audited).containsExactly(id);
    }

    @Test
    @DisplayName(
        "a lost answer on a held override: unchanged when a fresh read still holds it, else failed")
    void lostAnswerOnAHeldOverride() {
      BreakerId held = id(1);
      BreakerId after = id(2);
      force(held, OverrideKind.FORCED_OPEN, "alice", "incident");
      OverrideRequest r = request(OverrideKind.FORCED_OPEN, "alice", "incident");
      OverridePlan p = plan(List.of(held, after), r);
      Map<BreakerId, Map<String, String>> before = fields(List.of(held, after));
      // the connection died: the read-back finds no write carrying the request's correlation id
      OverridePlanner.Writer losing =
          (id, req) -> {
            throw new LostAnswerException(
                WriteOutcome.NOT_APPLIED,
                id,
                req.correlationId(),
                "",
                new StoreUnavailableException("connection reset", null));
          };
      OverridePlanner planner =
          new OverridePlanner(store::state, losing, (id, req, w) -> fail("nothing to audit"));

      AppliedOverrides done = planner.apply(p, () -> false);

      assertThat(done.steps())
          .extracting(OverrideStep::status)
          .containsExactly(Status.UNCHANGED, Status.NOT_ATTEMPTED);
      assertThat(done.steps().get(0).action().lostAnswer()).contains("connection reset");
      assertThat(done.failure()).isInstanceOf(LostAnswerException.class);
      assertThat(fields(List.of(held, after))).isEqualTo(before);

      // cleared meanwhile: the fresh read no longer holds it, so the step is failed
      StoreFutures.await(store.override(held, request(OverrideKind.CLEAR, "bob", "resolved")));
      AppliedOverrides cleared = planner.apply(p, () -> false);
      assertThat(cleared.steps().get(0).status()).isEqualTo(Status.FAILED);
    }

    @Test
    @DisplayName("a stop request leaves every breaker not attempted: nothing written or audited")
    void stopped() {
      List<BreakerId> ids = List.of(id(1), id(2));
      OverridePlan p = plan(ids, request(OverrideKind.FORCED_OPEN, "alice", "incident"));
      Map<BreakerId, Map<String, String>> before = fields(ids);

      AppliedOverrides done = planner.apply(p, () -> true);

      assertThat(done.count(Status.NOT_ATTEMPTED)).isEqualTo(2);
      assertThat(fields(ids)).isEqualTo(before);
      assertThat(audited).isEmpty();
    }

    @Test
    @DisplayName("the store unavailable fails that breaker and leaves the rest not attempted")
    void unavailable() {
      List<BreakerId> ids = List.of(id(1), id(2), id(3));
      OverridePlan p = plan(ids, request(OverrideKind.FORCED_OPEN, "alice", "incident"));
      BreakerId down = id(2);
      OverridePlanner failing =
          new OverridePlanner(
              store::state,
              (id, r) -> {
                if (id.equals(down)) {
                  throw new StoreUnavailableException("connection refused", null);
                }
                return new Written<>(StoreFutures.await(store.override(id, r)), "");
              },
              (id, r, written) -> {
                audited.add(id);
                return new OverrideAction(written.value(), r.correlationId(), true, "", "");
              });

      AppliedOverrides done = failing.apply(p, () -> false);

      assertThat(done.steps())
          .extracting(OverrideStep::status)
          .containsExactly(Status.APPLIED, Status.FAILED, Status.NOT_ATTEMPTED);
      assertThat(done.failure()).isInstanceOf(StoreUnavailableException.class);
      assertThat(done.steps().get(1).error()).isEqualTo("connection refused");
      assertThat(audited).containsExactly(id(1));
      assertThat(fields(id(3))).isEmpty();
    }
  }

  @Test
  @DisplayName("a breaker whose keys cannot be read would fail, with no expiry")
  void unreadable() {
    BreakerSnapshot bad =
        new BreakerSnapshot(
            id(1), Map.of("state", "SIDEWAYS"), List.of(), List.of(), List.of(), clock.millis());

    OverridePlan p = OverridePlan.of(request(OverrideKind.FORCED_OPEN, "alice", "x"), List.of(bad));

    assertThat(p.entries().get(0).decision()).isEqualTo(Decision.WOULD_FAIL);
    assertThat(p.entries().get(0).before()).isEmpty();
    assertThat(p.entries().get(0).untilMillis()).isZero();
  }
}
