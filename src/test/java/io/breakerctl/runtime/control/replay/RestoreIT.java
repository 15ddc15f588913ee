package io.breakerctl.runtime.control.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.control.BreakerPattern;
import io.breakerctl.runtime.control.ControlPlaneIT;
import io.breakerctl.runtime.control.audit.AuditAction;
import io.breakerctl.runtime.control.audit.AuditLog;
import io.breakerctl.runtime.control.audit.AuditRecord;
import io.breakerctl.runtime.control.history.HistoryForwarder;
import io.breakerctl.runtime.control.override.BreakerOverrides;
import io.breakerctl.runtime.control.override.OverrideAction;
import io.breakerctl.runtime.control.policy.ApplyOptions;
import io.breakerctl.runtime.control.policy.PolicyControl;
import io.breakerctl.runtime.control.policy.PolicyParser;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.StoreFutures;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Restore after Redis lost its data")
class RestoreIT extends ControlPlaneIT {

  static final BreakerId OPEN = BreakerId.parse("restore:open");
  static final BreakerId FORCED = BreakerId.parse("restore:forced");
  static final BreakerId MOVED = BreakerId.parse("restore:moved");

  private BreakerSnapshot keys(BreakerId id) {
    return StoreFutures.await(redis.snapshot(id, 1));
  }

  private void force(BreakerId id, OverrideKind kind, Duration d) {
    StoreFutures.await(redis.override(id, new OverrideRequest(kind, "alice", "incident 7", d, "")));
  }

  private static Map<BreakerId, RestoreAction> actions(RestorePlan p) {
    return p.items().stream().collect(Collectors.toMap(RestoreItem::id, RestoreItem::action));
  }

  @Test
  @DisplayName(
      "FLUSHALL, then restore: open breakers, live overrides with their remaining expiry, policy"
          + " versions and new epochs come back; a breaker that moved on is not set back; a dry run"
          + " first writes nothing; a second restore changes nothing")
  void restoreAfterFlushAll() {
    new PolicyControl(db, redis, clock)
        .applyAll(
            PolicyParser.parse(
                "restore.yaml",
                "apiVersion: breakerctl/v1\nkind: Policy\nmetadata:\n  id: 'restore:*'\n"
                    + "spec:\n  failureThreshold: 2\n  openSeconds: 60\n"),
            ApplyOptions.by("it", "restore drill"));
    Policy p = Policy.builder().failureThreshold(2).open(Duration.ofSeconds(60)).build();
    for (int i = 0; i < 2; i++) {
      StoreFutures.await(redis.record(OPEN, Outcome.failure("n1", ""), p));
    }
    StoreFutures.await(redis.warm(FORCED, "restore:*", 1, p, "it"));
    force(FORCED, OverrideKind.FORCED_OPEN, Duration.ofMinutes(10));
    force(MOVED, OverrideKind.FORCED_OPEN, Duration.ZERO);
    BreakerSnapshot open = keys(OPEN);
    BreakerSnapshot forced = keys(FORCED);
    assertThat(open.effectiveState()).isEqualTo(State.OPEN);
    assertThat(new HistoryForwarder(db, redis, "fwd", clock).syncOnce().failures()).isEmpty();

    // Redis loses everything; one breaker moves on before the operator restores
    REDIS.server().flushAll();
    force(MOVED, OverrideKind.FORCED_CLOSED, Duration.ZERO);

    BreakerRestore restore = new BreakerRestore(db, redis, clock);
    RestorePlan plan = restore.plan(BreakerPattern.of("restore:*"));
    assertThat(plan.dryRun()).isTrue();
    assertThat(actions(plan))
        .containsEntry(OPEN, RestoreAction.RESTORE)
        .containsEntry(FORCED, RestoreAction.RESTORE)
        .containsEntry(MOVED, RestoreAction.MOVED_ON);
    RestoreItem forcedPlan =
        plan.with(RestoreAction.RESTORE).stream()
            .filter(i -> i.id().equals(FORCED))
            .findFirst()
            .orElseThrow();
    assertThat(forcedPlan.override()).contains(State.FORCED_OPEN);
    assertThat(forcedPlan.overrideRemainingMillis())
        .isBetween(1L, Duration.ofMinutes(10).toMillis());
    assertThat(keys(OPEN).exists()).as("the dry run wrote nothing").isFalse();
    assertThat(keys(FORCED).exists()).isFalse();

    RestorePlan done =
        restore.restore(BreakerPattern.of("restore:*"), "dave", "redis lost its data");
    assertThat(actions(done))
        .containsEntry(OPEN, RestoreAction.RESTORED)
        .containsEntry(FORCED, RestoreAction.RESTORED)
        .containsEntry(MOVED, RestoreAction.MOVED_ON);

    BreakerSnapshot o = keys(OPEN);
    assertThat(o.storedState()).isEqualTo(State.OPEN);
    assertThat(o.effectiveState()).isEqualTo(State.OPEN);
    assertThat(o.number("openUntil")).isEqualTo(open.number("openUntil"));
    assertThat(o.epoch()).isNotEmpty().isNotEqualTo(open.epoch());
    assertThat(o.warmedPolicy().orElseThrow().policyId()).isEqualTo("restore:*");
    assertThat(o.warmedPolicy().orElseThrow().version()).isEqualTo(1);
    assertThat(o.recentEvents().get(0).field("cause")).isEqualTo("RESTORED");
    BreakerSnapshot f = keys(FORCED);
    assertThat(f.effectiveState()).isEqualTo(State.FORCED_OPEN);
    assertThat(f.number("overrideUntil")).isEqualTo(forced.number("overrideUntil"));
    assertThat(f.fields()).containsEntry("overrideActor", "alice");
    assertThat(f.epoch()).isNotEqualTo(forced.epoch());
    assertThat(keys(MOVED).effectiveState()).as("never set back").isEqualTo(State.FORCED_CLOSED);
    assertThat(new AuditLog(db).forTarget(OPEN.toString()))
        .extracting(AuditRecord::action)
        .contains(AuditAction.RESTORE);

    // idempotent: before the RESTORED events are forwarded, and after
    Map<String, String> after = keys(OPEN).fields();
    assertThat(actions(restore.restore(BreakerPattern.of("restore:*"), "alice", "again")))
        .containsEntry(OPEN, RestoreAction.ALREADY_RESTORED)
        .containsEntry(FORCED, RestoreAction.ALREADY_RESTORED);
    assertThat(keys(OPEN).fields()).isEqualTo(after);
    assertThat(new HistoryForwarder(db, redis, "fwd", clock).syncOnce().failures()).isEmpty();
    assertThat(actions(restore.restore(BreakerPattern.of("restore:*"), "alice", "again")))
        .containsEntry(OPEN, RestoreAction.INTACT)
        .containsEntry(FORCED, RestoreAction.INTACT)
        .containsEntry(MOVED, RestoreAction.INTACT);
    // replay reads the restored incarnation as history's state; a second loss restores the
    // override with its original actor, not the restorer
    assertThat(
            new Replay(db, null)
                .stateAt(java.time.Instant.now(), BreakerPattern.of("restore:*"))
                .get(FORCED)
                .state())
        .isEqualTo(State.FORCED_OPEN);
    REDIS.server().flushAll();
    assertThat(actions(restore.restore(BreakerPattern.of("restore:forced"), "carol", "lost again")))
        .containsEntry(FORCED, RestoreAction.RESTORED);
    assertThat(keys(FORCED).fields())
        .containsEntry("overrideActor", "alice")
        .containsEntry("override", "FORCED_OPEN");
    assertThat(keys(FORCED).number("overrideUntil")).isEqualTo(forced.number("overrideUntil"));
  }

