package io.breakerctl.runtime.control.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.model.Filters;
import io.breakerctl.runtime.control.ControlConfig;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.TestMongo;
import io.breakerctl.runtime.control.audit.AuditAction;
import io.breakerctl.runtime.control.audit.AuditLog;
import io.breakerctl.runtime.control.audit.AuditRecord;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.PolicyEncoding.WarmedPolicy;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.MutableClock;
import io.breakerctl.testing.RedisExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("Policy versions in MongoDB, warmed into Redis")
class PolicyControlIT {

  @RegisterExtension static final RedisExtension REDIS = RedisExtension.standalone();

  static TestMongo mongo;

  ControlDatabase db;
  RedisFleetStore redis;
  MutableClock clock;
  PolicyControl control;

  @BeforeAll
  static void startMongo() {
    mongo = TestMongo.start();
  }

  @AfterAll
  static void stopMongo() {
    mongo.close();
  }

  @BeforeEach
  void setUp() {
    REDIS.server().flushAll();
    db = ControlDatabase.connect(mongo.database());
    redis =
        RedisFleetStore.connect(
            StoreConfig.builder().uri(REDIS.uri()).timeout(Duration.ofSeconds(2)).build());
    clock = new MutableClock(Instant.now());
    control = new PolicyControl(db, redis, clock);
  }

  @AfterEach
  void tearDown() {
    redis.close();
    db.close();
  }

  private static PolicyDocument doc(String id, int failureThreshold) {
    return PolicyDocument.of(
        PolicyId.parse(id), Policy.builder().failureThreshold(failureThreshold).build());
  }

  private WarmedPolicy warmed(String breaker) {
    BreakerSnapshot s = StoreFutures.await(redis.snapshot(BreakerId.parse(breaker), 0));
    return s.warmedPolicy().orElse(null);
  }

  private void touch(String breaker) {
    StoreFutures.await(
        redis.record(BreakerId.parse(breaker), Outcome.successes("node-1", 1), Policy.DEFAULT));
  }

  @Test
  @DisplayName("two appliers race from separate clients: one version, one named conflict (x50)")
  void raceBetweenTwoClients() throws Exception {
    PolicyId id = PolicyId.parse("claims:members");
    ControlConfig config = db.config();
    try (ControlDatabase a = ControlDatabase.connect(config);
        ControlDatabase b = ControlDatabase.connect(config)) {
      PolicyControl[] appliers = {
        new PolicyControl(a, null, clock), new PolicyControl(b, null, clock)
      };
      appliers[0].apply(doc("claims:members", 1000), ApplyOptions.by("seed", "initial"));
      ExecutorService pool = Executors.newFixedThreadPool(2);
      try {
        for (int round = 0; round < 50; round++) {
          long current = control.store().latestVersion(id);
          CountDownLatch start = new CountDownLatch(1);
          List<Future<Object>> results = new ArrayList<>();
          for (int t = 0; t < 2; t++) {
            PolicyControl applier = appliers[t];
            int threshold = round * 2 + t + 1;
            results.add(
                pool.submit(
                    () -> {
                      start.await();
                      try {
                        return applier.apply(
                            doc("claims:members", threshold),
                            ApplyOptions.by("user-" + threshold, "race").expecting(current));
                      } catch (PolicyConflictException e) {
                        return e;
                      }
                    }));
          }
          start.countDown();
          List<ApplyResult> won = new ArrayList<>();
          List<PolicyConflictException> lost = new ArrayList<>();
          List<Integer> losers = new ArrayList<>();
          for (int t = 0; t < 2; t++) {
            Object r = results.get(t).get(20, TimeUnit.SECONDS);
            if (r instanceof ApplyResult ar) {
              won.add(ar);
            } else {
              lost.add((PolicyConflictException) r);
              losers.add(t);
            }
          }
          assertThat(won).as("round %d winners", round).hasSize(1);
          assertThat(won.get(0).version().version()).isEqualTo(current + 1);
          assertThat(lost).as("round %d conflicts", round).hasSize(1);
          assertThat(lost.get(0).expected()).isEqualTo(current);
          assertThat(lost.get(0).actual()).isEqualTo(current + 1);
          assertThat(lost.get(0))
              .hasMessageContaining(
                  "policy claims:members moved: expected version "
                      + current
                      + " but is "
                      + (current + 1));
          // the loser reviews and applies again on top of the winner: nothing is lost
          int t = losers.get(0);
          ApplyResult retried =
              appliers[t].apply(
                  doc("claims:members", round * 2 + t + 1),
                  ApplyOptions.by("user", "retry").expecting(current + 1));
          assertThat(retried.version().version()).isEqualTo(current + 2);
        }
      } finally {
        pool.shutdownNow();
      }
    }
    List<PolicyVersion> versions = control.store().versions(id);
    assertThat(versions)
        .extracting(PolicyVersion::version)
        .containsExactlyElementsOf(
            java.util.stream.LongStream.rangeClosed(1, 101).boxed().toList());
    assertThat(versions.subList(1, 101))
        .extracting(v -> v.policy().failureThreshold())
        .containsExactlyInAnyOrderElementsOf(
            java.util.stream.IntStream.rangeClosed(1, 100).boxed().toList());
    assertThat(control.store().pointer(id)).isEqualTo(101);
    assertThat(
            db.collection(ControlDatabase.AUDIT)
                .countDocuments(Filters.eq("target", "claims:members")))
        .isEqualTo(101);
  }

