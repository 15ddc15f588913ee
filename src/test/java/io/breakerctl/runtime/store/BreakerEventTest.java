package io.breakerctl.runtime.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A stream entry the scripts did not write is malformed, and says why")
class BreakerEventTest {

  private static BreakerEvent event(Map<String, String> fields) {
    return new BreakerEvent(BreakerId.parse("orders:pricing"), "1796000000123-0", fields);
  }

  @Test
  @DisplayName("a scripts' event: no problem, its own time")
  void wellFormed() {
    BreakerEvent e =
        event(
            Map.of(
                "from",
                "CLOSED",
                "to",
                "OPEN",
                "cause",
                "FAILURE_THRESHOLD",
                "at",
                "1796000000100"));
    assertThat(e.problem()).isEmpty();
    assertThat(e.atMillis()).isEqualTo(1796000000100L);
  }

  @Test
  @DisplayName("each field that is wrong is named; the time falls back to the stream id's")
  void malformed() {
    BreakerEvent e = event(Map.of("to", "BOGUS", "cause", "GREMLINS", "at", "-5"));
    assertThat(e.problem())
        .contains(
            "from missing; to=BOGUS is not a state; cause=GREMLINS is not a transition cause;"
                + " at=-5 is not a time in ms");
    assertThat(e.atMillis()).isEqualTo(1796000000123L);
    assertThat(event(Map.of("from", "x".repeat(100))).problem().orElseThrow())
        .contains("from=" + "x".repeat(37) + "... is not a state");
  }
}
