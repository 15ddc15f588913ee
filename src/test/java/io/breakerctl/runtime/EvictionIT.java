package io.breakerctl.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.redis.BreakerKeys;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Redis with {@code maxmemory}, shared with a cache that fills it, evicts a tripped HYBRID
 * breaker's hash while a client keeps the canary hot (as a fleet does: every node reads it every
 * check, so it is almost never the one evicted; the hash, read only at transitions, is the coldest
 * key; here {@code volatile-lru} with a TTL on the hash makes it the one evicted, every run). The
 * nodes compare the stamps of the breakers they hold away from CLOSED at every check, so the trip
 * is put back within about one {@code checkInterval} (3 s here), long before its window ends (it
 * used to come back only then, read as CLOSED, or at the 60 s sweep); and across the window's end
 * at most one probe (halfOpenPermits 1) reaches the failing dependency.
 */
@DisplayName("An evicted tripped breaker is put back within the check interval")
class EvictionIT {
  private static final Duration OPEN = Duration.ofSeconds(15);

  /** The nodes' check interval. */
  private static final Duration CHECK = Duration.ofSeconds(3);

  @RegisterExtension final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);

  @Test
  void evictedTripComesBack() throws Exception {
    Policy policy =
        Policy.builder()
            .failureThreshold(2)
            .open(OPEN)
            .halfOpenPermits(1)
            .probeLease(Duration.ofSeconds(30))
            .build();
    BreakerId id = BreakerId.parse("evict:dep");
    List<CircuitBreaker> nodes = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      nodes.add(
          redis
              .manage(
                  BreakerRegistry.builder()
                      .redisUri(redis.uri())
                      .nodeId("evict-" + i)
                      .mode(Mode.HYBRID)
                      .defaults(policy)
                      .checkInterval(CHECK)
                      // the sweep (every stamp) would find it too, at its own phase: out of the way
                      .sweepInterval(Duration.ofMinutes(10))
                      .build())
              .breaker(id));
    }
    BreakerKeys keys = BreakerKeys.withPrefix(BreakerKeys.DEFAULT_PREFIX);
    String hash = keys.hash(id);
    String canary = keys.prefix() + ":canary";
    RedisClient client = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<String, String> c = client.connect();
        StatefulRedisConnection<String, String> hot = client.connect()) {
      RedisCommands<String, String> r = c.sync();
      Outage.trip(nodes, 2);
      long windowEnd = Long.parseLong(r.hget(hash, "openUntil"));
      assertThat(r.exists(canary)).as("the canary exists").isEqualTo(1);

      AtomicBoolean running = new AtomicBoolean(true);
      // a fleet reads the canary many times a second
      Thread reader =
          daemon(
              () -> {
                while (running.get()) {
                  hot.sync().get(canary);
                  Fleet.sleep(1);
                }
              });
      Outage outage = Outage.callers(nodes, OPEN.plusSeconds(20));
      List<Long> admitted = outage.admittedAt;
      try {
        // a cache fills Redis until the breaker's hash is evicted. Which key an allkeys-lru or
        // allkeys-lfu Redis picks is a sample (with a cache's many keys written in the last
        // second, the canary went as often as the hash, and under load LFU kept the hash for
        // 100,000 writes), so the test makes the choice certain: volatile-lru evicts only keys
        // with a TTL, and the tripped hash is given one (as an idle CLOSED breaker's keys carry).
        // The nodes see what they would see after any eviction: the hash gone, the canary there
        long used = Long.parseLong(field(r.info("memory"), "used_memory"));
        r.pexpire(hash, Duration.ofHours(1).toMillis());
        r.configSet("maxmemory", Long.toString(used + 256 * 1024));
        r.configSet("maxmemory-policy", "volatile-lru");
        String value = "x".repeat(1024);
        long evictedAt = 0;
        for (int i = 0; i < 2_000 && evictedAt == 0; i++) {
          try {
            r.set("cache:" + i, value);
          } catch (io.lettuce.core.RedisCommandExecutionException e) {
            // -OOM: the write that evicted the last key with a TTL still found Redis over its
            // limit (client buffers count too); the hash went with it
            assertThat(e.getMessage()).startsWith("OOM");
          }
          if (r.exists(hash) == 0) {
            evictedAt = System.currentTimeMillis();
          }
        }
        // the cache stops growing (no key left to evict, the next writes would be refused)
        r.configSet("maxmemory", "0");
        assertThat(evictedAt).as("the breaker's hash was evicted").isPositive();
        assertThat(r.exists(canary)).as("the hot canary was kept").isEqualTo(1);
        assertThat(evictedAt)
            .as("evicted well before the window's end (else the test shows nothing)")
            .isLessThan(windowEnd - 5_000);

        Poll.until(
            CHECK.plusSeconds(2),
            "the trip is put back within about one check interval",
            () -> "OPEN".equals(r.hget(hash, "state")));
        long back = System.currentTimeMillis() - evictedAt;
        System.out.printf("eviction: trip put back %d ms after the hash was evicted%n", back);
        assertThat(System.currentTimeMillis())
            .as("put back before the window's end")
            .isLessThan(windowEnd);
        assertThat(r.hget(hash, "openUntil"))
            .as("the same window")
            .isEqualTo(Long.toString(windowEnd));
        assertThat(admitted).as("no call while the window runs").isEmpty();

        // across the window's end: one probe, which fails and reopens the breaker
        Poll.until(
            OPEN.plusSeconds(10),
            "the probe after the window",
            () -> !admitted.isEmpty() && "OPEN".equals(r.hget(hash, "state")));
        Fleet.sleep(500);
        assertThat(admitted)
            .as("calls that reached the failing dependency across the window's end")
            .hasSize(1);
      } finally {
        running.set(false);
        outage.close();
        reader.join(2_000);
      }
    } finally {
      client.shutdown();
    }
  }

  private static Thread daemon(Runnable body) {
    Thread t = new Thread(body);
    t.setDaemon(true);
    t.start();
    return t;
  }

  private static String field(String info, String name) {
    for (String line : info.split("\r?\n")) {
      if (line.startsWith(name + ":")) {
        return line.substring(name.length() + 1).trim();
      }
    }
    throw new IllegalStateException(name + " not in INFO");
  }
}
