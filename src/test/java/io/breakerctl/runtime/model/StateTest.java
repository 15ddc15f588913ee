package io.breakerctl.runtime.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

@DisplayName("State")
class StateTest {

  @Nested
  @DisplayName("wire codes")
  class WireCodes {

    @ParameterizedTest
    @EnumSource(State.class)
    @DisplayName("the code is the name and parses back to the same constant")
    void roundTrip(State state) {
      assertThat(state.code()).isEqualTo(state.name());
      assertThat(State.fromCode(state.code())).isSameAs(state);
    }

    @Test
    @DisplayName("the codes are exactly the documented ones")
    void documentedCodes() {
      assertThat(State.values())
          .extracting(State::code)
          .containsExactly(
              "CLOSED",
              "OPEN",
              "HALF_OPEN",
              "FORCED_OPEN",
              "FORCED_CLOSED",
              "DISABLED",
              "METRICS_ONLY");
    }

    @ParameterizedTest
    @EnumSource(State.class)
    @DisplayName("the ordinal is never a code")
    void ordinalIsNotACode(State state) {
      assertThat(state.code()).isNotEqualTo(Integer.toString(state.ordinal()));
      assertThatIllegalArgumentException()
          .isThrownBy(() -> State.fromCode(Integer.toString(state.ordinal())));
    }

    @ParameterizedTest
    @ValueSource(strings = {"open", "Open", " OPEN", "OPEN ", "HALF-OPEN", "", "UNKNOWN"})
    @DisplayName("unknown codes are rejected listing the valid ones")
    void unknownRejected(String code) {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> State.fromCode(code))
          .withMessage(
              "unknown state '"
                  + code
                  + "' (expected one of CLOSED, OPEN, HALF_OPEN, FORCED_OPEN, FORCED_CLOSED,"
                  + " DISABLED, METRICS_ONLY)");
    }

    @Test
    @DisplayName("null is rejected")
    void nullRejected() {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> State.fromCode(null))
          .withMessageStartingWith("unknown state 'null'");
    }
  }

  @Nested
  @DisplayName("properties")
  class Properties {

    @Test
    @DisplayName("the four operator overrides, and only they, are overrides")
    void overrides() {
      assertThat(State.values())
          .filteredOn(State::isOverride)
          .containsExactly(
              State.FORCED_OPEN, State.FORCED_CLOSED, State.DISABLED, State.METRICS_ONLY);
    }

    @Test
    @DisplayName("only OPEN and FORCED_OPEN reject")
    void rejects() {
      assertThat(State.values())
          .filteredOn(State::rejects)
          .containsExactly(State.OPEN, State.FORCED_OPEN);
    }

    @Test
    @DisplayName("CLOSED and the admitting overrides admit every call; HALF_OPEN does not")
    void admitsAll() {
      assertThat(State.values())
          .filteredOn(State::admitsAll)
          .containsExactly(State.CLOSED, State.FORCED_CLOSED, State.DISABLED, State.METRICS_ONLY);
    }
  }
}
