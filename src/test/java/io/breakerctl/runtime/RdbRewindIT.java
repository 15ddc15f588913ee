package io.breakerctl.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Epoch;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.BreakerKeys;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Redis goes back in time: restarted from an RDB snapshot taken before a failed probe reopened the
 * breaker (a crash between {@code save} snapshots, a restore from backup). The snapshot holds the
 * trip's generation with its first window, which has ended, so Redis would grant a probe at once
 * (it used to: 1-2 probes per breaker about 43 s early, and the nodes adopted the older state). The
 * nodes that saw the reopened window (two HYBRID, one SHARED) put it back instead, under a new
 * epoch (reassert.lua, "Back in time"), and no call reaches the failing dependency before the
 * reopened window ends; after it, one probe per permit. Every admission is timed on this host's
 * clock, which Redis shares, so the bounds hold however the machine is loaded.
 */
@DisplayName("Redis restarted from an older RDB: the reopened window holds, under a new epoch")
class RdbRewindIT {
  private static final Duration OPEN = Duration.ofSeconds(3);

  @RegisterExtension final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);

  @Test
  void reopenedWindowSurvivesTheRewind() throws Exception {
    Policy policy =
        Policy.builder()
            .failureThreshold(2)
            .open(OPEN)
            .maxOpen(Duration.ofSeconds(60))
            .halfOpenPermits(1)
            .probeLease(Duration.ofSeconds(30))
            .build();
    BreakerId id = BreakerId.parse("rewind:dep");
    List<CircuitBreaker> nodes = new ArrayList<>();
    Mode[] modes = {Mode.HYBRID, Mode.HYBRID, Mode.SHARED};
    for (int i = 0; i < modes.length; i++) {
      nodes.add(
          redis
              .manage(
                  BreakerRegistry.builder()
                      .redisUri(redis.uri())
                      .nodeId("rewind-" + i)
                      .mode(modes[i])
                      .defaults(policy)
                      .commandTimeout(Duration.ofMillis(500))
                      .checkInterval(Duration.ofSeconds(1))
                      .build())
              .breaker(id));
    }
    BreakerKeys keys = BreakerKeys.withPrefix(BreakerKeys.DEFAULT_PREFIX);
    String hash = keys.hash(id);
    RedisClient client = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      RedisCommands<String, String> r = c.sync();
      Outage.trip(nodes, 2);
      assertThat(r.hget(hash, "generation")).isEqualTo("1");
      String firstWindowEnd = r.hget(hash, "openUntil");
      assertThat(r.save()).as("the snapshot of the trip").isEqualTo("OK");

      try (Outage outage = Outage.callers(nodes, Duration.ofSeconds(60))) {
        List<Long> admittedAt = outage.admittedAt;
        // the first window ends: one probe, which fails and reopens the breaker for twice as long
        Poll.until(
            OPEN.plusSeconds(10),
            "the failed probe reopened the breaker",
            () -> "OPEN".equals(r.hget(hash, "state")) && "3".equals(r.hget(hash, "generation")));
        long reopenedUntil = Long.parseLong(r.hget(hash, "openUntil"));
        String epoch = r.hget(hash, "epoch");
        Poll.until(
            Duration.ofSeconds(5),
            "every node sees the reopened window",
            () ->
                nodes.stream()
                    .allMatch(
                        cb ->
                            cb.view().state() == State.OPEN && "3".equals(cb.view().generation())));
        assertThat(admittedAt).as("the one probe after the first window").hasSize(1);

        long restartedAt = System.currentTimeMillis();
        redis.server().restart(); // SHUTDOWN NOSAVE, then start: it loads the snapshot
        assertThat(System.currentTimeMillis())
            .as("restarted before the reopened window ends (else the test shows nothing)")
            .isLessThan(reopenedUntil - 1_000);
        Poll.until(
            Duration.ofSeconds(10),
            "a node put the reopened window back",
            () -> {
              Map<String, String> h;
              try {
                h = r.hgetall(hash);
              } catch (RedisException e) {
                return false; // the test's own connection still reconnecting
              }
              return "OPEN".equals(h.get("state"))
                  && Long.toString(reopenedUntil).equals(h.get("openUntil"))
                  && !epoch.equals(h.get("epoch"));
            });
        String newEpoch = r.hget(hash, "epoch");
        System.out.printf(
            "rdb rewind: window put back %d ms after the restart began, %d ms before its end%n",
            System.currentTimeMillis() - restartedAt, reopenedUntil - System.currentTimeMillis());
        assertThat(Epoch.before(epoch, newEpoch)).as("a new epoch after " + epoch).isTrue();
        assertThat(Long.parseLong(r.hget(hash, "generation")))
            .as("generations above every one issued before the rewind")
            .isGreaterThan(3);
        List<StreamMessage<String, String>> events = r.xrange(keys.events(id), allIds());
        StreamMessage<String, String> reasserted =
            events.stream()
                .filter(m -> "REASSERTED".equals(m.getBody().get("cause")))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no REASSERTED event in " + events));
        assertThat(reasserted.getBody())
            .as("the re-assertion in the stream")
            .containsEntry("epoch", newEpoch)
            .containsEntry("lostEpoch", epoch)
            .containsEntry("lostGeneration", "3")
            .containsEntry("from", "HALF_OPEN")
            .containsEntry("to", "OPEN")
            .containsEntry("until", Long.toString(reopenedUntil));

        // after the reopened window: one probe (it fails and reopens the breaker again)
        Poll.until(
            Duration.ofMillis(reopenedUntil - System.currentTimeMillis()).plusSeconds(10),
            "the probe after the reopened window",
            () -> admittedAt.size() > 1);
        Fleet.sleep(500);
        outage.close();
        List<Long> after = admittedAt.subList(1, admittedAt.size());
        assertThat(after)
            .as(
                "calls that reached the failing dependency after the restart (the first window"
                    + " ended at %s, the reopened one at %d)",
                firstWindowEnd, reopenedUntil)
            .hasSize(1)
            .allSatisfy(at -> assertThat(at).isGreaterThanOrEqualTo(reopenedUntil));
      }
    } finally {
      client.shutdown();
    }
  }

  private static io.lettuce.core.Range<String> allIds() {
    return io.lettuce.core.Range.create("-", "+");
  }
}