  @Test
  @DisplayName("apply twice unchanged: one version; re-apply re-warms a flushed Redis")
  void unchangedApplyCreatesNoVersionButRewarms() {
    ApplyResult first =
        control.apply(doc("claims:members", 3), ApplyOptions.by("alice", "tune").approvedBy("bob"));
    ApplyResult second = control.apply(doc("claims:members", 3), ApplyOptions.by("alice", "again"));

    assertThat(first.outcome()).isEqualTo(ApplyResult.Outcome.CREATED);
    assertThat(first.version().approvedBy()).isEqualTo("bob");
    assertThat(first.warmed())
        .singleElement()
        .satisfies(w -> assertThat(w.outcome()).isEqualTo("WARMED"));
    assertThat(second.outcome()).isEqualTo(ApplyResult.Outcome.UNCHANGED);
    assertThat(second.warmed())
        .singleElement()
        .satisfies(w -> assertThat(w.outcome()).isEqualTo("UNCHANGED"));
    assertThat(control.store().versions(PolicyId.parse("claims:members"))).hasSize(1);
    assertThat(new AuditLog(db).forTarget("claims:members"))
        .singleElement()
        .satisfies(
            a -> {
              assertThat(a.action()).isEqualTo(AuditAction.APPLY);
              assertThat(a.actor()).isEqualTo("alice");
              assertThat(a.after()).containsEntry("approvedBy", "bob");
            });

    REDIS.server().flushAll();
    assertThat(warmed("claims:members")).isNull();
    ApplyResult third = control.apply(doc("claims:members", 3), ApplyOptions.by("alice", "again"));

    assertThat(third.outcome()).isEqualTo(ApplyResult.Outcome.UNCHANGED);
    assertThat(third.warmed())
        .singleElement()
        .satisfies(w -> assertThat(w.outcome()).isEqualTo("WARMED"));
    assertThat(warmed("claims:members"))
        .isEqualTo(new WarmedPolicy("claims:members", 1, doc("x:y", 3).policy()));
  }

