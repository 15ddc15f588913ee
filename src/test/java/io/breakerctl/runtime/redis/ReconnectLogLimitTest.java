package io.breakerctl.runtime.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.util.internal.logging.InternalLogLevel;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The reconnect log limit on a recording logger factory and an injected ticker (no server, no
 * sleep): the first lines of a window pass, the rest are counted and said with the first line of
 * the next window, at the highest level suppressed; other loggers, DEBUG and {@code off} pass all.
 */
@DisplayName("Lettuce's reconnect logging is rate-limited")
class ReconnectLogLimitTest {
  private final List<String> logged = new ArrayList<>();
  private final AtomicLong now = new AtomicLong();

  private final Recording recording = new Recording();

  /** A factory whose loggers record "LEVEL name: message" with every level enabled. */
  private final class Recording extends InternalLoggerFactory {
    InternalLogger logger(String name) {
      return newInstance(name);
    }

    @Override
    protected InternalLogger newInstance(String name) {
      return (InternalLogger)
          Proxy.newProxyInstance(
              InternalLogger.class.getClassLoader(),
              new Class<?>[] {InternalLogger.class},
              (p, m, args) -> {
                switch (m.getName()) {
                  case "name":
                    return name;
                  case "isEnabled":
                  case "isTraceEnabled":
                  case "isDebugEnabled":
                  case "isInfoEnabled":
                  case "isWarnEnabled":
                  case "isErrorEnabled":
                    return true;
                  case "log":
                    logged.add(args[0] + " " + name + ": " + format(args, 1));
                    return null;
                  default:
                    logged.add(
                        m.getName().toUpperCase(java.util.Locale.ROOT)
                            + " "
                            + name
                            + ": "
                            + format(args, 0));
                    return null;
                }
              });
    }
  }

  private static String format(Object[] args, int from) {
    String msg = String.valueOf(args[from]);
    for (int i = from + 1; i < args.length; i++) {
      Object[] values = args[i] instanceof Object[] a ? a : new Object[] {args[i]};
      for (Object v : values) {
        msg = msg.replaceFirst("\\{\\}", String.valueOf(v));
      }
    }
    return msg;
  }

  private InternalLogger logger(String spec, String name) {
    ReconnectLogLimit limit = ReconnectLogLimit.parse(spec, recording, now::get);
    return limit == null ? recording.logger(name) : limit.newInstance(name);
  }

  @Test
  @DisplayName("the first lines pass, the rest are counted and said with the next window")
  void firstLinesThenSummary() {
    InternalLogger watchdog = logger("3/60s", "io.lettuce.core.protocol.ConnectionWatchdog");
    for (int i = 0; i < 10; i++) {
      watchdog.log(InternalLogLevel.INFO, "Reconnecting, last destination was {}", "r:" + i);
      watchdog.log(InternalLogLevel.WARN, "Cannot reconnect: {}", "refused " + i);
    }
    watchdog.debug("Reconnect attempt {}, delay {}ms", 11, 200);
    assertThat(logged)
        .containsExactly(
            "INFO io.lettuce.core.protocol.ConnectionWatchdog: Reconnecting, last destination was r:0",
            "WARN io.lettuce.core.protocol.ConnectionWatchdog: Cannot reconnect: refused 0",
            "INFO io.lettuce.core.protocol.ConnectionWatchdog: Reconnecting, last destination was r:1",
            "DEBUG io.lettuce.core.protocol.ConnectionWatchdog: Reconnect attempt 11, delay 200ms");
    logged.clear();
    now.addAndGet(Duration.ofSeconds(59).toNanos());
    watchdog.info("Reconnected to {}", "r");
    assertThat(logged).as("still the same window").isEmpty();
    now.addAndGet(Duration.ofSeconds(2).toNanos());
    watchdog.info("Reconnected to {}", "r");
    assertThat(logged)
        .containsExactly(
            "WARN io.lettuce.core.protocol.ConnectionWatchdog: 18 more line(s) of"
                + " io.lettuce.core.protocol.ConnectionWatchdog suppressed in the last 61 s"
                + " (breakerctl's reconnect log limit; -Dbreakerctl.reconnectLogLimit=off shows"
                + " every line)",
            "INFO io.lettuce.core.protocol.ConnectionWatchdog: Reconnected to r");
    logged.clear();
    now.addAndGet(Duration.ofMinutes(5).toNanos());
    watchdog.info("Reconnected to {}", "r");
    assertThat(logged)
        .as("a window without suppression says nothing more")
        .containsExactly("INFO io.lettuce.core.protocol.ConnectionWatchdog: Reconnected to r");
  }

  @Test
  @DisplayName("other loggers, and every logger with the limit off, pass every line")
  void othersAndOffPassAll() {
    InternalLogger other = logger(null, "io.lettuce.core.RedisClient");
    InternalLogger off = logger("off", "io.lettuce.core.protocol.ConnectionWatchdog");
    for (int i = 0; i < 20; i++) {
      other.warn("line {}", i);
      off.warn("line {}", i);
    }
    assertThat(logged).hasSize(40);
    assertThat(ReconnectLogLimit.limited("io.lettuce.core.cluster.topology.ClusterTopologyRefresh"))
        .isTrue();
  }

  @Test
  @DisplayName("a limit that is not one is named")
  void badSpec() {
    for (String bad : new String[] {"0", "-1", "x", "5/0s", "5/soon"}) {
      assertThatThrownBy(() -> ReconnectLogLimit.parse(bad, recording, now::get))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("breakerctl.reconnectLogLimit")
          .hasMessageContaining("'" + bad + "'");
    }
    assertThat(ReconnectLogLimit.parse("20/30s", recording, now::get)).isNotNull();
  }
}
