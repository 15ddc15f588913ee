package io.breakerctl.runtime.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.testing.ChildJvm;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisServerProcess;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Lettuce's reconnect logging with the Redis of a service JVM killed (issue 42, item 6): two
 * service JVMs with 8 connections each, one with the default limit (5 lines a minute per logger),
 * one with {@code -Dbreakerctl.reconnectLogLimit=off}. Each watchdog's first attempt logs
 * "Reconnecting" at INFO, so 8 connections make at least 8 such lines: the unlimited JVM shows them
 * all; the limited one at most 5 per logger, however many attempts its watchdogs made (counted by
 * their DEBUG lines, which the limit leaves alone). The observation ends long before the minute's
 * window.
 */
@DisplayName("Lettuce's reconnect logging is bounded when Redis goes away")
class ReconnectLogIT {
  private static final int CONNECTIONS = 8;

  @Test
  void boundedWhileRedisIsGone() throws Exception {
    RedisServerProcess redis = RedisServerProcess.start(RedisBinary.embedded());
    try (redis;
        ChildJvm limited = service(redis, List.of());
        ChildJvm unlimited = service(redis, List.of("-Dbreakerctl.reconnectLogLimit=off"))) {
      for (ChildJvm c : List.of(limited, unlimited)) {
        Poll.until(
            Duration.ofSeconds(30),
            "the service connected: " + c.stderr(),
            () -> c.stdout().contains("ready"));
      }
      redis.kill();
      // at least three attempts per connection, in each JVM
      for (ChildJvm c : List.of(limited, unlimited)) {
        Poll.until(
            Duration.ofSeconds(30),
            "the watchdogs retried: " + c.stderr(),
            () -> attempts(c) >= 3 * CONNECTIONS);
      }
      Map<String, Integer> shown = infoAndAbove(limited);
      Map<String, Integer> all = infoAndAbove(unlimited);
      System.out.printf(
          "attempts %d / %d; lines at INFO+ limited %s, unlimited %s%n",
          attempts(limited), attempts(unlimited), shown, all);
      assertThat(all.values().stream().mapToInt(Integer::intValue).sum())
          .as("without the limit, each watchdog's first attempt logs at INFO: " + all)
          .isGreaterThanOrEqualTo(CONNECTIONS);
      assertThat(shown).as("the watchdog's lines reach the log").isNotEmpty();
      shown.forEach(
          (logger, n) -> assertThat(n).as(logger + ": " + limited.stderr()).isLessThanOrEqualTo(5));
    }
  }

  private static ChildJvm service(RedisServerProcess redis, List<String> jvmArgs) {
    return ChildJvm.start(
        jvmArgs, ReconnectLogMain.class, redis.uri(), Integer.toString(CONNECTIONS));
  }

  /** The watchdogs' reconnect attempts so far (their DEBUG lines, logged as FINE). */
  private static long attempts(ChildJvm c) {
    return List.copyOf(c.stderr()).stream()
        .filter(l -> l.startsWith("FINE ") && l.contains("Reconnect attempt"))
        .count();
  }

  /** Lines at INFO and above from Lettuce's reconnect loggers, by logger. */
  private static Map<String, Integer> infoAndAbove(ChildJvm c) {
    Map<String, Integer> by = new TreeMap<>();
    for (String l : List.copyOf(c.stderr())) {
      String[] w = l.split(" ", 3);
      if (w.length == 3
          && (w[0].equals("INFO") || w[0].equals("WARNING") || w[0].equals("SEVERE"))
          && ReconnectLogLimit.limited(w[1])) {
        by.merge(w[1], 1, Integer::sum);
      }
    }
    return by;
  }
}
