package io.breakerctl.runtime.conformance;

import static io.breakerctl.runtime.conformance.Answers.admission;
import static io.breakerctl.runtime.conformance.Answers.assertKeysExpireWithin;
import static io.breakerctl.runtime.conformance.Answers.assertKeysNeverExpire;
import static io.breakerctl.runtime.conformance.Answers.assertKeysOutlive;
import static io.breakerctl.runtime.conformance.Answers.assertWithin;
import static io.breakerctl.runtime.conformance.Answers.keyOf;
import static io.breakerctl.runtime.conformance.Answers.next;
import static io.breakerctl.runtime.conformance.Answers.overridden;
import static io.breakerctl.runtime.conformance.Answers.previous;
import static io.breakerctl.runtime.conformance.Answers.reasserted;
import static io.breakerctl.runtime.conformance.Answers.recorded;
import static io.breakerctl.runtime.conformance.Answers.renewed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.breakerctl.runtime.conformance.StoreUnderTest.Capability;
import io.breakerctl.runtime.conformance.StoreUnderTest.KeyExpiry;
import io.breakerctl.runtime.conformance.StoreUnderTest.KeyTtls;
import io.breakerctl.runtime.conformance.TransitionMessages.Message;
import io.breakerctl.runtime.model.BackoffHint;
import io.breakerctl.runtime.model.Epoch;
import io.breakerctl.runtime.model.FallbackPolicy;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;
import io.breakerctl.runtime.store.AcquireResult;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.BreakerStore;
import io.breakerctl.runtime.store.NodeHeartbeat;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.OverrideResult;
import io.breakerctl.runtime.store.ReassertResult;
import io.breakerctl.runtime.store.Reassertion;
import io.breakerctl.runtime.store.RecordResult;
import io.breakerctl.runtime.store.RenewResult;
import io.breakerctl.runtime.store.StoreFutures;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The conformance suite of the breaker protocol: each promise of the shared state contract (BRIEF
 * section 4, the scripts' contract comments) as one named case with a stable id ({@code
 * C01-owner-crash-mid-probe}, ...), written only against {@link BreakerStore} and the {@link
 * StoreUnderTest} hooks, so it runs unchanged on every store: {@code InProcessConformanceTest} (the
 * Java machine on a hand-moved clock) and {@code RedisConformanceIT} (the Lua scripts on real
 * redis-server processes, standalone and cluster). {@code src/docs/conformance.md} states every
 * case as a spec (preconditions, steps, promised answers) for clients in other languages.
 *
 * <p>Why a suite beside the scenario table: the table pins one machine's answers step by step on
 * one breaker with one caller; these cases pin what several nodes may rely on (lease ownership,
 * generations, convergence, data loss and re-assertion, key expiry) and assert the exact promised
 * answer (reason codes such as {@code STALE_LEASE}, {@code PROBES_BUSY}, {@code RELEASED}).
 *
 * <p>Time never decides a verdict: every policy duration is a multiple of the store's {@link
 * StoreUnderTest#unit()}; a step that must run before a lease, window or override ends is proven to
 * have (a read of the store's time after it is still before the end), and a step that must run
 * after is run once the store's time is past it. An attempt that proves itself late is repeated on
 * a fresh breaker with the unit doubled ({@link #ATTEMPTS} attempts), so a slow machine makes a
 * case slower, never wrong.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.MethodName.class)
public abstract class ConformanceSuite {

  /** Attempts per case; each doubles the unit of the one before. */
  static final int ATTEMPTS = Integer.getInteger("conformance.attempts", 4);

  private StoreUnderTest sut;

  /** The store the suite runs on; called once per test class. */
  protected abstract StoreUnderTest open();

  @BeforeAll
  final void openStore() {
    sut = open();
  }

  @AfterAll
  final void closeStore() {
    if (sut != null) {
      sut.close();
    }
  }

  // ---- C01 ----------------------------------------------------------------------------------

  @Test
  @DisplayName(
      "C01-owner-crash-mid-probe: a probe lease whose owner never reports blocks every"
          + " other node until it expires, then exactly one other node gets a new lease")
  void c01OwnerCrashMidProbe(TestInfo info) {
    run(
        info,
        s -> {
          s.policy(probing(s, 1, 2, 4));
          String g = halfOpen(s);
          CaseSteps.Timed<AcquireResult> a = s.timed(() -> s.acquire(0));
          assertThat(admission(a.value()))
              .as("node-0 acquires in HALF_OPEN")
              .isEqualTo("allowed HALF_OPEN PROBE generation=" + g);
          String leaseA = a.value().leaseId();
          assertThat(leaseA).as("the probe's lease id").isNotEmpty();
          long endA = a.value().untilMillis();
          assertWithin(endA, a, s.units(4).toMillis(), "the lease's expiry (acquire + lease)");
          // node-0 crashes here: it never reports.
          for (int n = 1; n <= 2; n++) {
            int node = n;
            AcquireResult busy = s.before(endA, "node-" + n + "'s acquire", () -> s.acquire(node));
            assertThat(admission(busy) + " lease=" + busy.leaseId())
                .as("node-%d's acquire while node-0's lease is live", n)
                .isEqualTo("rejected HALF_OPEN PROBES_BUSY generation=" + g + " lease=");
            assertThat(busy.untilMillis())
                .as("PROBES_BUSY names when the blocking lease expires")
                .isEqualTo(endA);
          }
          s.awaitTime(endA);
          CaseSteps.Timed<AcquireResult> b = s.timed(() -> s.acquire(1));
          assertThat(admission(b.value()))
              .as("node-1's acquire once node-0's lease expired")
              .isEqualTo("allowed HALF_OPEN PROBE generation=" + g);
          assertThat(b.value().leaseId()).as("a new lease").isNotEmpty().isNotEqualTo(leaseA);
          long endB = b.value().untilMillis();
          assertWithin(endB, b, s.units(4).toMillis(), "the new lease's expiry");
          AcquireResult c = s.before(endB, "node-2's acquire", () -> s.acquire(2));
          assertThat(admission(c))
              .as("node-2's acquire while node-1's new lease is live")
              .isEqualTo("rejected HALF_OPEN PROBES_BUSY generation=" + g);
          RecordResult closed =
              s.before(endB, "node-1's probe", () -> s.probe(1, g, b.value().leaseId(), true));
          assertThat(recorded(closed))
              .as("node-1's probe success under its live lease")
              .isEqualTo("CLOSED COUNTED accepted=true transitioned=true generation=" + next(g, 1));
        });
  }

  // ---- C02 ----------------------------------------------------------------------------------

  @Test
  @DisplayName(
      "C02-lease-reclaim-generation-guard: after another node reclaimed an expired"
          + " lease, the old owner's late results (lease or generation) change nothing")
  void c02LeaseReclaimGenerationGuard(TestInfo info) {
    run(
        info,
        s -> {
          s.policy(probing(s, 1, 2, 4));
          String g = halfOpen(s);
          AcquireResult a = s.acquire(0);
          assertThat(admission(a)).isEqualTo("allowed HALF_OPEN PROBE generation=" + g);
          s.awaitTime(a.untilMillis());
          AcquireResult b = s.acquire(1);
          assertThat(admission(b))
              .as("node-1 reclaims the probe slot after node-0's lease expired")
              .isEqualTo("allowed HALF_OPEN PROBE generation=" + g);
          long endB = b.untilMillis();
          String half = "HALF_OPEN STALE_LEASE accepted=false transitioned=false generation=" + g;
          assertThat(recorded(s.probe(0, g, a.leaseId(), true)))
              .as("node-0's late success under its reclaimed lease")
              .isEqualTo(half);
          assertThat(recorded(s.probe(0, g, a.leaseId(), false)))
              .as("node-0's late failure under its reclaimed lease")
              .isEqualTo(half);
          assertThat(recorded(s.release(0, a.leaseId())))
              .as("node-0 gives back the lease it no longer holds")
              .isEqualTo(half);
          AcquireResult c = s.before(endB, "node-2's acquire", () -> s.acquire(2));
          assertThat(admission(c))
              .as("node-1's lease survived node-0's late results")
              .isEqualTo("rejected HALF_OPEN PROBES_BUSY generation=" + g);
          assertThat(c.untilMillis()).isEqualTo(endB);
          RecordResult reopened =
              s.before(endB, "node-1's probe", () -> s.probe(1, g, b.leaseId(), false));
          String g2 = next(g, 1);
          assertThat(recorded(reopened))
              .as("node-1's probe failure reopens")
              .isEqualTo("OPEN COUNTED accepted=true transitioned=true generation=" + g2);
          String open = "accepted=false transitioned=false generation=" + g2;
          assertThat(recorded(s.probe(0, g, a.leaseId(), true)))
              .as("node-0's late success, old lease and old generation, after the reopen")
              .isEqualTo("OPEN STALE_LEASE " + open);
          assertThat(recorded(s.success(0, g)))
              .as("node-0's late success of the old generation without its lease")
              .isEqualTo("OPEN STALE_GENERATION " + open);
          BreakerSnapshot snap = s.snapshot(1);
          assertThat(snap.number("generation")).isEqualTo(Long.parseLong(g2));
          assertThat(snap.number("openUntil"))
              .as("the open window node-1's failure set is untouched")
              .isEqualTo(reopened.openUntilMillis());
        });
  }

  // ---- C03 ----------------------------------------------------------------------------------

  @Test
  @DisplayName(
      "C03-late-result-after-lease-expired: a probe result after its lease expired is"
          + " answered LEASE_EXPIRED and counts nothing")
  void c03LateResultAfterLeaseExpired(TestInfo info) {
    run(
        info,
        s -> {
          s.policy(probing(s, 1, 2, 3));
          String g = halfOpen(s);
          BreakerSnapshot before = s.snapshot(0);
          AcquireResult a = s.acquire(0);
          assertThat(admission(a)).isEqualTo("allowed HALF_OPEN PROBE generation=" + g);
          s.awaitTime(a.untilMillis());
          String expired =
              "HALF_OPEN LEASE_EXPIRED accepted=false transitioned=false generation=" + g;
          assertThat(recorded(s.probe(0, g, a.leaseId(), false)))
              .as("node-0's probe failure after its lease expired (nobody reclaimed it)")
              .isEqualTo(expired);
          assertThat(recorded(s.probe(0, g, a.leaseId(), true)))
              .as("node-0's probe success after its lease expired")
              .isEqualTo(expired);
          BreakerSnapshot after = s.snapshot(1);
          assertThat(after.effectiveState()).isEqualTo(State.HALF_OPEN);
          assertThat(after.number("generation")).isEqualTo(Long.parseLong(g));
          assertThat(after.number("openMillis"))
              .as("the late failure did not back the window off")
              .isEqualTo(before.number("openMillis"));
          assertThat(after.number("openUntil")).isEqualTo(before.number("openUntil"));
          AcquireResult b = s.acquire(1);
          assertThat(admission(b))
              .as("the expired lease's slot is free for another node")
              .isEqualTo("allowed HALF_OPEN PROBE generation=" + g);
          assertThat(recorded(s.probe(0, g, a.leaseId(), true)))
              .as("node-0's result once the expired lease was dropped")
              .isEqualTo("HALF_OPEN STALE_LEASE accepted=false transitioned=false generation=" + g);
          RecordResult closed =
              s.before(b.untilMillis(), "node-1's probe", () -> s.probe(1, g, b.leaseId(), true));
          assertThat(recorded(closed))
              .isEqualTo("CLOSED COUNTED accepted=true transitioned=true generation=" + next(g, 1));
        });
  }

  // ---- C04 ----------------------------------------------------------------------------------

  @Test
  @DisplayName(
      "C04-stale-success-never-closes: a success without a live lease of this owner and"
          + " generation never closes a half-open breaker, nor counts toward closing it")
  void c04StaleSuccessNeverCloses(TestInfo info) {
    run(
        info,
        s -> {
          s.policy(probing(s, 2, 2, 6));
          String g = halfOpen(s);
          AcquireResult a = s.acquire(0);
          assertThat(admission(a)).isEqualTo("allowed HALF_OPEN PROBE generation=" + g);
          String halfG = " accepted=false transitioned=false generation=" + g;
          assertThat(recorded(s.success(0, g)))
              .as("a success of this generation without a lease")
              .isEqualTo("HALF_OPEN NOT_COUNTED" + halfG);
          assertThat(recorded(s.success(0, "")))
              .as("a success of an unknown generation without a lease")
              .isEqualTo("HALF_OPEN NOT_COUNTED" + halfG);
          assertThat(recorded(s.success(0, previous(g))))
              .as("a success of the generation before")
              .isEqualTo("HALF_OPEN STALE_GENERATION" + halfG);
          AcquireResult b = s.acquire(1);
          assertThat(admission(b)).isEqualTo("allowed HALF_OPEN PROBE generation=" + g);
          assertThat(recorded(s.probe(1, g, a.leaseId(), true)))
              .as("node-1 reports a success under node-0's lease")
              .isEqualTo("HALF_OPEN STALE_LEASE" + halfG);
          assertThat(recorded(s.probe(0, g, "no-such-lease", true)))
              .as("a success under a lease never granted")
              .isEqualTo("HALF_OPEN STALE_LEASE" + halfG);
          RecordResult reopened =
              s.before(
                  Math.min(a.untilMillis(), b.untilMillis()),
                  "node-1's probe",
                  () -> s.probe(1, g, b.leaseId(), false));
          String g2 = next(g, 1);
          assertThat(recorded(reopened))
              .isEqualTo("OPEN COUNTED accepted=true transitioned=true generation=" + g2);
          s.awaitTime(reopened.openUntilMillis());
          AcquireResult c = s.acquire(2);
          String g3 = next(g, 2);
          assertThat(admission(c)).isEqualTo("allowed HALF_OPEN PROBE generation=" + g3);
          String halfG3 = " accepted=false transitioned=false generation=" + g3;
          assertThat(recorded(s.probe(0, g, a.leaseId(), true)))
              .as("node-0's success under its lease of the half-open window before")
              .isEqualTo("HALF_OPEN STALE_LEASE" + halfG3);
          assertThat(recorded(s.probe(0, g3, a.leaseId(), true)))
              .as("the same old lease claimed for the current generation")
              .isEqualTo("HALF_OPEN STALE_LEASE" + halfG3);
          RecordResult first =
              s.before(c.untilMillis(), "node-2's probe", () -> s.probe(2, g3, c.leaseId(), true));
          assertThat(recorded(first))
              .as("node-2's success is the first of two: no stale success was counted")
              .isEqualTo("HALF_OPEN COUNTED accepted=true transitioned=false generation=" + g3);
          AcquireResult d = s.acquire(3);
          assertThat(admission(d)).isEqualTo("allowed HALF_OPEN PROBE generation=" + g3);
          RecordResult closed =
              s.before(d.untilMillis(), "node-3's probe", () -> s.probe(3, g3, d.leaseId(), true));
          assertThat(recorded(closed))
              .isEqualTo("CLOSED COUNTED accepted=true transitioned=true generation=" + next(g, 3));
        });
  }

  // ---- C05 ----------------------------------------------------------------------------------

  @Test
  @DisplayName(
      "C05-key-expiry-covers-open-window-and-override: no key of a breaker expires"
          + " before its open window or live override ends, nor while it is half-open")
  void c05KeyExpiryCoversOpenWindowAndOverride(TestInfo info) {
    KeyExpiry ke = keyExpiry();
    long idle = ke.idleTtl().toMillis();
    run(
        info,
        plain -> {
          CaseSteps s = plain.through(i -> ke.store());
          long window = idle + 6 * s.unit;
          s.policy(
              Policy.builder()
                  .failureThreshold(1)
                  .open(java.time.Duration.ofMillis(window))
                  .maxOpen(java.time.Duration.ofMillis(4 * window))
                  .probeLease(s.units(4))
                  .build());
          // an open window longer than the idle expiry
          RecordResult trip = s.trip(0);
          assertThat(trip.state()).isEqualTo(State.OPEN);
          ke.forwardAll(s.id);
          assertKeysOutlive(ke.ttls(s.id), trip.openUntilMillis(), idle, "the open window", s);
          // a live override longer than the idle expiry, on a closed breaker
          CaseSteps o = s.another();
          o.success(0, "");
          OverrideResult forced =
              o.override(0, OverrideKind.FORCED_OPEN, s.units(6 + idle / s.unit));
          assertThat(forced.state()).isEqualTo(State.FORCED_OPEN);
          ke.forwardAll(o.id);
          assertKeysOutlive(ke.ttls(o.id), forced.untilMillis(), idle, "the live override", o);
          // an override until cleared
          CaseSteps u = s.another();
          u.success(0, "");
          assertThat(u.override(0, OverrideKind.FORCED_CLOSED, java.time.Duration.ZERO).state())
              .isEqualTo(State.FORCED_CLOSED);
          ke.forwardAll(u.id);
          assertKeysNeverExpire(ke.ttls(u.id), "an override until cleared");
          // half-open, with a live lease
          s.awaitTime(trip.openUntilMillis());
          AcquireResult probe = s.acquire(0);
          assertThat(probe.reason().code()).isEqualTo("PROBE");
          ke.forwardAll(s.id);
          assertKeysNeverExpire(ke.ttls(s.id), "half-open");
          // closed again with every event forwarded: the keys expire when idle
          assertThat(
                  s.before(
                          probe.untilMillis(),
                          "the probe",
                          () -> s.probe(0, probe.generation(), probe.leaseId(), true))
                      .state())
              .isEqualTo(State.CLOSED);
          ke.forwardAll(s.id);
          KeyTtls idleTtls = ke.ttls(s.id);
          long hash = idleTtls.pttlMillis().get(keyOf(idleTtls, 0));
          assertThat(hash)
              .as("the state hash of an idle closed breaker expires within the idle TTL")
              .isBetween(-2L, idle)
              .isNotEqualTo(-1L);
        });
  }

  // ---- C06 ----------------------------------------------------------------------------------

  @Test
  @DisplayName(
      "C06-node-converges-after-remote-close: after one node's probe closed the breaker,"
          + " another node's acquire, read and subscription see CLOSED at the new generation")
  void c06NodeConvergesAfterRemoteClose(TestInfo info) {
    run(
        info,
        s -> {
          s.policy(probing(s, 1, 2, 4).toBuilder().failureThreshold(2).build());
          try (TransitionMessages heard = new TransitionMessages(s.store(1), s.id)) {
            assertThat(recorded(s.failure(0, "0")))
                .isEqualTo("CLOSED COUNTED accepted=true transitioned=false generation=0");
            RecordResult trip = s.failure(1, "0");
            assertThat(recorded(trip))
                .as("node-1's failure is the threshold's: it wins the trip")
                .isEqualTo("OPEN COUNTED accepted=true transitioned=true generation=1");
            s.awaitTime(trip.openUntilMillis());
            AcquireResult a = s.acquire(0);
            assertThat(admission(a)).isEqualTo("allowed HALF_OPEN PROBE generation=2");
            AcquireResult busy = s.before(a.untilMillis(), "node-1's acquire", () -> s.acquire(1));
            assertThat(admission(busy)).isEqualTo("rejected HALF_OPEN PROBES_BUSY generation=2");
            RecordResult closed =
                s.before(
                    a.untilMillis(), "node-0's probe", () -> s.probe(0, "2", a.leaseId(), true));
            assertThat(recorded(closed))
                .isEqualTo("CLOSED COUNTED accepted=true transitioned=true generation=3");
            String epoch = closed.epoch();
            assertThat(epoch).isNotEmpty();
            AcquireResult b = s.acquire(1);
            assertThat(admission(b) + " epoch=" + b.epoch())
                .as("node-1's acquire after node-0's probe closed the breaker")
                .isEqualTo("allowed CLOSED CLOSED generation=3 epoch=" + epoch);
            BreakerSnapshot snap = s.snapshot(1);
            assertThat(
                    snap.effectiveState()
                        + " stored="
                        + snap.storedState()
                        + " generation="
                        + snap.number("generation")
                        + " epoch="
                        + snap.epoch()
                        + " openUntil="
                        + snap.number("openUntil"))
                .as("node-1's read")
                .isEqualTo("CLOSED stored=CLOSED generation=3 epoch=" + epoch + " openUntil=0");
            List<String> stamps = StoreFutures.await(s.store(1).stamps(List.of(s.id)));
            assertThat(stamps)
                .as("node-1's stamp")
                .containsExactly(BreakerStore.stamp("3", epoch, "0"))
                .isEqualTo(StoreFutures.await(s.store(0).stamps(List.of(s.id))));
            List<Message> messages = heard.throughGeneration("3");
            assertThat(messages.stream().filter(m -> m.generation().equals("3")))
                .as("node-1 hears the close")
                .containsExactly(
                    new Message(epoch, "HALF_OPEN", "CLOSED", "PROBES_SUCCEEDED", "3"));
            assertThat(recorded(s.failure(1, "0")))
                .as("node-1's failure of a call admitted before the trip")
                .isEqualTo(
                    "CLOSED STALE_GENERATION accepted=false transitioned=false generation=3");
            RecordResult counted = s.failure(1, "3");
            assertThat(recorded(counted) + " window=" + counted.windowFailures())
                .as("node-1's failure in the new generation counts in an emptied window")
                .isEqualTo("CLOSED COUNTED accepted=true transitioned=false generation=3 window=1");
          }
        });
  }

  // ---- C07 ----------------------------------------------------------------------------------

  @Test
  @DisplayName(
      "C07-failover-to-empty-replica: after the store lost every key, it answers as for"
          + " a breaker never used, and a node's re-assertion restores the open window and the"
          + " override exactly once")
  void c07FailoverToEmptyReplica(TestInfo info) {
    Optional<String> why = sut.unsupported(Capability.LOSE_ALL_DATA);
    assumeTrue(why.isEmpty(), () -> "not applicable to " + sut.name() + ": " + why.orElse(""));
    run(
        info,
        s -> {
          RecordResult trip = tripForLongWindows(s);
          CaseSteps o = s.another();
          OverrideResult forced = o.override(0, OverrideKind.FORCED_OPEN, s.units(40));
          assertThat(forced.outcome().code() + " " + forced.state() + " " + forced.generation())
              .isEqualTo("SET FORCED_OPEN 1");
          CaseSteps ended = s.another();
          long lostAt = s.now();
          sut.loseAllData();
          s.before(Math.min(trip.openUntilMillis(), forced.untilMillis()), "the loss", () -> null);
          for (CaseSteps lost : List.of(s, o)) {
            BreakerSnapshot snap = lost.snapshot(1);
            assertThat(
                    "exists="
                        + snap.exists()
                        + " "
                        + snap.effectiveState()
                        + " generation="
                        + snap.number("generation"))
                .as("a read of %s after the loss", lost.id)
                .isEqualTo("exists=false CLOSED generation=0");
            AcquireResult acq = lost.acquire(1);
            assertThat(admission(acq) + " epoch=" + acq.epoch())
                .as("an acquire of %s after the loss (no keys: no epoch)", lost.id)
                .isEqualTo("allowed CLOSED CLOSED generation=0 epoch=");
          }
          // node-0 saw the trip: it puts the open window back, once
          Reassertion window =
              new Reassertion(
                  Reassertion.Mode.REASSERT,
                  State.OPEN,
                  trip.epoch(),
                  1,
                  trip.openUntilMillis(),
                  s.units(40).toMillis(),
                  TransitionCause.FAILURE_THRESHOLD,
                  1,
                  "",
                  "",
                  "");
          ReassertResult back =
              s.before(trip.openUntilMillis(), "the re-assertion", () -> s.reassert(0, window));
          assertThat(reasserted(back))
              .as("node-0 re-asserts the lost trip")
              .isEqualTo("written=true REASSERTED OPEN generation=2");
          assertThat(back.epoch()).as("a new incarnation").isNotEmpty().isNotEqualTo(trip.epoch());
          assertThat(
                  reasserted(
                      s.before(
                          trip.openUntilMillis(), "the re-assertion", () -> s.reassert(1, window))))
              .as("node-1 re-asserts the same trip after node-0")
              .isEqualTo("written=false ALREADY OPEN generation=2");
          Reassertion current = reopen(back.epoch(), 2, trip.openUntilMillis(), 0);
          assertThat(
                  reasserted(
                      s.before(
                          trip.openUntilMillis(),
                          "the re-assertion",
                          () -> s.reassert(2, current))))
              .as("a node whose view is the store's")
              .isEqualTo("written=false CURRENT OPEN generation=2");
          AcquireResult rejected =
              s.before(trip.openUntilMillis(), "the acquire", () -> s.acquire(2));
          assertThat(admission(rejected) + " until=" + rejected.untilMillis())
              .as("an acquire after the re-assertion")
              .isEqualTo("rejected OPEN OPEN generation=2 until=" + trip.openUntilMillis());
          BreakerSnapshot snap = s.snapshot(2);
          assertThat(
                  snap.storedState()
                      + " openUntil="
                      + snap.number("openUntil")
                      + " openMillis="
                      + snap.number("openMillis")
                      + " epoch="
                      + snap.epoch())
              .isEqualTo(
                  "OPEN openUntil="
                      + trip.openUntilMillis()
                      + " openMillis="
                      + s.units(40).toMillis()
                      + " epoch="
                      + back.epoch());
          // the lost override, with its expiry
          Reassertion override =
              new Reassertion(
                  Reassertion.Mode.REASSERT,
                  State.FORCED_OPEN,
                  forced.epoch(),
                  1,
                  forced.untilMillis(),
                  0,
                  TransitionCause.OVERRIDE_SET,
                  -1,
                  "operator",
                  "conformance",
                  "c-1");
          assertThat(
                  reasserted(
                      o.before(
                          forced.untilMillis(), "the re-assertion", () -> o.reassert(0, override))))
              .as("node-0 re-asserts the lost override")
              .isEqualTo("written=true REASSERTED FORCED_OPEN generation=2");
          assertThat(
                  reasserted(
                      o.before(
                          forced.untilMillis(), "the re-assertion", () -> o.reassert(1, override))))
              .as("node-1 re-asserts the same override after node-0")
              .isEqualTo("written=false ALREADY FORCED_OPEN generation=2");
          AcquireResult forcedNow =
              o.before(forced.untilMillis(), "the acquire", () -> o.acquire(2));
          assertThat(admission(forcedNow) + " until=" + forcedNow.untilMillis())
              .isEqualTo(
                  "rejected FORCED_OPEN FORCED_OPEN generation=2 until=" + forced.untilMillis());
          // a window that ended by store time goes back half-open: the fleet never saw the
          // dependency recover, so one probe per permit, never CLOSED to every caller
          Reassertion over = reopen("lost-epoch", 1, lostAt, 0);
          assertThat(reasserted(ended.reassert(0, over)))
              .as("a re-assertion of a window that ended before the store's time")
              .isEqualTo("written=true REASSERTED HALF_OPEN generation=3");
          AcquireResult probe = ended.acquire(1);
          assertThat(admission(probe)).startsWith("allowed HALF_OPEN PROBE");
          assertThat(admission(ended.acquire(2)))
              .as("one probe per permit after the re-assertion")
              .startsWith("rejected HALF_OPEN");
          // lost while half-open: probes granted then may still run, so every slot is held for
          // one lease (a prober that stops answering), then returns
          CaseSteps probing = s.another();
          Reassertion halfOpen =
              new Reassertion(
                  Reassertion.Mode.REASSERT,
                  State.OPEN,
                  "lost-epoch",
                  2,
                  lostAt,
                  0,
                  null,
                  -1,
                  "",
                  "",
                  "",
                  true);
          long heldFrom = s.now();
          assertThat(reasserted(probing.reassert(0, halfOpen)))
              .as("a re-assertion of a window lost half-open")
              .isEqualTo("written=true REASSERTED HALF_OPEN generation=4");
          AcquireResult busy = probing.acquire(1);
          assertThat(admission(busy))
              .as("no probe while the lost probes' slots are held")
              .startsWith("rejected HALF_OPEN PROBES_BUSY");
          assertThat(busy.untilMillis())
              .as("the slots return one lease after the re-assertion")
              .isBetween(heldFrom + s.units(4).toMillis(), s.now() + s.units(4).toMillis());
          probing.awaitTime(busy.untilMillis());
          assertThat(admission(probing.acquire(1)))
              .as("one probe once the held slots returned")
              .startsWith("allowed HALF_OPEN PROBE");
          assertThat(admission(probing.acquire(2))).startsWith("rejected HALF_OPEN");
        });
  }

  // ---- C08 ----------------------------------------------------------------------------------

  @Test
  @DisplayName(
      "C08-failed-probe-backs-off: each failed probe doubles the open window up to"
          + " maxOpen; a close resets it")
  void c08FailedProbeBacksOff(TestInfo info) {
    run(
        info,
        s -> {
          s.policy(
              Policy.builder()
                  .failureThreshold(1)
                  .open(s.units(1))
                  .maxOpen(s.units(3))
                  .probeLease(s.units(4))
                  .build());
          long u = s.unit;
          CaseSteps.Timed<RecordResult> trip = s.timed(() -> s.trip(0));
          assertWithin(trip.value().openUntilMillis(), trip, u, "the first open window's end");
          assertThat(s.snapshot(0).number("openMillis")).isEqualTo(u);
          long until = trip.value().openUntilMillis();
          for (long expected : new long[] {2 * u, 3 * u, 3 * u}) {
            s.awaitTime(until);
            AcquireResult a = s.acquire(0);
            assertThat(a.reason().code()).as("a probe after the window").isEqualTo("PROBE");
            CaseSteps.Timed<RecordResult> failed =
                s.timed(
                    () ->
                        s.before(
                            a.untilMillis(),
                            "the probe",
                            () -> s.probe(0, a.generation(), a.leaseId(), false)));
            assertThat(recorded(failed.value()))
                .isEqualTo(
                    "OPEN COUNTED accepted=true transitioned=true generation="
                        + next(a.generation(), 1));
            assertWithin(
                failed.value().openUntilMillis(), failed, expected, "the backed-off window's end");
            assertThat(s.snapshot(1).number("openMillis"))
                .as("the open window after a failed probe")
                .isEqualTo(expected);
            until = failed.value().openUntilMillis();
          }
          s.awaitTime(until);
          AcquireResult a = s.acquire(0);
          RecordResult closed =
              s.before(
                  a.untilMillis(),
                  "the probe",
                  () -> s.probe(0, a.generation(), a.leaseId(), true));
          assertThat(closed.state()).isEqualTo(State.CLOSED);
          assertThat(s.snapshot(0).number("openMillis")).as("closed: no open window").isZero();
          CaseSteps.Timed<RecordResult> again = s.timed(() -> s.trip(1));
          assertThat(again.value().state()).isEqualTo(State.OPEN);
          assertWithin(again.value().openUntilMillis(), again, u, "the next trip's window");
          assertThat(s.snapshot(1).number("openMillis"))
              .as("the close reset the backoff")
              .isEqualTo(u);
        });
  }

  // ---- C09 ----------------------------------------------------------------------------------

  @Test
  @DisplayName(
      "C09-at-most-half-open-permits: concurrent acquires get at most halfOpenPermits"
          + " leases per half-open window, successes count toward them, a release frees one at once")
  void c09AtMostHalfOpenPermits(TestInfo info) {
    run(
        info,
        s -> {
          s.policy(probing(s, 2, 2, 6));
          String g = halfOpen(s);
          List<AcquireResult> all =
              concurrently(s, 5, i -> s.store(i).acquire(s.id, CaseSteps.node(i), s.policy()));
          List<AcquireResult> probes = all.stream().filter(r -> r.allowed()).toList();
          long firstEnd =
              probes.stream().mapToLong(AcquireResult::untilMillis).min().orElse(Long.MAX_VALUE);
          s.before(firstEnd, "5 concurrent acquires", () -> null);
          assertThat(all.stream().map(Answers::admission))
              .as("5 concurrent acquires with halfOpenPermits 2")
              .containsExactlyInAnyOrder(
                  "allowed HALF_OPEN PROBE generation=" + g,
                  "allowed HALF_OPEN PROBE generation=" + g,
                  "rejected HALF_OPEN PROBES_BUSY generation=" + g,
                  "rejected HALF_OPEN PROBES_BUSY generation=" + g,
                  "rejected HALF_OPEN PROBES_BUSY generation=" + g);
          assertThat(new HashSet<>(probes.stream().map(AcquireResult::leaseId).toList()))
              .as("distinct lease ids")
              .hasSize(2);
          assertThat(all.stream().filter(r -> !r.allowed()).map(AcquireResult::untilMillis))
              .as("every PROBES_BUSY names the earliest lease expiry")
              .containsOnly(firstEnd);
          int p1 = all.indexOf(probes.get(0));
          int p2 = all.indexOf(probes.get(1));
          long end2 = probes.get(1).untilMillis();
          RecordResult one =
              s.before(
                  firstEnd, "the first probe", () -> s.probe(p1, g, probes.get(0).leaseId(), true));
          assertThat(recorded(one))
              .isEqualTo("HALF_OPEN COUNTED accepted=true transitioned=false generation=" + g);
          AcquireResult busy = s.before(end2, "node-5's acquire", () -> s.acquire(5));
          assertThat(admission(busy) + " until=" + busy.untilMillis())
              .as("one success and one live lease fill 2 permits")
              .isEqualTo("rejected HALF_OPEN PROBES_BUSY generation=" + g + " until=" + end2);
          assertThat(recorded(s.release(p2, probes.get(1).leaseId())))
              .as("the second prober gives its lease back")
              .isEqualTo("HALF_OPEN RELEASED accepted=true transitioned=false generation=" + g);
          assertThat(recorded(s.release(p2, probes.get(1).leaseId())))
              .as("the same release again")
              .isEqualTo("HALF_OPEN STALE_LEASE accepted=false transitioned=false generation=" + g);
          AcquireResult freed = s.acquire(6);
          assertThat(admission(freed))
              .as("an acquire right after the release")
              .isEqualTo("allowed HALF_OPEN PROBE generation=" + g);
          RecordResult closed =
              s.before(
                  freed.untilMillis(),
                  "the last probe",
                  () -> s.probe(6, g, freed.leaseId(), true));
          assertThat(recorded(closed))
              .isEqualTo("CLOSED COUNTED accepted=true transitioned=true generation=" + next(g, 1));
        });
  }

  // ---- C10 ----------------------------------------------------------------------------------

  @Test
  @DisplayName(
      "C10-one-winner-per-transition: concurrent failures trip once, concurrent"
          + " acquires end the open window once, each with exactly one message")
  void c10OneWinnerPerTransition(TestInfo info) {
    run(
        info,
        s -> {
          s.policy(probing(s, 1, 2, 6).toBuilder().failureThreshold(3).build());
          try (TransitionMessages heard = new TransitionMessages(s.store(1), s.id)) {
            List<RecordResult> failures =
                concurrently(
                    s,
                    8,
                    i ->
                        s.store(i)
                            .record(
                                s.id,
                                new io.breakerctl.runtime.store.Outcome(
                                    CaseSteps.node(i), 1, 0, -1, "0", ""),
                                s.policy()));
            assertThat(failures.stream().map(Answers::recorded))
                .as("8 concurrent failures admitted in generation 0, threshold 3")
                .containsExactlyInAnyOrder(
                    "CLOSED COUNTED accepted=true transitioned=false generation=0",
                    "CLOSED COUNTED accepted=true transitioned=false generation=0",
                    "OPEN COUNTED accepted=true transitioned=true generation=1",
                    "OPEN STALE_GENERATION accepted=false transitioned=false generation=1",
                    "OPEN STALE_GENERATION accepted=false transitioned=false generation=1",
                    "OPEN STALE_GENERATION accepted=false transitioned=false generation=1",
                    "OPEN STALE_GENERATION accepted=false transitioned=false generation=1",
                    "OPEN STALE_GENERATION accepted=false transitioned=false generation=1");
            RecordResult trip =
                failures.stream().filter(RecordResult::transitioned).findFirst().get();
            assertThat(trip.windowFailures()).as("the trip's count").isEqualTo(3);
            s.awaitTime(trip.openUntilMillis());
            List<AcquireResult> acquires =
                concurrently(s, 8, i -> s.store(i).acquire(s.id, CaseSteps.node(i), s.policy()));
            long end =
                acquires.stream()
                    .filter(AcquireResult::allowed)
                    .mapToLong(AcquireResult::untilMillis)
                    .min()
                    .orElse(Long.MAX_VALUE);
            s.before(end, "8 concurrent acquires", () -> null);
            List<String> expected = new ArrayList<>();
            expected.add("allowed HALF_OPEN PROBE generation=2");
            for (int i = 0; i < 7; i++) {
              expected.add("rejected HALF_OPEN PROBES_BUSY generation=2");
            }
            assertThat(acquires.stream().map(Answers::admission))
                .as("8 concurrent acquires once the open window ended")
                .containsExactlyInAnyOrderElementsOf(expected);
            AcquireResult p = acquires.stream().filter(AcquireResult::allowed).findFirst().get();
            int prober = acquires.indexOf(p);
            RecordResult closed =
                s.before(end, "the probe", () -> s.probe(prober, "2", p.leaseId(), true));
            assertThat(closed.generation()).isEqualTo("3");
            List<Message> messages = heard.throughGeneration("3");
            String epoch = closed.epoch();
            assertThat(messages)
                .as("one message per transition, in order")
                .containsExactly(
                    new Message(epoch, "CLOSED", "OPEN", "FAILURE_THRESHOLD", "1"),
                    new Message(epoch, "OPEN", "HALF_OPEN", "OPEN_WINDOW_ENDED", "2"),
                    new Message(epoch, "HALF_OPEN", "CLOSED", "PROBES_SUCCEEDED", "3"));
          }
        });
  }

  // ---- C11 ----------------------------------------------------------------------------------

  @Test
  @DisplayName(
      "C11-no-admission-under-forced-open: a live FORCED_OPEN rejects every node,"
          + " voids the probe leases and counts nothing; clearing it resumes the machine")
  void c11NoAdmissionUnderForcedOpen(TestInfo info) {
    run(
        info,
        s -> {
          s.policy(probing(s, 1, 2, 8));
          String g = halfOpen(s);
          AcquireResult a = s.acquire(0);
          assertThat(admission(a)).isEqualTo("allowed HALF_OPEN PROBE generation=" + g);
          CaseSteps.Timed<OverrideResult> set =
              s.timed(() -> s.override(3, OverrideKind.FORCED_OPEN, s.units(8)));
          String g2 = next(g, 1);
          assertThat(overridden(set.value()))
              .isEqualTo("changed=true SET FORCED_OPEN previous=HALF_OPEN generation=" + g2);
          long until = set.value().untilMillis();
          assertWithin(until, set, s.units(8).toMillis(), "the override's expiry");
          for (int n = 0; n < 3; n++) {
            int node = n;
            AcquireResult r = s.before(until, "an acquire", () -> s.acquire(node));
            assertThat(admission(r) + " until=" + r.untilMillis())
                .as("node-%d's acquire under FORCED_OPEN", n)
                .isEqualTo("rejected FORCED_OPEN FORCED_OPEN generation=" + g2 + " until=" + until);
          }
          String none = " accepted=false transitioned=false generation=" + g2;
          assertThat(recorded(s.before(until, "the probe", () -> s.probe(0, g, a.leaseId(), true))))
              .as("node-0's probe success under its lease from before the override")
              .isEqualTo("FORCED_OPEN STALE_LEASE" + none);
          assertThat(
                  recorded(s.before(until, "the probe", () -> s.probe(0, g2, a.leaseId(), true))))
              .as("the same lease claimed for the override's generation")
              .isEqualTo("FORCED_OPEN STALE_LEASE" + none);
          assertThat(recorded(s.before(until, "a failure", () -> s.failure(1, g2))))
              .as("a failure under FORCED_OPEN")
              .isEqualTo("FORCED_OPEN NOT_COUNTED" + none);
          assertThat(recorded(s.before(until, "a success", () -> s.success(1, g2))))
              .as("a success under FORCED_OPEN")
              .isEqualTo("FORCED_OPEN NOT_COUNTED" + none);
          OverrideResult updated =
              s.before(
                  until, "the update", () -> s.override(3, OverrideKind.FORCED_OPEN, s.units(8)));
          String g3 = next(g, 2);
          assertThat(overridden(updated))
              .isEqualTo("changed=true UPDATED FORCED_OPEN previous=FORCED_OPEN generation=" + g3);
          OverrideResult cleared =
              s.before(
                  updated.untilMillis(),
                  "the clear",
                  () -> s.override(3, OverrideKind.CLEAR, java.time.Duration.ZERO));
          String g4 = next(g, 3);
          assertThat(overridden(cleared) + " until=" + cleared.untilMillis())
              .as("clearing resumes the machine where it was: half-open")
              .isEqualTo(
                  "changed=true CLEARED HALF_OPEN previous=FORCED_OPEN generation="
                      + g4
                      + " until=0");
          assertThat(admission(s.acquire(1))).isEqualTo("allowed HALF_OPEN PROBE generation=" + g4);
          OverrideResult again = s.override(3, OverrideKind.CLEAR, java.time.Duration.ZERO);
          assertThat(overridden(again))
              .isEqualTo(
                  "changed=false NOT_OVERRIDDEN HALF_OPEN previous=HALF_OPEN generation=" + g4);
        });
  }

  // ---- C18 ----------------------------------------------------------------------------------

  @Test
  @DisplayName(
      "C18-override-keep-leaves-the-held-override: asked to keep, an override the same actor"
          + " holds with the same reason is left as it is (no write, its expiry and correlation"
          + " id kept); another reason or kind is written as without keep")
  void c18OverrideKeepLeavesTheHeldOverride(TestInfo info) {
    run(
        info,
        s -> {
          s.policy(probing(s, 1, 2, 4));
          String reason = "conformance c18";
          CaseSteps.Timed<OverrideResult> set =
              s.timed(
                  () -> s.overrideKeeping(0, OverrideKind.FORCED_OPEN, s.units(40), reason, "c-1"));
          assertThat(overridden(set.value()))
              .as("keep on a breaker no node used yet sets the override")
              .isEqualTo("changed=true SET FORCED_OPEN previous=CLOSED generation=1");
          long until = set.value().untilMillis();
          assertWithin(until, set, s.units(40).toMillis(), "the override's expiry");
          OverrideResult kept =
              s.before(
                  until,
                  "the kept override",
                  () -> s.overrideKeeping(1, OverrideKind.FORCED_OPEN, s.units(80), reason, "c-2"));
          assertThat(overridden(kept) + " until=" + kept.untilMillis())
              .as("the same override, actor and reason: unchanged, its expiry kept")
              .isEqualTo(
                  "changed=false UNCHANGED FORCED_OPEN previous=FORCED_OPEN generation=1 until="
                      + until);
          assertThat(kept.eventId()).as("no event").isEmpty();
          BreakerSnapshot read = s.before(until, "a read", () -> s.snapshot(1));
          assertThat(
                  read.overrideDetail()
                      .map(o -> o.correlationId() + " until=" + o.untilMillis())
                      .orElse("none"))
              .as("the held override's correlation id and expiry")
              .isEqualTo("c-1 until=" + until);
          OverrideResult other =
              s.before(
                  until,
                  "another reason",
                  () ->
                      s.overrideKeeping(
                          0, OverrideKind.FORCED_OPEN, s.units(40), reason + " again", "c-3"));
          assertThat(overridden(other))
              .as("another reason updates it")
              .isEqualTo("changed=true UPDATED FORCED_OPEN previous=FORCED_OPEN generation=2");
          OverrideResult kind =
              s.overrideKeeping(
                  1, OverrideKind.FORCED_CLOSED, java.time.Duration.ZERO, reason, "c-4");
          assertThat(overridden(kind) + " until=" + kind.untilMillis())
              .as("another kind sets it")
              .isEqualTo(
                  "changed=true SET FORCED_CLOSED previous=FORCED_OPEN generation=3 until=0");
          OverrideResult cleared =
              s.overrideKeeping(0, OverrideKind.CLEAR, java.time.Duration.ZERO, reason, "c-5");
          assertThat(overridden(cleared))
              .as("a clear ignores keep")
              .isEqualTo("changed=true CLEARED CLOSED previous=FORCED_CLOSED generation=4");
        });
  }

  // ---- C13 ----------------------------------------------------------------------------------

  @Test
  @DisplayName(
      "C13-live-probe-keeps-its-slot: a prober that renews its lease keeps the slot past the"
          + " lease's first expiry, and its result then still counts")
  void c13LiveProbeKeepsItsSlot(TestInfo info) {
    run(
        info,
        s -> {
          s.policy(probing(s, 1, 2, 4));
          String g = halfOpen(s);
          AcquireResult a = s.acquire(0);
          assertThat(admission(a)).isEqualTo("allowed HALF_OPEN PROBE generation=" + g);
          long endA = a.untilMillis();
          s.awaitTime(endA - s.units(2).toMillis()); // half the lease in: the call still runs
          CaseSteps.Timed<RenewResult> r =
              s.timed(() -> s.before(endA, "the renewal", () -> s.renew(0, g, a.leaseId())));
          assertThat(renewed(r.value()))
              .as("the renewal of a live lease")
              .isEqualTo("HALF_OPEN RENEWED generation=" + g);
          long endR = r.value().untilMillis();
          assertWithin(endR, r, s.units(4).toMillis(), "the renewed expiry (renewal + lease)");
          assertThat(r.value().renewals()).isEqualTo(1);
          s.awaitTime(endA);
          AcquireResult busy = s.before(endR, "node-1's acquire", () -> s.acquire(1));
          assertThat(admission(busy))
              .as("node-1's acquire after the first expiry, while the renewed lease is live")
              .isEqualTo("rejected HALF_OPEN PROBES_BUSY generation=" + g);
          assertThat(busy.untilMillis()).as("PROBES_BUSY names the renewed expiry").isEqualTo(endR);
          RecordResult failed =
              s.before(endR, "the probe's failure", () -> s.probe(0, g, a.leaseId(), false));
          assertThat(recorded(failed))
              .as("the slow probe's failure under its renewed lease reopens")
              .isEqualTo("OPEN COUNTED accepted=true transitioned=true generation=" + next(g, 1));
          assertThat(renewed(s.renew(0, g, a.leaseId())))
              .as("a renewal after the result")
              .isEqualTo("OPEN STALE_LEASE generation=" + next(g, 1));
        });
  }

  // ---- C17 ----------------------------------------------------------------------------------

  @Test
  @DisplayName(
      "C17-rewound-store-takes-the-newer-state: a store behind the caller's view (a lower"
          + " generation of the same epoch, or an older epoch) gets the newer window or override"
          + " under a new epoch, once; an older view never overwrites a newer store")
  void c17RewoundStoreTakesTheNewerState(TestInfo info) {
    run(
        info,
        s -> {
          RecordResult trip = tripForLongWindows(s);
          // node-0 saw the breaker at generation 3 with a window a failed probe doubled; the store
          // went back to generation 1 (a restart from an older RDB)
          long later = trip.openUntilMillis() + s.units(40).toMillis();
          Reassertion newer = reopen(trip.epoch(), 3, later, s.units(80).toMillis());
          ReassertResult back =
              s.before(trip.openUntilMillis(), "the re-assertion", () -> s.reassert(0, newer));
          assertThat(reasserted(back))
              .as("the newer window over the store's older one")
              .isEqualTo("written=true REASSERTED OPEN generation=4");
          assertThat(Epoch.before(trip.epoch(), back.epoch()))
              .as("a new epoch after the rewound %s: %s", trip.epoch(), back.epoch())
              .isTrue();
          assertThat(
                  reasserted(
                      s.before(
                          trip.openUntilMillis(), "the re-assertion", () -> s.reassert(1, newer))))
              .as("node-1 with the same view after node-0")
              .isEqualTo("written=false ALREADY OPEN generation=4");
          Reassertion older =
              reopen(back.epoch(), 6, trip.openUntilMillis(), s.units(40).toMillis());
          assertThat(
                  reasserted(
                      s.before(
                          trip.openUntilMillis(), "the re-assertion", () -> s.reassert(2, older))))
              .as("a view at a higher generation with an earlier window")
              .isEqualTo("written=false ALREADY OPEN generation=4");
          AcquireResult rejected =
              s.before(trip.openUntilMillis(), "the acquire", () -> s.acquire(2));
          assertThat(admission(rejected) + " until=" + (rejected.untilMillis() - later))
              .as("an acquire after the re-assertion: the newer window")
              .isEqualTo("rejected OPEN OPEN generation=4 until=0");
          BreakerSnapshot snap = s.snapshot(2);
          assertThat(
                  snap.storedState()
                      + " openMillis="
                      + snap.number("openMillis")
                      + " epoch="
                      + snap.epoch().equals(back.epoch()))
              .isEqualTo("OPEN openMillis=" + s.units(80).toMillis() + " epoch=true");
          // an incarnation the store never reached: the store's epoch is older than the view's
          Reassertion newerEpoch =
              reopen(back.epoch() + "0", 1, later + s.units(10).toMillis(), s.units(80).toMillis());
          ReassertResult fromOlder =
              s.before(trip.openUntilMillis(), "the re-assertion", () -> s.reassert(0, newerEpoch));
          assertThat(reasserted(fromOlder))
              .as("a store whose epoch is older than the view's")
              .isEqualTo("written=true REASSERTED OPEN generation=5");
          assertThat(Epoch.before(back.epoch(), fromOlder.epoch())).isTrue();
          // an override the operator extended after the snapshot: the longer one goes back
          CaseSteps o = s.another();
          OverrideResult forced = o.override(0, OverrideKind.FORCED_OPEN, s.units(40));
          assertThat(overridden(forced))
              .isEqualTo("changed=true SET FORCED_OPEN previous=CLOSED generation=1");
          long extended = forced.untilMillis() + s.units(40).toMillis();
          Reassertion longer =
              new Reassertion(
                  Reassertion.Mode.REASSERT,
                  State.FORCED_OPEN,
                  forced.epoch(),
                  2,
                  extended,
                  0,
                  TransitionCause.OVERRIDE_UPDATED,
                  -1,
                  "operator",
                  "conformance",
                  "c-15");
          ReassertResult kept =
              o.before(forced.untilMillis(), "the re-assertion", () -> o.reassert(0, longer));
          assertThat(reasserted(kept))
              .as("the extended override over the store's older one")
              .isEqualTo("written=true REASSERTED FORCED_OPEN generation=3");
          assertThat(Epoch.before(forced.epoch(), kept.epoch())).isTrue();
          AcquireResult forcedNow =
              o.before(forced.untilMillis(), "the acquire", () -> o.acquire(1));
          assertThat(admission(forcedNow) + " until=" + (forcedNow.untilMillis() - extended))
              .isEqualTo("rejected FORCED_OPEN FORCED_OPEN generation=3 until=0");
          assertThat(
                  reasserted(
                      o.before(
                          forced.untilMillis(), "the re-assertion", () -> o.reassert(1, longer))))
              .as("node-1 with the same view after node-0")
              .isEqualTo("written=false ALREADY FORCED_OPEN generation=3");
        });
  }

  // ---- C14 ----------------------------------------------------------------------------------

  @Test
  @DisplayName(
      "C14-probe-past-max-probe-reopens: a probe that held its slot maxProbeSeconds counts as"
          + " failed at its next renewal; the breaker reopens with backoff and its late result"
          + " changes nothing")
  void c14ProbePastMaxProbeReopens(TestInfo info) {
    run(
        info,
        s -> {
          Policy p = probing(s, 1, 2, 4).toBuilder().maxProbe(s.units(6)).build();
          s.policy(p);
          String g = halfOpen(s);
          AcquireResult a = s.acquire(0);
          assertThat(admission(a)).isEqualTo("allowed HALF_OPEN PROBE generation=" + g);
          long grantedAt = a.untilMillis() - s.units(4).toMillis();
          long deadline = grantedAt + s.units(6).toMillis();
          s.awaitTime(grantedAt + s.units(3).toMillis());
          RenewResult kept =
              s.before(a.untilMillis(), "the renewal", () -> s.renew(0, g, a.leaseId()));
          assertThat(renewed(kept)).isEqualTo("HALF_OPEN RENEWED generation=" + g);
          s.awaitTime(deadline);
          CaseSteps.Timed<RenewResult> late =
              s.timed(
                  () ->
                      s.before(
                          kept.untilMillis(),
                          "the renewal past maxProbe",
                          () -> s.renew(0, g, a.leaseId())));
          assertThat(renewed(late.value()))
              .as("the renewal once the probe held its slot maxProbeSeconds")
              .isEqualTo("OPEN PROBE_TIMED_OUT generation=" + next(g, 1));
          assertWithin(
              late.value().untilMillis(),
              late,
              s.units(4).toMillis(),
              "the reopened window's end (the timeout + the doubled open window)");
          assertThat(admission(s.acquire(1)))
              .as("another node's acquire in the reopened window")
              .isEqualTo("rejected OPEN OPEN generation=" + next(g, 1));
          assertThat(recorded(s.probe(0, g, a.leaseId(), true)))
              .as("the timed-out probe's late success")
              .isEqualTo(
                  "OPEN STALE_LEASE accepted=false transitioned=false generation=" + next(g, 1));
        });
  }

  // ---- C20 ----------------------------------------------------------------------------------

  @Test
  @DisplayName(
      "C20-backoff-hint-sets-the-fleet-window: one node's back-off hint opens the breaker for"
          + " the hint (not openSeconds), a shorter one changes nothing, a longer one lengthens"
          + " it, maxOpenSeconds caps it; a probe answered with a hint reopens for the hint,"
          + " not the doubled window")
  void c20BackoffHintSetsTheFleetWindow(TestInfo info) {
    run(
        info,
        s -> {
          s.policy(
              Policy.builder()
                  .failureThreshold(5)
                  .open(s.units(20))
                  .maxOpen(s.units(40))
                  .probeLease(s.units(4))
                  .build());
          long u = s.unit;
          CaseSteps.Timed<RecordResult> asked =
              s.timed(() -> s.record(0, Outcome.backoff(CaseSteps.node(0), "", "", hint(2 * u))));
          assertThat(recorded(asked.value()))
              .as("a hint alone on a CLOSED breaker, no failure counted")
              .isEqualTo("OPEN COUNTED accepted=true transitioned=true generation=1");
          assertWithin(asked.value().openUntilMillis(), asked, 2 * u, "the hint's window end");
          long until = asked.value().openUntilMillis();
          BreakerSnapshot snap = s.snapshot(1);
          assertThat(snap.backoffHint())
              .as("the hint in force, as another node reads it")
              .contains(new BackoffHint.InForce(hint(2 * u), until));
          assertThat(snap.number("winFailures")).as("nothing counted").isZero();
          assertThat(admission(s.before(until, "node-1's acquire", () -> s.acquire(1))))
              .isEqualTo("rejected OPEN OPEN generation=1");
          RecordResult shorter =
              s.before(
                  until,
                  "a shorter hint",
                  () -> s.record(2, new Outcome(CaseSteps.node(2), 1, 0, -1, "", "", hint(1))));
          assertThat(recorded(shorter))
              .as("a hint ending before the window in force")
              .isEqualTo("OPEN NOT_COUNTED accepted=false transitioned=false generation=1");
          assertThat(shorter.openUntilMillis())
              .as("the window is never shortened")
              .isEqualTo(until);
          CaseSteps.Timed<RecordResult> longer =
              s.timed(
                  () ->
                      s.before(
                          until,
                          "a longer hint",
                          () ->
                              s.record(
                                  2, Outcome.backoff(CaseSteps.node(2), "1", "", hint(4 * u)))));
          assertThat(recorded(longer.value()))
              .as("a hint ending after the window in force")
              .isEqualTo("OPEN NOT_COUNTED accepted=true transitioned=true generation=2");
          assertWithin(longer.value().openUntilMillis(), longer, 4 * u, "the lengthened end");
          CaseSteps.Timed<RecordResult> huge =
              s.timed(() -> s.record(1, Outcome.backoff(CaseSteps.node(1), "", "", hint(400 * u))));
          assertThat(recorded(huge.value())).endsWith("transitioned=true generation=3");
          assertWithin(huge.value().openUntilMillis(), huge, 40 * u, "the end capped by maxOpen");
          assertThat(s.snapshot(0).backoffHint().map(h -> h.hint().millis()))
              .as("the hint as asked, before the cap")
              .contains(400 * u);
          s.awaitTime(huge.value().openUntilMillis());
          AcquireResult probe = s.acquire(0);
          assertThat(admission(probe)).isEqualTo("allowed HALF_OPEN PROBE generation=4");
          assertThat(
                  admission(s.before(probe.untilMillis(), "node-1's acquire", () -> s.acquire(1))))
              .as("exactly one probe after the hint's window")
              .isEqualTo("rejected HALF_OPEN PROBES_BUSY generation=4");
          CaseSteps.Timed<RecordResult> answered =
              s.timed(
                  () ->
                      s.before(
                          probe.untilMillis(),
                          "the probe's answer",
                          () ->
                              s.record(
                                  0,
                                  Outcome.probe(CaseSteps.node(0), "4", probe.leaseId(), false)
                                      .withHint(hint(3 * u)))));
          assertThat(recorded(answered.value()))
              .isEqualTo("OPEN COUNTED accepted=true transitioned=true generation=5");
          assertWithin(
              answered.value().openUntilMillis(),
              answered,
              3 * u,
              "a probe answered with a hint: the hint, not the doubled window");
          assertThat(s.snapshot(1).number("openMillis"))
              .as("the base of the next doubling")
              .isEqualTo(3 * u);
        });
  }

  private static BackoffHint hint(long millis) {
    return new BackoffHint(millis, BackoffHint.Source.RETRY_AFTER);
  }

  // ---- C12 ----------------------------------------------------------------------------------

  @Test
  @DisplayName(
      "C12-override-expires-by-time: an override ends at its expiry without a command;"
          + " the first command after it records the change once, resuming the machine")
  void c12OverrideExpiresByTime(TestInfo info) {
    run(
        info,
        s -> {
          s.policy(probing(s, 1, 2, 4));
          CaseSteps.Timed<OverrideResult> set =
              s.timed(() -> s.override(0, OverrideKind.FORCED_OPEN, s.units(4)));
          assertThat(overridden(set.value()))
              .as("an override on a breaker no node used yet")
              .isEqualTo("changed=true SET FORCED_OPEN previous=CLOSED generation=1");
          long until = set.value().untilMillis();
          assertWithin(until, set, s.units(4).toMillis(), "the override's expiry");
          CaseSteps d = s.another();
          OverrideResult degraded = d.override(0, OverrideKind.FORCED_OPEN, s.units(4));
          assertThat(degraded.generation()).isEqualTo("1");
          AcquireResult r = s.before(until, "an acquire", () -> s.acquire(1));
          assertThat(admission(r)).isEqualTo("rejected FORCED_OPEN FORCED_OPEN generation=1");
          s.awaitTime(until);
          BreakerSnapshot snap = s.snapshot(1);
          assertThat(snap.effectiveState() + " generation=" + snap.number("generation"))
              .as("a read after the expiry, before any command")
              .isEqualTo("CLOSED generation=1");
          assertThat(admission(s.acquire(1)))
              .as("the first acquire after the expiry records it")
              .isEqualTo("allowed CLOSED CLOSED generation=2");
          assertThat(admission(s.acquire(2)))
              .as("a second acquire: no second transition")
              .isEqualTo("allowed CLOSED CLOSED generation=2");
          // a re-assertion is a command too: it records the expiry before it decides
          d.awaitTime(degraded.untilMillis());
          Reassertion trip0 =
              new Reassertion(
                  Reassertion.Mode.DEGRADED_TRIP,
                  State.OPEN,
                  "",
                  0,
                  d.now() + s.units(20).toMillis(),
                  s.units(20).toMillis(),
                  TransitionCause.FAILURE_THRESHOLD,
                  1,
                  "",
                  "",
                  "");
          assertThat(reasserted(d.reassert(1, trip0)))
              .as("a degraded trip published after the override expired, before any other command")
              .isEqualTo("written=true REASSERTED OPEN generation=3");
          // over an open window that ended while the override was in force
          CaseSteps w = s.another();
          RecordResult trip = w.trip(0);
          assertThat(trip.generation()).isEqualTo("1");
          CaseSteps.Timed<OverrideResult> closed =
              w.timed(
                  () ->
                      w.before(
                          trip.openUntilMillis(),
                          "the override",
                          () -> w.override(0, OverrideKind.FORCED_CLOSED, s.units(4))));
          assertThat(overridden(closed.value()))
              .isEqualTo("changed=true SET FORCED_CLOSED previous=OPEN generation=2");
          AcquireResult admitted =
              w.before(closed.value().untilMillis(), "an acquire", () -> w.acquire(1));
          assertThat(admission(admitted))
              .isEqualTo("allowed FORCED_CLOSED FORCED_CLOSED generation=2");
          w.awaitTime(Math.max(closed.value().untilMillis(), trip.openUntilMillis()));
          assertThat(admission(w.acquire(1)))
              .as("the first acquire after the override expired over an ended open window")
              .isEqualTo("allowed HALF_OPEN PROBE generation=3");
        });
  }

  // ---- C15 ----------------------------------------------------------------------------------

  @Test
  @DisplayName(
      "C15-no-destination-bounded-tail-and-idle-expiry: without a history destination the stream"
          + " keeps its 100 newest events, counts none as dropped, holds nothing, and every key"
          + " of an idle breaker is gone one idle TTL after its last write")
  void c15NoDestinationBoundedTailAndIdleExpiry(TestInfo info) {
    KeyExpiry ke = keyExpiry();
    long idle = ke.idleTtl().toMillis();
    run(
        info,
        plain -> {
          CaseSteps s = plain.through(i -> ke.store());
          s.policy(Policy.builder().failureThreshold(1).open(s.units(1)).build());
          for (int i = 0; i < 60; i++) {
            s.override(0, OverrideKind.FORCED_OPEN, java.time.Duration.ZERO);
            s.override(0, OverrideKind.CLEAR, java.time.Duration.ZERO);
          }
          tripAndClose(s);
          BreakerSnapshot tail = s.snapshot(0);
          assertThat(tail.fields())
              .as("123 events: a tail of 100, nothing dropped, no destination")
              .containsEntry("streamLength", "100")
              .doesNotContainKeys("eventsDropped", "history", "unfwdSince");
          KeyTtls ttls = ke.ttls(s.id);
          long lastWrite = ttls.storeTimeMillis();
          assertKeysExpireWithin(ttls, idle, "a closed breaker without a destination");
          s.awaitTime(lastWrite + idle + 1);
          assertThat(ke.ttls(s.id).pttlMillis().values())
              .as("every key one idle TTL after the last write")
              .containsOnly(-2L);
        });
  }

  // ---- C16 ----------------------------------------------------------------------------------

  @Test
  @DisplayName(
      "C16-hold-bound-with-destination: unforwarded events hold the keys until the history hold"
          + " ends, then the next write gives them up (counted) and the idle TTL applies again")
  void c16HoldBoundWithDestination(TestInfo info) {
    KeyExpiry ke = keyExpiry();
    long idle = ke.idleTtl().toMillis();
    run(
        info,
        plain -> {
          CaseSteps s = plain.through(i -> ke.heldStore());
          s.policy(Policy.builder().failureThreshold(1).open(s.units(1)).build());
          tripAndClose(s);
          BreakerSnapshot waiting = s.snapshot(0);
          assertThat(waiting.fields())
              .containsEntry("history", "forward")
              .containsEntry("unfwdCount", "3");
          long holdEnd = waiting.number("heldUntil");
          assertThat(holdEnd - waiting.number("unfwdSince")).isEqualTo(ke.hold().toMillis());
          KeyTtls held = ke.ttls(s.id);
          if (holdEnd - held.storeTimeMillis() <= s.unit) {
            throw new CaseSteps.Late("the expiry read came after the hold's end");
          }
          for (Map.Entry<String, Long> k : held.pttlMillis().entrySet()) {
            if (k.getValue() != -2) {
              assertThat(k.getValue())
                  .as("PTTL of %s while events wait within the hold", k.getKey())
                  .isGreaterThan(holdEnd - held.storeTimeMillis());
            }
          }
          s.awaitTime(holdEnd);
          assertThat(s.success(0, "").state()).isEqualTo(State.CLOSED);
          BreakerSnapshot given = s.snapshot(0);
          assertThat(given.fields())
              .as("the events given up: counted, the cursor past them, nothing waits")
              .containsEntry("eventsExpired", "3")
              .containsEntry("forwarded", given.fields().get("lastEvent"))
              .doesNotContainKeys("unfwdSince", "unfwdCount", "heldUntil");
          assertKeysExpireWithin(ke.ttls(s.id), idle, "after the hold");
        });
  }

  /** The store's key expiry; the case is skipped (with the reason) where it has none. */
  private KeyExpiry keyExpiry() {
    Optional<String> why = sut.unsupported(Capability.KEY_EXPIRY);
    assumeTrue(why.isEmpty(), () -> "not applicable to " + sut.name() + ": " + why.orElse(""));
    return sut.keyExpiry();
  }

  /** Trips the breaker (threshold 1) and closes it with a probe: three events. */
  private static void tripAndClose(CaseSteps s) {
    RecordResult trip = s.trip(0);
    assertThat(trip.state()).isEqualTo(State.OPEN);
    s.awaitTime(trip.openUntilMillis());
    AcquireResult probe = s.acquire(0);
    assertThat(probe.reason().code()).isEqualTo("PROBE");
    assertThat(
            s.before(
                    probe.untilMillis(),
                    "the probe",
                    () -> s.probe(0, probe.generation(), probe.leaseId(), true))
                .state())
        .isEqualTo(State.CLOSED);
  }

  // ---- helpers --------------------------------------------------------------------------------

  // ---- C19 ----------------------------------------------------------------------------------

  @Test
  @DisplayName(
      "C19-node-reports-read-back-whole: each node's report is read back as it sent it, the"
          + " fallback kinds its call sites accept included, stamped with the store's time; a"
          + " node's next report replaces its last")
  void c19NodeReportsReadBackWhole(TestInfo info) {
    run(
        info,
        s -> {
          s.policy(Policy.builder().failureThreshold(3).build());
          long before = s.now();
          s.report(0, "STATIC_DEFAULT", "session-0", "DEFERRED,CONTROLLED_FAILURE,NONE");
          s.report(1, "", "", "");
          Map<String, NodeHeartbeat> read = new java.util.TreeMap<>();
          s.reports().forEach(n -> read.put(n.node(), n));
          assertThat(read).as("a report per node").containsOnlyKeys("node-0", "node-1");
          NodeHeartbeat zero = read.get("node-0");
          assertThat(zero.accepts())
              .as("what node-0's call sites accept")
              .isEqualTo("DEFERRED,CONTROLLED_FAILURE,NONE");
          assertThat(zero.acceptedKinds())
              .containsExactlyInAnyOrder(
                  FallbackPolicy.DEFERRED, FallbackPolicy.CONTROLLED_FAILURE, FallbackPolicy.NONE);
          assertThat(zero.idleFallbacks()).isEqualTo("STATIC_DEFAULT");
          assertThat(zero.session()).isEqualTo("session-0");
          assertThat(zero.atMillis())
              .as("stamped with the store's time")
              .isGreaterThanOrEqualTo(before);
          assertThat(read.get("node-1").accepts()).as("no call site declared any").isEmpty();
          assertThat(read.get("node-1").acceptedKinds()).isEmpty();
          s.report(0, "", "session-0", "STATIC_DEFAULT,CONTROLLED_FAILURE,NONE");
          assertThat(s.reports())
              .as("node-0's next report replaces its last")
              .filteredOn(n -> n.node().equals("node-0"))
              .singleElement()
              .satisfies(
                  n -> assertThat(n.accepts()).isEqualTo("STATIC_DEFAULT,CONTROLLED_FAILURE,NONE"));
        });
  }

  /** A body of one case attempt. */
  @FunctionalInterface
  interface Body extends Consumer<CaseSteps> {}

  /**
   * Runs one case: on a fresh breaker per attempt; an attempt that proves itself late is repeated
   * with the unit doubled.
   */
  private void run(TestInfo info, Body body) {
    String caseId = info.getDisplayName().substring(0, 3).toLowerCase(java.util.Locale.ROOT);
    long unit = sut.unit().toMillis();
    List<String> late = new ArrayList<>();
    for (int attempt = 0; attempt < ATTEMPTS; attempt++, unit *= 2) {
      CaseSteps s = new CaseSteps(sut, sut::node, caseId, unit);
      try {
        body.accept(s);
        return;
      } catch (CaseSteps.Late e) {
        late.add(s + ": " + e.getMessage());
        System.out.printf(
            "%s on %s: attempt %d late, repeated with the unit doubled: %s%n",
            caseId, sut.name(), attempt + 1, e.getMessage());
      }
    }
    fail("%s on %s: every attempt ran late: %s", info.getDisplayName(), sut.name(), late);
  }

  /** A policy for probing cases: threshold 1, the given permits, open window and lease (units). */
  private static Policy probing(CaseSteps s, int permits, long openUnits, long leaseUnits) {
    return Policy.builder()
        .failureThreshold(1)
        .open(s.units(openUnits))
        .maxOpen(s.units(openUnits * 8))
        .halfOpenPermits(permits)
        .probeLease(s.units(leaseUnits))
        .build();
  }

  /** Trips the breaker and waits out its open window; returns the half-open generation ("2"). */
  private static String halfOpen(CaseSteps s) {
    RecordResult trip = s.trip(0);
    assertThat(recorded(trip))
        .as("the trip")
        .isEqualTo("OPEN COUNTED accepted=true transitioned=true generation=1");
    s.awaitTime(trip.openUntilMillis());
    return "2";
  }

  private static <T> List<T> concurrently(
      CaseSteps s, int n, java.util.function.IntFunction<CompletableFuture<T>> call) {
    List<CompletableFuture<T>> sent = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      sent.add(call.apply(i));
    }
    return sent.stream().map(StoreFutures::await).toList();
  }

  /** A node's re-assertion of the open window it saw (cause and failures unknown). */
  private static Reassertion reopen(String epoch, long generation, long until, long openMillis) {
    return new Reassertion(
        Reassertion.Mode.REASSERT,
        State.OPEN,
        epoch,
        generation,
        until,
        openMillis,
        null,
        -1,
        "",
        "",
        "");
  }

  /**
   * Threshold 1, openSeconds 40u, maxOpenSeconds 80u, lease 4u; one failure trips: {@code OPEN
   * COUNTED ... generation=1} (C07, C17).
   */
  private static RecordResult tripForLongWindows(CaseSteps s) {
    s.policy(
        Policy.builder()
            .failureThreshold(1)
            .open(s.units(40))
            .maxOpen(s.units(80))
            .probeLease(s.units(4))
            .build());
    RecordResult trip = s.trip(0);
    assertThat(recorded(trip))
        .isEqualTo("OPEN COUNTED accepted=true transitioned=true generation=1");
    return trip;
  }
}
