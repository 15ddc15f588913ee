package io.breakerctl.runtime.model;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

@DisplayName("EffectiveState")
class EffectiveStateTest {

  /** Open window ends at 1000; a live override runs until 2000; an expired one ended at 500. */
  private static final long OPEN_UNTIL = 1000;

  @Nested
  @DisplayName("of(stored, openUntil, override, overrideUntil, now)")
  class Table {

    @ParameterizedTest(name = "{0} override={2} until={3} now={4} -> {5}")
    @CsvSource(
        nullValues = "none",
        value = {
          // stored CLOSED: time alone never changes it
          "CLOSED,    1000, none,          0,    999,  CLOSED",
          "CLOSED,    1000, none,          0,    1000, CLOSED",
          "CLOSED,    1000, none,          0,    1001, CLOSED",
          "CLOSED,    1000, FORCED_OPEN,   2000, 999,  FORCED_OPEN",
          "CLOSED,    1000, FORCED_OPEN,   2000, 1000, FORCED_OPEN",
          "CLOSED,    1000, FORCED_OPEN,   2000, 1001, FORCED_OPEN",
          "CLOSED,    1000, FORCED_OPEN,   500,  999,  CLOSED",
          "CLOSED,    1000, FORCED_OPEN,   500,  1000, CLOSED",
          "CLOSED,    1000, FORCED_OPEN,   500,  1001, CLOSED",
          // stored OPEN: reads HALF_OPEN once now >= openUntil
          "OPEN,      1000, none,          0,    999,  OPEN",
          "OPEN,      1000, none,          0,    1000, HALF_OPEN",
          "OPEN,      1000, none,          0,    1001, HALF_OPEN",
          "OPEN,      1000, FORCED_CLOSED, 2000, 999,  FORCED_CLOSED",
          "OPEN,      1000, FORCED_CLOSED, 2000, 1000, FORCED_CLOSED",
          "OPEN,      1000, FORCED_CLOSED, 2000, 1001, FORCED_CLOSED",
          "OPEN,      1000, FORCED_CLOSED, 500,  999,  OPEN",
          "OPEN,      1000, FORCED_CLOSED, 500,  1000, HALF_OPEN",
          "OPEN,      1000, FORCED_CLOSED, 500,  1001, HALF_OPEN",
          // stored HALF_OPEN: stays HALF_OPEN, openUntil is not read
          "HALF_OPEN, 1000, none,          0,    999,  HALF_OPEN",
          "HALF_OPEN, 1000, none,          0,    1000, HALF_OPEN",
          "HALF_OPEN, 1000, none,          0,    1001, HALF_OPEN",
          "HALF_OPEN, 1000, DISABLED,      2000, 999,  DISABLED",
          "HALF_OPEN, 1000, DISABLED,      2000, 1000, DISABLED",
          "HALF_OPEN, 1000, DISABLED,      2000, 1001, DISABLED",
          "HALF_OPEN, 1000, DISABLED,      500,  999,  HALF_OPEN",
          "HALF_OPEN, 1000, DISABLED,      500,  1000, HALF_OPEN",
          "HALF_OPEN, 1000, DISABLED,      500,  1001, HALF_OPEN",
        })
    @DisplayName("stored state x override none/live/expired x now before/at/after openUntil")
    void table(
        State stored,
        long openUntil,
        State override,
        long overrideUntil,
        long now,
        State expected) {
      assertThat(EffectiveState.of(stored, openUntil, override, overrideUntil, now))
          .isEqualTo(expected);
    }
  }

  @Nested
  @DisplayName("boundaries")
  class Boundaries {

    @Test
    @DisplayName("an OPEN breaker is HALF_OPEN exactly at openUntil, OPEN one ms before")
    void openWindowEndsAtOpenUntil() {
      assertThat(EffectiveState.of(State.OPEN, OPEN_UNTIL, null, 0, OPEN_UNTIL - 1))
          .isEqualTo(State.OPEN);
      assertThat(EffectiveState.of(State.OPEN, OPEN_UNTIL, null, 0, OPEN_UNTIL))
          .isEqualTo(State.HALF_OPEN);
    }

    @Test
    @DisplayName("an override is expired exactly at overrideUntil, live one ms before")
    void overrideExpiresAtOverrideUntil() {
      // given a FORCED_OPEN override until 2000 over a CLOSED breaker
      long until = 2000;

      // then
      assertThat(EffectiveState.of(State.CLOSED, 0, State.FORCED_OPEN, until, until - 1))
          .isEqualTo(State.FORCED_OPEN);
      assertThat(EffectiveState.of(State.CLOSED, 0, State.FORCED_OPEN, until, until))
          .isEqualTo(State.CLOSED);
      assertThat(EffectiveState.overrideExpired(until, until - 1)).isFalse();
      assertThat(EffectiveState.overrideExpired(until, until)).isTrue();
      assertThat(EffectiveState.overrideExpired(until, until + 1)).isTrue();
    }

    @Test
    @DisplayName("overrideUntil 0 never expires")
    void zeroNeverExpires() {
      assertThat(EffectiveState.overrideExpired(0, 0)).isFalse();
      assertThat(EffectiveState.overrideExpired(0, Long.MAX_VALUE)).isFalse();
      assertThat(EffectiveState.of(State.OPEN, 10, State.METRICS_ONLY, 0, Long.MAX_VALUE))
          .isEqualTo(State.METRICS_ONLY);
    }

    @Test
    @DisplayName("an override expiring when the open window has ended resumes as HALF_OPEN")
    void overrideExpiresAfterOpenWindow() {
      assertThat(EffectiveState.of(State.OPEN, 1000, State.FORCED_OPEN, 3000, 2999))
          .isEqualTo(State.FORCED_OPEN);
      assertThat(EffectiveState.of(State.OPEN, 1000, State.FORCED_OPEN, 3000, 3000))
          .isEqualTo(State.HALF_OPEN);
    }

    @Test
    @DisplayName("a CLOSED breaker ignores a stale openUntil far in the past")
    void closedIgnoresOpenUntil() {
      assertThat(EffectiveState.of(State.CLOSED, 0, null, 0, 5000)).isEqualTo(State.CLOSED);
    }

    @ParameterizedTest
    @EnumSource(
        value = State.class,
        names = {"FORCED_OPEN", "FORCED_CLOSED", "DISABLED", "METRICS_ONLY"})
    @DisplayName("every live override wins over every machine state")
    void liveOverrideWins(State override) {
      for (State stored : new State[] {State.CLOSED, State.OPEN, State.HALF_OPEN}) {
        assertThat(EffectiveState.of(stored, 1000, override, 2000, 1500)).isEqualTo(override);
      }
    }
  }
}