  @Test
  @DisplayName("rollback creates version N+1 with the old spec, an audit record and a warm")
  void rollbackAndDiff() {
    control.apply(doc("claims:members", 3), ApplyOptions.by("alice", "v1"));
    control.apply(doc("claims:members", 9), ApplyOptions.by("alice", "v2"));
    PolicyId id = PolicyId.parse("claims:members");

    ApplyResult rolled =
        control.rollback(id, 1, ApplyOptions.by("carol", "v2 trips too late").expecting(2));

    assertThat(rolled.version().version()).isEqualTo(3);
    assertThat(rolled.version().rollbackOf()).isEqualTo(1);
    assertThat(rolled.version().policy().failureThreshold()).isEqualTo(3);
    assertThat(rolled.changes())
        .extracting(Object::toString)
        .containsExactly("spec.failureThreshold: 9 -> 3");
    assertThat(warmed("claims:members").version()).isEqualTo(3);
    assertThat(warmed("claims:members").policy().failureThreshold()).isEqualTo(3);
    AuditRecord a = new AuditLog(db).find(rolled.correlationId()).orElseThrow();
    assertThat(a.action()).isEqualTo(AuditAction.ROLLBACK);
    assertThat(a.actor()).isEqualTo("carol");
    assertThat(a.reason()).isEqualTo("v2 trips too late");
    assertThat(a.before()).containsEntry("version", 2L);
    assertThat(a.after()).containsEntry("version", 3L);

    assertThat(control.diff(id, 1, 2))
        .extracting(Object::toString)
        .containsExactly("spec.failureThreshold: 3 -> 9");
    assertThat(control.diff(id, 1, 3)).isEmpty();
    PolicyDocument file =
        PolicyParser.parse(
                "p.yaml",
                "metadata: {id: claims:members}\nspec: {failureThreshold: 3, openSeconds: 0.5}\n")
            .documents()
            .get(0);
    assertThat(control.diff(file))
        .extracting(Object::toString)
        .containsExactly("spec.openSeconds: 30 -> 0.5");
    assertThatThrownBy(() -> control.rollback(id, 7, ApplyOptions.by("carol", "x")))
        .hasMessage("policy claims:members has no version 7 to roll back to");
  }