  @Test
  @DisplayName("running HYBRID nodes adopt the restored state without restart")
  void hybridNodesAdopt() {
    BreakerId id = BreakerId.parse("restore:hybrid");
    force(id, OverrideKind.FORCED_OPEN, Duration.ofMinutes(5));
    assertThat(new HistoryForwarder(db, redis, "fwd", clock).syncOnce().failures()).isEmpty();
    REDIS.server().flushAll();
    // A node that had seen the override would put it back itself (reassert.lua, FailoverIT); this
    // one starts after the loss, so only the restore can tell it.
    try (BreakerRegistry node =
        BreakerRegistry.builder()
            .redisUri(REDIS.uri())
            .nodeId("h1")
            .refreshInterval(Duration.ofMinutes(5))
            .build()) {
      CircuitBreaker cb = node.breaker(id);
      assertThat(cb.view().state()).as("the node sees the loss").isEqualTo(State.CLOSED);

      RestorePlan done =
          new BreakerRestore(db, redis, clock).restore(BreakerPattern.of(id), "alice", "lost");
      assertThat(done.items())
          .singleElement()
          .extracting(RestoreItem::action)
          .isEqualTo(RestoreAction.RESTORED);
      String generation = keys(id).fields().get("generation");
      Poll.until(
          Duration.ofSeconds(5),
          "the node adopts the restored override",
          () ->
              cb.view().state() == State.FORCED_OPEN && cb.view().generation().equals(generation));
      assertThat(cb.tryAcquire().allowed()).isFalse();
    }
  }

