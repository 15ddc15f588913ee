package io.breakerctl.runtime.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.testing.ChildJvm;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Client clocks skewed by hours change nothing: the scripts take time only from Redis. The clients
 * run in child JVMs under libfaketime (Debian package {@code faketime}); where it is not installed
 * the test is skipped, and {@code LuaScriptsTest} still checks statically that no script reads time
 * other than {@code redis.call('TIME')}.
 */
@DisplayName("Skewed client clocks change nothing")
class ClockSkewIT {

  @RegisterExtension
  static final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);

  private static final Path FAKETIME =
      Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1");
  private static final Pattern LINE =
      Pattern.compile("skewMillis=(-?\\d+) trip=(\\w+) openForMillis=(\\d+)");

  @ParameterizedTest(name = "client clock {0}")
  @ValueSource(strings = {"+2h", "-2h"})
  void skewedClient(String offset) {
    assumeTrue(Files.isReadable(FAKETIME), "libfaketime not installed (apt-get install faketime)");
    BreakerId id = StoreTarget.freshId("skew");
    ChildJvm child =
        redis.manage(
            ChildJvm.start(
                Map.of(
                    "LD_PRELOAD",
                    FAKETIME.toString(),
                    "FAKETIME",
                    offset,
                    "FAKETIME_DONT_FAKE_MONOTONIC",
                    "1"),
                List.of(),
                SkewedClientMain.class,
                redis.uri(),
                id.toString()));

    assertThat(child.waitFor(Duration.ofSeconds(60))).as("stderr %s", child.stderr()).isZero();
    Matcher m =
        child.stdout().stream()
            .map(LINE::matcher)
            .filter(Matcher::matches)
            .findFirst()
            .orElseThrow(() -> new AssertionError("no result line in " + child.stdout()));

    long skew = Long.parseLong(m.group(1));
    assertThat(Math.abs(skew)).as("the child's clock really is skewed").isGreaterThan(3_600_000);
    assertThat(m.group(2)).isEqualTo("OPEN");
    assertThat(Long.parseLong(m.group(3)))
        .as("the open window lasted 500 ms of Redis time")
        .isBetween(500L, 3_000L);
  }
}
