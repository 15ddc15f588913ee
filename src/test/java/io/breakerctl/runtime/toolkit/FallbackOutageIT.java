package io.breakerctl.runtime.toolkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.ControlUnavailableException;
import io.breakerctl.runtime.control.RestartableMongo;
import io.breakerctl.runtime.control.fallback.BusinessKeys;
import io.breakerctl.runtime.control.fallback.DeferredRequests;
import io.breakerctl.runtime.control.fallback.FallbackSnapshots;
import io.breakerctl.runtime.control.fallback.PayloadKeys;
import io.breakerctl.runtime.fallback.ControlledFailureException;
import io.breakerctl.runtime.fallback.FallbackResult;
import io.breakerctl.runtime.fallback.Fallbacks;
import io.breakerctl.runtime.fallback.Served;
import io.breakerctl.runtime.fallback.SnapshotApproval;
import io.breakerctl.runtime.fallback.SnapshotCodec;
import io.breakerctl.runtime.internal.RegistryInternals;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.FallbackPolicy;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * MongoDB stopped for real (the wire server shut down, then started again on the same data): cached
 * fallbacks answer from Redis or the node cache, a deferred submit and a status query fail at once
 * with a typed error, and MongoDB is asked at most once per node for the whole outage.
 */
@DisplayName("No fallback call waits on MongoDB")
class FallbackOutageIT {

