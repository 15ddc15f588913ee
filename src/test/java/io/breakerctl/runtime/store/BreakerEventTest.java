package io.breakerctl.runtime.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;
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

  @Test
  @DisplayName("typed accessors: texts empty and numbers 0 (or empty) when absent")
  void absent() {
    BreakerEvent e = event(Map.of());

    assertThat(e.fromText()).isEmpty();
    assertThat(e.toText()).isEmpty();
    assertThat(e.causeText()).isEmpty();
    assertThat(e.node()).isEmpty();
    assertThat(e.actor()).isEmpty();
    assertThat(e.reason()).isEmpty();
    assertThat(e.correlationId()).isEmpty();
    assertThat(e.policyId()).isEmpty();
    assertThat(e.lease()).isEmpty();
    assertThat(e.overrideActor()).isEmpty();
    assertThat(e.policyVersion()).isZero();
    assertThat(e.until()).isZero();
    assertThat(e.generation()).isZero();
    assertThat(e.openUntil()).isZero();
    assertThat(e.overrideUntil()).isZero();
    assertThat(e.failures()).isEmpty();
    assertThat(e.threshold()).isEmpty();
    assertThat(e.stored()).isEmpty();
    assertThat(e.override()).isEmpty();
  }

  @Test
  @DisplayName("typed accessors read a trip's and a restore's fields")
  void present() {
    BreakerEvent trip =
        event(
            Map.of(
                "failures", "5",
                "threshold", "5",
                "node", "node-a",
                "policyId", "p1",
                "policyVersion", "3",
                "until", "1796000030000",
                "generation", "12"));
    BreakerEvent restore =
        event(
            Map.of(
                "cause", "RESTORED",
                "stored", "OPEN",
                "override", "FORCED_OPEN",
                "overrideUntil", "1796000060000",
                "overrideActor", "alice",
                "overrideReason", "INC-7"));

    assertThat(trip.failures()).hasValue(5);
    assertThat(trip.threshold()).hasValue(5);
    assertThat(trip.node()).isEqualTo("node-a");
    assertThat(trip.policyId()).isEqualTo("p1");
    assertThat(trip.policyVersion()).isEqualTo(3);
    assertThat(trip.until()).isEqualTo(1796000030000L);
    assertThat(trip.generation()).isEqualTo(12);
    assertThat(restore.causeText()).isEqualTo("RESTORED");
    assertThat(restore.stored()).contains(State.OPEN);
    assertThat(restore.override()).contains(State.FORCED_OPEN);
    assertThat(restore.overrideUntil()).isEqualTo(1796000060000L);
    assertThat(restore.overrideActor()).isEqualTo("alice");
    assertThat(restore.overrideReason()).isEqualTo("INC-7");
  }

  @Test
  @DisplayName("a malformed number reads as absent; a malformed text as it is stored")
  void malformedValues() {
    BreakerEvent e =
        event(
            Map.of(
                "failures", "five",
                "until", "later",
                "policyVersion", "v3",
                "from", "SIDEWAYS",
                "stored", "MOLTEN"));

    assertThat(e.failures()).isEmpty();
    assertThat(e.until()).isZero();
    assertThat(e.policyVersion()).isZero();
    assertThat(e.fromText()).isEqualTo("SIDEWAYS");
    assertThatThrownBy(e::stored)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("MOLTEN");
  }
}
