package io.breakerctl.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.StoreFutures;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@link EventAudit}: a server's close fails on an event that is not a row of the table. */
@DisplayName("Every event on a test Redis server is checked against the transition table at close")
class EventAuditIT {

  @Test
  @DisplayName("the scripts' own events pass; the server closes")
  void scriptEventsPass() {
    RedisServerProcess server = RedisServerProcess.start(RedisBinary.embedded());
    try (RedisFleetStore store =
        RedisFleetStore.connect(
            StoreConfig.builder().uri(server.uri()).timeout(Duration.ofSeconds(5)).build())) {
      Policy p = Policy.builder().failureThreshold(1).build();
      StoreFutures.await(store.record(BreakerId.parse("a:b"), Outcome.failure("n1", ""), p));
      assertThat((Long) server.call("XLEN", "cb:{a:b}:ev")).isEqualTo(1L);
      assertThat(EventAudit.illegalEvents(server)).isEmpty();
    }
    server.close();
    assertThat(server.isAlive()).isFalse();
  }

  @Test
  @DisplayName("an illegal transition or an unknown cause fails the close, which still stops it")
  void illegalEventsFail() {
    RedisServerProcess server = RedisServerProcess.start(RedisBinary.embedded());
    server.call(
        "XADD", "cb:{a:b}:ev", "*", "from", "CLOSED", "to", "CLOSED", "cause", "FAILURE_THRESHOLD");
    server.call("XADD", "other:{c:d}:ev", "*", "from", "CLOSED", "to", "OPEN", "cause", "WON_HERE");
    server.call(
        "XADD", "cb:{e:f}:ev", "*", "from", "CLOSED", "to", "OPEN", "cause", "FAILURE_RATE");

    assertThat(EventAudit.illegalEvents(server))
        .hasSize(2)
        .anySatisfy(
            s ->
                assertThat(s)
                    .startsWith("cb:{a:b}:ev ")
                    .endsWith("CLOSED>CLOSED FAILURE_THRESHOLD"))
        .anySatisfy(
            s -> assertThat(s).startsWith("other:{c:d}:ev ").endsWith("CLOSED>OPEN WON_HERE"));
    assertThatThrownBy(server::close)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("2 event(s) that are not rows of the transition table")
        .hasMessageContaining("WON_HERE");
    assertThat(server.isAlive()).isFalse();
  }

  @Test
  @DisplayName("a stream longer than one page is read whole")
  void pagesThroughLongStreams() {
    try (RedisServerProcess server = RedisServerProcess.start(RedisBinary.embedded())) {
      for (int i = 0; i < 1_500; i++) {
        server.call(
            "XADD",
            "cb:{a:b}:ev",
            "*",
            "from",
            "CLOSED",
            "to",
            "OPEN",
            "cause",
            "FAILURE_THRESHOLD");
      }
      server.call(
          "XADD", "cb:{a:b}:ev", "*", "from", "OPEN", "to", "CLOSED", "cause", "FAILURE_THRESHOLD");
      assertThat(EventAudit.illegalEvents(server))
          .singleElement()
          .asString()
          .endsWith("OPEN>CLOSED FAILURE_THRESHOLD");
      server.call("DEL", "cb:{a:b}:ev");
    }
  }
}