  @RegisterExtension
  static final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);

  private static final BusinessKeys SALT = new BusinessKeys("fallback-outage-salt-01");
  private static final PayloadKeys KEYS =
      PayloadKeys.of(
          Map.of("k1", "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII)),
          "k1");
  static final SnapshotCodec<String> TEXT = SnapshotCodec.utf8();

  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
  }

  private <T extends AutoCloseable> T later(T c) {
    closing.add(c);
    return c;
  }

  private BreakerRegistry node(String name, FallbackPolicy fallback) {
    return FallbackIT.node(redis, name, fallback);
  }

  /** A node's cached fallbacks: its own snapshot store (node cache) over its registry's Redis. */
  private Fallbacks<String> cached(CircuitBreaker cb, ControlDatabase db, BreakerRegistry r) {
    return later(
        Fallbacks.<String>builder(cb)
            .cached(
                new FallbackSnapshots(db, SALT, KEYS, Clock.systemUTC())
                    .withHotCopies(r.hotSnapshots()),
                TEXT,
                Duration.ofMinutes(5),
                SnapshotApproval.AUTOMATIC)
            .build());
  }

  private static void forceOpen(BreakerRegistry r, BreakerId id) {
    RegistryInternals.store(r)
        .override(
            id,
            new OverrideRequest(
                OverrideKind.FORCED_OPEN, "test", "outage test", Duration.ofMinutes(5), ""))
        .join();
  }

  private static void noDriverException(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      assertThat(t.getClass().getName()).doesNotStartWith("com.mongodb");
    }
  }

  private static String hotKey(BreakerId id, String businessKey) {
    return "cb:{" + id + "}:fb:" + SALT.hash(businessKey);
  }

  @Test
  @DisplayName(
      "MongoDB stopped: cached fallbacks answer from Redis or the node cache, deferred calls fail at"
          + " once, MongoDB is asked at most once per node; back when it is back")
  void noCallWaitsOnMongo() throws Exception {
    RestartableMongo mongo = later(new RestartableMongo());
    var config = mongo.config("outage", Duration.ofSeconds(1));
    ControlDatabase dbA = later(ControlDatabase.connect(config));
    ControlDatabase dbB = later(ControlDatabase.connect(config));
    BreakerRegistry a = node("node-a", FallbackPolicy.CACHED);
    BreakerRegistry b = node("node-b", FallbackPolicy.CACHED);
    BreakerRegistry c = node("node-c", FallbackPolicy.DEFERRED);
    BreakerId id = BreakerId.parse("outage:members");
    BreakerId transfers = BreakerId.parse("outage:transfers");
    CircuitBreaker cbA = a.breaker(id);
    CircuitBreaker cbB = b.breaker(id);
    CircuitBreaker cbC = c.breaker(transfers);
    Clock clock = Clock.systemUTC();
    Fallbacks<String> onA = cached(cbA, dbA, a);
    Fallbacks<String> onB = cached(cbB, dbB, b);
    DeferredRequests deferred = new DeferredRequests(dbB, KEYS, clock);
    Fallbacks<String> submits =
        later(
            Fallbacks.<String>builder(cbC)
                .deferred(deferred, payload -> new String(payload, StandardCharsets.UTF_8))
                .build());

    assertThat(onA.call("member-1", () -> "gold").served()).isEqualTo(Served.DEPENDENCY);
    assertThat(onA.call("member-2", () -> "silver").served()).isEqualTo(Served.DEPENDENCY);
    Poll.until(
        Duration.ofSeconds(5),
        "both snapshots are captured and copied to Redis",
        () ->
            redis.server().call("EXISTS", hotKey(id, "member-1")).equals(1L)
                && redis.server().call("EXISTS", hotKey(id, "member-2")).equals(1L));
    assertThat((Long) redis.server().call("PTTL", hotKey(id, "member-1")))
        .isPositive()
        .isLessThanOrEqualTo(Duration.ofMinutes(5).toMillis());
    forceOpen(a, id);
    forceOpen(a, transfers);
    Poll.until(
        Duration.ofSeconds(5),
        "the nodes see the breakers forced open",
        () ->
            cbA.view().state() == State.FORCED_OPEN
                && cbB.view().state() == State.FORCED_OPEN
                && cbC.view().state() == State.FORCED_OPEN);

    mongo.stop();

    // node B never read the snapshot: Redis answers, every time
    for (int i = 0; i < 200; i++) {
      FallbackResult<String> r = onB.call("member-1", () -> "never called");
      assertThat(r.served()).isEqualTo(Served.CACHED);
      assertThat(r.value()).isEqualTo("gold");
    }
    // a key with no copy anywhere: a controlled failure naming MongoDB, never a driver exception
    for (int i = 0; i < 20; i++) {
      assertThatThrownBy(() -> onB.call("member-9", () -> "never called"))
          .isInstanceOfSatisfying(
              ControlledFailureException.class,
              e -> {
                assertThat(e.getMessage()).contains(id.toString(), "MongoDB", "unavailable");
                noDriverException(e);
              });
    }
    // the Redis copy gone: node A still has the snapshot in its node cache, node B nothing
    redis.server().call("DEL", hotKey(id, "member-2"));
    FallbackResult<String> fromCache = onA.call("member-2", () -> "never called");
    assertThat(fromCache.served()).isEqualTo(Served.CACHED);
    assertThat(fromCache.value()).isEqualTo("silver");
    assertThatThrownBy(() -> onB.call("member-2", () -> "never called"))
        .isInstanceOf(ControlledFailureException.class);

    // a deferred submit fails at once and precisely; a status query with a typed error
    for (int i = 0; i < 20; i++) {
      assertThatThrownBy(() -> submits.submit("t-1", "transfer 1".getBytes(StandardCharsets.UTF_8)))
          .isInstanceOfSatisfying(
              ControlledFailureException.class,
              e -> {
                assertThat(e.getMessage())
                    .contains(transfers.toString(), "not deferred", "MongoDB");
                noDriverException(e);
              });
      assertThatThrownBy(() -> submits.deferred("any-tracking-id"))
          .isInstanceOfSatisfying(
              ControlUnavailableException.class,
              e -> {
                assertThat(e.getMessage()).contains("MongoDB", "unavailable");
                noDriverException(e);
              });
    }
    // each node's MongoDB client waited for the outage at most once, not once per call
    assertThat(dbA.unavailableWaits()).isLessThanOrEqualTo(1);
    assertThat(dbB.unavailableWaits()).isLessThanOrEqualTo(1);
    assertThat(dbB.unavailable()).isTrue();

    mongo.start();
    Poll.until(
        Duration.ofSeconds(10), "the background check sees MongoDB back", () -> !dbB.unavailable());
    FallbackResult<String> queued =
        submits.submit("t-1", "transfer 1".getBytes(StandardCharsets.UTF_8));
    assertThat(queued.served()).isEqualTo(Served.DEFERRED);
    assertThat(submits.deferred(queued.trackingId())).isPresent();
    // a key without a snapshot: MongoDB asked again (the node remembers a miss for a second)
    Poll.until(
        Duration.ofSeconds(5),
        "MongoDB answers that member-9 has no snapshot",
        () -> {
          try {
            onB.call("member-9", () -> "never called");
            return false;
          } catch (ControlledFailureException e) {
            return e.getMessage().contains("NOT_FOUND");
          } catch (Exception e) {
            throw new AssertionError("not a controlled failure", e);
          }
        });
  }
}
