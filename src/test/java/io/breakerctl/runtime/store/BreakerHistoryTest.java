package io.breakerctl.runtime.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.store.BreakerHistory.Destination;
import io.breakerctl.runtime.store.BreakerHistory.Held;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Where a breaker's history goes and what holds its keys, read from its hash alone. */
@DisplayName("BreakerHistory: destination and hold from the hash")
class BreakerHistoryTest {
  static final long NOW = 1_800_000_000_000L;

  private static BreakerHistory of(Map<String, String> fields) {
    Map<String, String> f = new LinkedHashMap<>();
    f.put("epoch", "1");
    f.put("state", "CLOSED");
    f.putAll(fields);
    return new BreakerSnapshot(BreakerId.parse("h:t"), f, List.of(), List.of(), List.of(), NOW)
        .history();
  }

  @Test
  void noDestination() {
    BreakerHistory h = of(Map.of("lastEvent", "5-0", "streamLength", "100"));
    assertThat(h.destination()).isEqualTo(Destination.NOT_KEPT);
    assertThat(h.held()).isEqualTo(Held.NONE);
    assertThat(h.unforwarded()).isZero();
    assertThat(h.streamLength()).isEqualTo(100);
  }

  @Test
  void forwardedAndWaiting() {
    assertThat(
            of(Map.of("history", "forward", "lastEvent", "5-0", "forwarded", "5-0")).destination())
        .isEqualTo(Destination.FORWARDED);
    BreakerHistory waiting =
        of(
            Map.of(
                "history", "forward",
                "historyHold", "60000",
                "lastEvent", "9-0",
                "forwarded", "5-0",
                "unfwdSince", Long.toString(NOW - 1000),
                "unfwdCount", "4"));
    assertThat(waiting.destination()).isEqualTo(Destination.WAITING);
    assertThat(waiting.held()).isEqualTo(Held.UNFORWARDED);
    assertThat(waiting.heldSinceMillis()).isEqualTo(NOW - 1000);
    assertThat(waiting.holdUntilMillis()).isEqualTo(NOW + 59_000);
    assertThat(waiting.unforwarded()).isEqualTo(4);
    assertThat(waiting.streamLength()).as("not recorded").isEqualTo(-1);
  }

  @Test
  void pastTheHoldNothingHoldsTheKeys() {
    BreakerHistory h =
        of(
            Map.of(
                "history", "forward",
                "historyHold", "60000",
                "lastEvent", "9-0",
                "unfwdSince", Long.toString(NOW - 60_000)));
    assertThat(h.destination()).isEqualTo(Destination.EXPIRING);
    assertThat(h.held()).isEqualTo(Held.NONE);
  }

  @Test
  void stateAndOverrideHoldBeforeEvents() {
    Map<String, String> open = new LinkedHashMap<>();
    open.put("state", "OPEN");
    open.put("openUntil", Long.toString(NOW + 5000));
    open.put("lastTransitionAt", Long.toString(NOW - 5000));
    assertThat(of(open).held()).isEqualTo(Held.OPEN);
    open.put("openUntil", Long.toString(NOW - 1));
    assertThat(of(open).held()).as("its window ended: half-open").isEqualTo(Held.HALF_OPEN);
    Map<String, String> forced = new LinkedHashMap<>(open);
    forced.put("override", "FORCED_OPEN");
    forced.put("overrideUntil", "0");
    forced.put("overrideAt", Long.toString(NOW - 10));
    assertThat(of(forced).held()).isEqualTo(Held.OVERRIDE);
    assertThat(of(forced).heldSinceMillis()).isEqualTo(NOW - 10);
    forced.put("overrideUntil", Long.toString(NOW - 1));
    assertThat(of(forced).held()).as("an expired override holds nothing").isEqualTo(Held.HALF_OPEN);
  }

  @Test
  void totalsSumBreakers() {
    HistoryTotals t = new HistoryTotals();
    t.add(of(Map.of("streamLength", "100")));
    t.add(
        of(
            Map.of(
                "history", "forward",
                "lastEvent", "9-0",
                "unfwdSince", Long.toString(NOW - 5000),
                "unfwdCount", "3",
                "streamLength", "3",
                "eventsExpired", "7")));
    assertThat(t.breakers()).isEqualTo(2);
    assertThat(t.count(Destination.NOT_KEPT)).isEqualTo(1);
    assertThat(t.count(Destination.WAITING)).isEqualTo(1);
    assertThat(t.streamEvents()).isEqualTo(103);
    assertThat(t.unforwarded()).isEqualTo(3);
    assertThat(t.oldestWaitingMillis()).isEqualTo(NOW - 5000);
    assertThat(t.eventsExpired()).isEqualTo(7);
    assertThat(t.breakersExpired()).isEqualTo(1);
    assertThat(t.held(Held.UNFORWARDED)).isEqualTo(1);
  }
}