  @Test
  @DisplayName("a temporary version stops at its expiry; the revert is recorded and warmed")
  void temporaryPolicyReverts() {
    PolicyId id = PolicyId.parse("claims:members");
    control.apply(doc("claims:members", 3), ApplyOptions.by("alice", "base"));
    Instant expiry = clock.instant().plus(Duration.ofMinutes(30));
    ApplyResult temp =
        control.apply(
            doc("claims:members", 50), ApplyOptions.by("alice", "incident").expiringAt(expiry));
    assertThat(temp.version().expiresAt()).contains(expiry);
    assertThat(warmed("claims:members").policy().failureThreshold()).isEqualTo(50);
    assertThat(control.revertExpired()).isEmpty();

    clock.advance(Duration.ofMinutes(31));

    // readers compute the expiry at once
    assertThat(control.store().inForce(id, clock.instant()).orElseThrow().version()).isEqualTo(1);
    assertThat(control.resolve(BreakerId.parse("claims:members")).orElseThrow().value().version())
        .isEqualTo(1);
    // the control plane records the revert when it next runs, and warms it
    List<ApplyResult> reverts = control.revertExpired();
    assertThat(reverts)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.version().version()).isEqualTo(3);
              assertThat(r.version().revertOf()).isEqualTo(2);
              assertThat(r.version().author()).isEqualTo(PolicyControl.SYSTEM_ACTOR);
              assertThat(r.version().policy().failureThreshold()).isEqualTo(3);
            });
    assertThat(warmed("claims:members").version()).isEqualTo(3);
    assertThat(warmed("claims:members").policy().failureThreshold()).isEqualTo(3);
    assertThat(control.revertExpired()).isEmpty();
    assertThat(new AuditLog(db).forTarget("claims:members"))
        .extracting(AuditRecord::action)
        .containsExactly(AuditAction.APPLY, AuditAction.APPLY, AuditAction.REVERT);
  }

  @Test
  @DisplayName("an invalid document anywhere in a set: every problem located, nothing written")
  void invalidSetWritesNothing() {
    touch("claims:members");
    PolicySet set =
        PolicyParser.parse(
            "policies/claims.yaml",
            """
            metadata: {id: "*:*"}
            spec: {failureThreshold: 4}
            ---
            metadata: {id: claims:members}
            spec: {failureThreshold: 0, enabled: maybe}
            ---
            metadata: {id: "claims:{x}"}
            """);

    assertThatThrownBy(() -> control.applyAll(set, ApplyOptions.by("alice", "bulk")))
        .isInstanceOf(InvalidPolicyException.class)
        .satisfies(
            e ->
                assertThat(((InvalidPolicyException) e).problems())
                    .extracting(Object::toString)
                    .containsExactly(
                        "policies/claims.yaml: document 2: line 5: spec.failureThreshold must be >= 1 but was 0",
                        "policies/claims.yaml: document 2: line 5: spec.enabled must be true or false but was \"maybe\"",
                        "policies/claims.yaml: document 3: line 7: metadata.id policy id must be caller:dependency[:scope], caller:* or *:* (breaker id 'claims:{x}': dependency segment '{x}' must match [a-z0-9][a-z0-9._-]{0,62})"));
    for (String c :
        List.of(ControlDatabase.POLICY_VERSIONS, ControlDatabase.POLICIES, ControlDatabase.AUDIT)) {
      assertThat(db.collection(c).countDocuments()).as(c).isZero();
    }
    assertThat(warmed("claims:members")).isNull();
  }

  @Test
  @DisplayName("defaults: own policy > caller:* > *:*; changing a default re-warms its breakers")
  void defaultsResolveAndRewarm() {
    touch("claims:members");
    touch("claims:billing:refunds");
    touch("orders:stock");
    control.apply(doc("claims:billing:refunds", 2), ApplyOptions.by("alice", "own"));

    ApplyResult all = control.apply(doc("*:*", 7), ApplyOptions.by("alice", "fleet"));

    assertThat(all.warmed())
        .extracting(w -> w.breakerId().toString())
        .containsExactlyInAnyOrder("claims:members", "orders:stock");
    assertThat(warmed("claims:members").policyId()).isEqualTo("*:*");
    assertThat(warmed("orders:stock").policyId()).isEqualTo("*:*");
    assertThat(warmed("claims:billing:refunds").policyId()).isEqualTo("claims:billing:refunds");

    ApplyResult caller = control.apply(doc("claims:*", 8), ApplyOptions.by("alice", "claims"));

    assertThat(caller.warmed())
        .extracting(w -> w.breakerId().toString())
        .containsExactly("claims:members");
    assertThat(warmed("claims:members"))
        .isEqualTo(new WarmedPolicy("claims:*", 1, doc("a:b", 8).policy()));
    assertThat(warmed("orders:stock").policyId()).isEqualTo("*:*");

    control.apply(doc("claims:*", 9), ApplyOptions.by("alice", "claims v2"));
    ApplyResult all2 = control.apply(doc("*:*", 6), ApplyOptions.by("alice", "fleet v2"));

    assertThat(warmed("claims:members"))
        .isEqualTo(new WarmedPolicy("claims:*", 2, doc("a:b", 9).policy()));
    assertThat(all2.warmed())
        .extracting(w -> w.breakerId().toString())
        .containsExactly("orders:stock");
    assertThat(warmed("orders:stock"))
        .isEqualTo(new WarmedPolicy("*:*", 2, doc("a:b", 6).policy()));
    assertThat(warmed("claims:billing:refunds").policy().failureThreshold()).isEqualTo(2);
    assertThat(control.resolve(BreakerId.parse("claims:new")).orElseThrow().policyId())
        .hasToString("claims:*");
    assertThat(control.resolve(BreakerId.parse("pay:new")).orElseThrow().policyId())
        .hasToString("*:*");
    Map<PolicyId, PolicyVersion> inForce = control.store().allInForce(clock.instant());
    assertThat(inForce.keySet())
        .extracting(Object::toString)
        .containsExactlyInAnyOrder("*:*", "claims:*", "claims:billing:refunds");
  }

  @Test
  @DisplayName(
      "delete: a tombstone version; breakers fall back to the next default, then to node defaults")
  void deleteRewarmsOrUnwarms() {
    touch("claims:members");
    touch("orders:stock");
    control.apply(doc("*:*", 7), ApplyOptions.by("alice", "fleet"));
    control.apply(doc("claims:*", 8), ApplyOptions.by("alice", "claims"));
    assertThat(warmed("claims:members").policyId()).isEqualTo("claims:*");

    ApplyResult gone =
        control.delete(PolicyId.parse("claims:*"), ApplyOptions.by("bob", "retired").expecting(1));

    assertThat(gone.outcome()).isEqualTo(ApplyResult.Outcome.DELETED);
    assertThat(gone.version().version()).isEqualTo(2);
    assertThat(gone.version().deleted()).isTrue();
    assertThat(gone.version().author()).isEqualTo("bob");
    assertThat(gone.changes()).extracting(c -> c.after()).containsOnlyNulls();
    assertThat(gone.warmed())
        .singleElement()
        .satisfies(
            w -> {
              assertThat(w.breakerId()).hasToString("claims:members");
              assertThat(w.policyId()).isEqualTo("*:*");
              assertThat(w.outcome()).isEqualTo("WARMED");
            });
    assertThat(warmed("claims:members"))
        .isEqualTo(new WarmedPolicy("*:*", 1, doc("a:b", 7).policy()));
    assertThat(control.resolve(BreakerId.parse("claims:new")).orElseThrow().policyId())
        .hasToString("*:*");
    assertThat(new AuditLog(db).forTarget("claims:*"))
        .extracting(AuditRecord::action)
        .containsExactly(AuditAction.APPLY, AuditAction.DELETE);

    ApplyResult fleet = control.delete(PolicyId.parse("*:*"), ApplyOptions.by("bob", "none"));
    assertThat(fleet.warmed())
        .extracting(WarmReport::outcome)
        .containsExactly("UNWARMED", "UNWARMED");
    assertThat(warmed("claims:members")).isNull();
    assertThat(warmed("orders:stock")).isNull();
    assertThat(control.resolve(BreakerId.parse("claims:members"))).isEmpty();
    assertThat(control.revertExpired()).as("a tombstone is no expired version").isEmpty();
    assertThat(control.delete(PolicyId.parse("*:*"), ApplyOptions.by("bob", "again")).outcome())
        .isEqualTo(ApplyResult.Outcome.UNCHANGED);
    assertThat(control.store().versions(PolicyId.parse("*:*"))).hasSize(2);
    assertThatThrownBy(
            () ->
                control.delete(
                    PolicyId.parse("claims:*"), ApplyOptions.by("bob", "x").expecting(1)))
        .isInstanceOf(PolicyConflictException.class);

    ApplyResult back =
        control.rollback(PolicyId.parse("claims:*"), 1, ApplyOptions.by("carol", "needed"));
    assertThat(back.version().version()).isEqualTo(3);
    assertThat(warmed("claims:members"))
        .isEqualTo(new WarmedPolicy("claims:*", 3, doc("a:b", 8).policy()));
    assertThatThrownBy(
            () -> control.rollback(PolicyId.parse("claims:*"), 2, ApplyOptions.by("carol", "x")))
        .hasMessageContaining("is its deletion");
  }

  @Test
  @DisplayName("a temporary version expiring with none before it: its breaker is un-warmed")
  void expiredTemporaryWithNothingBeforeUnwarms() {
    touch("pay:dep");
    control.apply(
        doc("pay:dep", 4),
        ApplyOptions.by("alice", "incident")
            .expiringAt(clock.instant().plus(Duration.ofMinutes(30))));
    assertThat(warmed("pay:dep").version()).isEqualTo(1);

    clock.advance(Duration.ofMinutes(31));

    assertThat(control.revertExpired()).isEmpty();
    assertThat(warmed("pay:dep")).as("nothing of pay:dep is in force any more").isNull();
  }
}