  @Test
  @DisplayName(
      "a force is durable when it returns: restored after a FLUSHALL though no forwarder pass ran;"
          + " a breaker whose state is intact gets the policy in force warmed back")
  void forceDurableAndPolicyWarmedBack() {
    BreakerId forced = BreakerId.parse("durable:forced");
    BreakerId intact = BreakerId.parse("durable:intact");
    new PolicyControl(db, redis, clock)
        .applyAll(
            PolicyParser.parse(
                "durable.yaml",
                "apiVersion: breakerctl/v1\nkind: Policy\nmetadata:\n  id: 'durable:*'\n"
                    + "spec:\n  failureThreshold: 4\n  openSeconds: 60\n"),
            ApplyOptions.by("it", "durable drill"));
    OverrideAction action =
        new BreakerOverrides(redis, db, clock)
            .apply(
                forced,
                new OverrideRequest(
                    OverrideKind.FORCED_OPEN, "alice", "incident 9", Duration.ofMinutes(10), ""));
    assertThat(action.auditStored()).isTrue();

    REDIS.server().flushAll(); // no forwarder pass since the force
    // the intact breaker: a node trips it in the new incarnation, and its history is forwarded;
    // the policy only MongoDB holds is not in its keys
    Policy nodeDefaults = Policy.builder().failureThreshold(2).build();
    for (int i = 0; i < 2; i++) {
      StoreFutures.await(redis.record(intact, Outcome.failure("n1", ""), nodeDefaults));
    }
    assertThat(new HistoryForwarder(db, redis, "fwd", clock).syncBreaker(intact).events())
        .isPositive();
    assertThat(keys(intact).warmedPolicy()).isEmpty();

    RestorePlan done =
        new BreakerRestore(db, redis, clock)
            .restore(BreakerPattern.of("durable:*"), "dave", "redis lost its data");
    assertThat(actions(done))
        .containsEntry(forced, RestoreAction.RESTORED)
        .containsEntry(intact, RestoreAction.INTACT);
    assertThat(keys(forced).effectiveState()).isEqualTo(State.FORCED_OPEN);
    assertThat(done.items())
        .filteredOn(i -> i.id().equals(intact))
        .singleElement()
        .satisfies(i -> assertThat(i.detail()).contains("policy durable:* v1 warmed back"));
    assertThat(keys(intact).warmedPolicy().map(w -> w.version())).contains(1L);
  }

  /**
   * The forwarder puts back an override Redis lost with a REASSERTED event; after a second loss,
   * restore rebuilds the breaker from that event: the override over the machine state, with its
   * actor and expiry. Before, the fold read the re-asserted override as the machine state and
   * restore refused it (exit 2: "stored state must be a machine state but was FORCED_OPEN").
   */
  @Test
  @DisplayName("an override the forwarder put back is restored after a second loss")
  void aReassertedOverrideIsRestored() {
    BreakerId id = BreakerId.parse("reasserted:forced");
    new BreakerOverrides(redis, db, clock)
        .apply(
            id,
            new OverrideRequest(
                OverrideKind.FORCED_OPEN, "alice", "incident 11", Duration.ofMinutes(10), ""));
    long until = keys(id).number("overrideUntil");
    HistoryForwarder forwarder = new HistoryForwarder(db, redis, "fwd", clock);
    assertThat(forwarder.syncOnce().failures()).isEmpty();

    REDIS.server().flushAll();
    assertThat(forwarder.syncOnce().failures()).isEmpty(); // puts the override back
    assertThat(keys(id).effectiveState()).isEqualTo(State.FORCED_OPEN);
    assertThat(keys(id).recentEvents().get(0).field("cause")).isEqualTo("REASSERTED");
    assertThat(forwarder.syncOnce().failures()).isEmpty(); // forwards the REASSERTED event

    REDIS.server().flushAll();
    RestorePlan done =
        new BreakerRestore(db, redis, clock)
            .restore(BreakerPattern.of("reasserted:*"), "dave", "redis lost its data again");
    assertThat(actions(done)).containsEntry(id, RestoreAction.RESTORED);
    assertThat(keys(id).effectiveState()).isEqualTo(State.FORCED_OPEN);
    assertThat(keys(id).storedState()).as("the machine state underneath").isEqualTo(State.CLOSED);
    assertThat(keys(id).fields()).containsEntry("overrideActor", "alice");
    assertThat(keys(id).number("overrideUntil")).isEqualTo(until);
  }

  @Test
  @DisplayName(
      "the history forwarder's next pass after a FLUSHALL warms back the policies MongoDB holds")
  void forwarderWarmsBackAfterDataLoss() {
    BreakerId id = BreakerId.parse("fwdwarm:dep");
    new PolicyControl(db, redis, clock)
        .applyAll(
            PolicyParser.parse(
                "fwdwarm.yaml",
                "apiVersion: breakerctl/v1\nkind: Policy\nmetadata:\n  id: 'fwdwarm:dep'\n"
                    + "spec:\n  failureThreshold: 4\n"),
            ApplyOptions.by("it", "forwarder drill"));
    assertThat(keys(id).warmedPolicy().map(w -> w.version())).contains(1L);
    HistoryForwarder forwarder = new HistoryForwarder(db, redis, "fwd", clock);
    assertThat(forwarder.syncOnce().failures()).isEmpty(); // identifies the deployment

    REDIS.server().flushAll();
    assertThat(keys(id).exists()).isFalse();
    assertThat(forwarder.syncOnce().failures()).isEmpty();
    assertThat(keys(id).warmedPolicy().map(w -> w.version()))
        .as("v1 back without a node or an operator")
        .contains(1L);
    assertThat(StoreFutures.await(redis.deployment())).as("its identity back").isPresent();
  }
}
