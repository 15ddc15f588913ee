package io.breakerctl.runtime.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.State;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

@DisplayName("OverrideRequest")
class OverrideRequestTest {

  @Nested
  @DisplayName("validation")
  class Validation {

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {" ", "\t\n"})
    @DisplayName("rejects a null, empty or blank actor")
    void blankActor(String actor) {
      assertThatIllegalArgumentException()
          .isThrownBy(
              () -> new OverrideRequest(OverrideKind.FORCED_OPEN, actor, "incident", null, null))
          .withMessage("override actor must not be empty");
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {" ", "\t\n"})
    @DisplayName("rejects a null, empty or blank reason")
    void blankReason(String reason) {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> new OverrideRequest(OverrideKind.CLEAR, "alice", reason, null, null))
          .withMessage("override reason must not be empty");
    }

    @Test
    @DisplayName("rejects a negative duration, quoting it")
    void negativeDuration() {
      assertThatIllegalArgumentException()
          .isThrownBy(
              () ->
                  new OverrideRequest(
                      OverrideKind.DISABLED, "alice", "why", Duration.ofMillis(-1), ""))
          .withMessage("override duration must be >= 0 but was PT-0.001S");
    }

    @Test
    @DisplayName("rejects a null kind")
    void nullKind() {
      assertThatNullPointerException()
          .isThrownBy(() -> new OverrideRequest(null, "alice", "why", Duration.ZERO, ""))
          .withMessage("kind");
    }
  }

  @Nested
  @DisplayName("normalisation")
  class Normalisation {

    @Test
    @DisplayName("a null duration means until cleared, a null correlation id empty")
    void nullsNormalised() {
      OverrideRequest r =
          new OverrideRequest(OverrideKind.FORCED_CLOSED, "alice", "why", null, null);

      assertThat(r.duration()).isEqualTo(Duration.ZERO);
      assertThat(r.correlationId()).isEmpty();
    }

    @Test
    @DisplayName("valid values are kept as given")
    void kept() {
      OverrideRequest r =
          new OverrideRequest(
              OverrideKind.METRICS_ONLY, "svc-ops", "INC-42", Duration.ofMinutes(15), "corr-1");

      assertThat(r.kind()).isEqualTo(OverrideKind.METRICS_ONLY);
      assertThat(r.actor()).isEqualTo("svc-ops");
      assertThat(r.reason()).isEqualTo("INC-42");
      assertThat(r.duration()).isEqualTo(Duration.ofMinutes(15));
      assertThat(r.correlationId()).isEqualTo("corr-1");
    }
  }

  @Nested
  @DisplayName("OverrideKind")
  class Kind {

    @Test
    @DisplayName("each override kind maps to the override state of the same name; CLEAR to none")
    void states() {
      assertThat(OverrideKind.FORCED_OPEN.state()).isEqualTo(State.FORCED_OPEN);
      assertThat(OverrideKind.FORCED_CLOSED.state()).isEqualTo(State.FORCED_CLOSED);
      assertThat(OverrideKind.DISABLED.state()).isEqualTo(State.DISABLED);
      assertThat(OverrideKind.METRICS_ONLY.state()).isEqualTo(State.METRICS_ONLY);
      assertThat(OverrideKind.CLEAR.state()).isNull();
    }
  }
}
