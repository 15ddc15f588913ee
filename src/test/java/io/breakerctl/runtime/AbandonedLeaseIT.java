package io.breakerctl.runtime;

import static io.breakerctl.runtime.store.StoreFutures.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.AdmissionReason;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.BreakerEvent;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A probe lease nobody holds must not hold up the fleet's recovery for the lease's expiry
 * (probeLeaseMillis, 10 s here as by default). Two ways a node used to leave one behind: an acquire
 * that timed out for the node while Redis stalled, but that Redis ran afterwards and granted (seen
 * in 2 of 6 runs of a 20-node fleet on a loaded 2-core machine: the breaker sat HALF_OPEN for 10 s
 * with a healthy dependency); and a probe whose outcome counts neither way (IGNORED). The node now
 * names the lease it asks for and gives it back (a record with the lease and no outcome).
 */
@DisplayName("A probe lease nobody holds is given back, not left to expire")
class AbandonedLeaseIT {

  @RegisterExtension final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);

  private static final AtomicInteger SEQ = new AtomicInteger();
  private static final Duration TIMEOUT = Duration.ofMillis(50);
  private static final long OPEN_MILLIS = 1000;
  private static final Policy POLICY =
      Policy.builder()
          .failureThreshold(1)
          .open(Duration.ofMillis(OPEN_MILLIS))
          .halfOpenPermits(1)
          .probeLease(Duration.ofSeconds(10))
          .build();

  private BreakerRegistry node(String name, Mode mode) {
    return redis.manage(
        BreakerRegistry.builder()
            .redisUri(redis.uri())
            .nodeId(name)
            .mode(mode)
            .defaults(POLICY)
            .commandTimeout(TIMEOUT)
            .build());
  }

  /** Trips {@code cb} with one failure and waits until Redis holds it OPEN. */
  private static long trip(CircuitBreaker cb, RedisFleetStore store) {
    Permission p = cb.tryAcquire();
    assertThat(p.allowed()).isTrue();
    p.onFailure(new RuntimeException("dependency down"), 1_000_000);
    long deadline = System.currentTimeMillis() + 5_000;
    while (System.currentTimeMillis() < deadline) {
      BreakerSnapshot s = await(store.state(cb.id()));
      if (s.storedState() == State.OPEN) {
        return s.number("openUntil");
      }
      Fleet.sleep(5);
    }
    throw new AssertionError("the breaker did not trip");
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(
      value = Mode.class,
      names = {"HYBRID", "SHARED"})
  @DisplayName(
      "an acquire that times out in a stall at the window end, and is granted after it, does not"
          + " keep the fleet half-open for the lease's 10 s")
  void timedOutAcquire(Mode mode) {
    BreakerId id = BreakerId.parse("abandoned:stall-" + SEQ.incrementAndGet());
    CircuitBreaker cb = node("stalled-" + mode, mode).breaker(id);
    try (RedisFleetStore store =
        RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build())) {
      long firstUntil = trip(cb, store);
      Fleet.sleep(firstUntil + 20 - System.currentTimeMillis());
      // a first probe fails and reopens the breaker for a doubled window; this node has then asked
      // Redis since the trip and its next acquire goes out in full (not the lean closed-path
      // form, which never grants a lease)
      Permission first = cb.tryAcquire();
      assertThat(first.reason()).isEqualTo(AdmissionReason.PROBE);
      first.onFailure(new RuntimeException("still down"), 1_000_000);
      long openUntil = firstUntil;
      long reopened = System.currentTimeMillis() + 5_000;
      while (openUntil == firstUntil && System.currentTimeMillis() < reopened) {
        BreakerSnapshot s = await(store.state(id));
        if (s.storedState() == State.OPEN) {
          openUntil = s.number("openUntil");
        }
        Fleet.sleep(5);
      }
      assertThat(openUntil).as("reopened by the failed probe").isGreaterThan(firstUntil);
      Fleet.sleep(openUntil + 20 - System.currentTimeMillis());
      // Redis stops serving as the window ends: the node's acquire waits past its 50 ms timeout;
      // Redis runs it when the pause ends, and a lease is then granted to this node
      redis.server().pause(Duration.ofMillis(300));
      long pausedAt = System.currentTimeMillis();
      long start = System.nanoTime();
      Permission p = cb.tryAcquire();
      long waited = (System.nanoTime() - start) / 1_000_000;
      assertThat(p.allowed()).as("decided without an answer").isFalse();
      assertThat(p.reason()).isEqualTo(AdmissionReason.NO_LEASE);
      assertThat(waited).as("the acquire waited for its timeout (ms)").isGreaterThanOrEqualTo(45);
      long resumedAt = pausedAt + 300;
      // the node then calls every 20 ms against a healthy dependency until Redis holds it CLOSED
      long deadline = resumedAt + 9_000;
      int probes = 0;
      State stored = State.HALF_OPEN;
      while (System.currentTimeMillis() < deadline) {
        stored = await(store.state(id)).storedState();
        if (stored == State.CLOSED) {
          break;
        }
        Permission q = cb.tryAcquire();
        if (q.allowed()) {
          probes++;
          q.onSuccess(1_000_000);
        }
        Fleet.sleep(20);
      }
      long closedAfter = System.currentTimeMillis() - resumedAt;
      assertThat(stored).as("closed by a probe, not stuck half-open").isEqualTo(State.CLOSED);
      // the node's own degradation (a fresh local open window of 1 s after the stall) and its
      // recovery come first; the lease's expiry would be 10 s
      // (about 1-2 s; a figure of the machine, printed): what must hold is that a probe closed it
      // before the abandoned lease's 10 s expiry could have
      System.out.printf("closed %d ms after the stall's end, %d probes%n", closedAfter, probes);
      assertThat(closedAfter)
          .as("ms from the stall's end to CLOSED (the lease's expiry would be 10 s)")
          .isLessThan(9_000);
      assertThat(probes).as("calls admitted until closed").isBetween(1, 2);
      assertThat(await(store.eventsAfter(id, "", 20)))
          .as("the stalled acquire ran in Redis after the pause (its settle ended the window)")
          .anySatisfy(
              e -> {
                assertThat(e.cause()).isEqualTo(TransitionCause.OPEN_WINDOW_ENDED);
                assertThat(e.atMillis()).isGreaterThan(pausedAt + 200);
              });
      BreakerEvent closed =
          await(store.eventsAfter(id, "", 20)).stream()
              .filter(e -> e.cause() == TransitionCause.PROBES_SUCCEEDED)
              .findFirst()
              .orElseThrow();
      assertThat(closed.field("lease")).as("a lease named by the node").contains("-");
    }
  }

  @Test
  @DisplayName("a probe whose outcome is ignored gives its lease back: another node probes at once")
  void ignoredProbe() {
    BreakerId id = BreakerId.parse("abandoned:ignored-" + SEQ.incrementAndGet());
    CircuitBreaker a = node("ignoring", Mode.HYBRID).breaker(id);
    CircuitBreaker b = node("other", Mode.HYBRID).breaker(id);
    try (RedisFleetStore store =
        RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build())) {
      long openUntil = trip(a, store);
      Fleet.sleep(openUntil + 20 - System.currentTimeMillis());
      Permission probe = a.tryAcquire();
      assertThat(probe.allowed()).isTrue();
      assertThat(probe.reason()).isEqualTo(AdmissionReason.PROBE);
      assertThat(await(store.snapshot(id, 0)).liveLeases()).hasSize(1);
      probe.onIgnored();
      long deadline = System.currentTimeMillis() + 2_000;
      while (!await(store.snapshot(id, 0)).liveLeases().isEmpty()
          && System.currentTimeMillis() < deadline) {
        Fleet.sleep(5);
      }
      assertThat(await(store.snapshot(id, 0)).liveLeases()).as("the lease went back").isEmpty();
      Permission other = b.tryAcquire();
      assertThat(other.allowed()).as("another node probes within the lease's 10 s").isTrue();
      assertThat(other.reason()).isEqualTo(AdmissionReason.PROBE);
      other.onSuccess(1_000_000);
    }
  }
}
