package io.breakerctl.runtime.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.breakerctl.runtime.control.ControlConfig;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.audit.BreakerNotes;
import io.breakerctl.runtime.store.OverrideRequest;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@DisplayName("operator text: bounded, no control characters")
class OperatorTextTest {

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "a\u001b[31m",
        "two\nlines",
        "cr\r",
        "tab\t",
        "del\u007f",
        "c1\u0085",
        "bidi\u202e"
      })
  @DisplayName("control characters are refused, naming the first one and where")
  void refused(String text) {
    assertThat(OperatorText.problem(text, 1024)).get().asString().contains("control characters");
  }

  @Test
  @DisplayName("the position and code point are named; printable Unicode passes")
  void named() {
    assertThat(OperatorText.problem("ok\u001bx", 1024))
        .hasValue("must not contain control characters (U+001B at character 3)");
    assertThat(OperatorText.problem("incident 7 – payments ✓ 🚨", 1024)).isEmpty();
  }

  @Test
  @DisplayName("the bound is in UTF-8 bytes")
  void bounded() {
    assertThat(OperatorText.problem("x".repeat(1024), 1024)).isEmpty();
    assertThat(OperatorText.problem("é".repeat(513), 1024))
        .hasValue("must be at most 1024 bytes but was 1026");
    assertThat(OperatorText.problem(" ", 1024)).hasValue("must not be empty");
  }

  @Test
  @DisplayName("override requests and notes apply the rule before anything is written")
  void appliedByTheRuntime() {
    assertThatIllegalArgumentException()
        .isThrownBy(
            () -> new OverrideRequest(OverrideKind.FORCED_OPEN, "op", "a\nb", Duration.ZERO, ""))
        .withMessageContaining("override reason must not contain control characters");
    assertThatIllegalArgumentException()
        .isThrownBy(
            () ->
                new OverrideRequest(
                    OverrideKind.FORCED_OPEN, "op", "x".repeat(1025), Duration.ZERO, ""))
        .withMessage("override reason must be at most 1024 bytes but was 1025");
    // no server is contacted: the text is refused first
    try (ControlDatabase db =
        ControlDatabase.connect(
            ControlConfig.builder()
                .uri("mongodb://127.0.0.1:1")
                .timeout(Duration.ofMillis(100))
                .build())) {
      BreakerNotes notes = new BreakerNotes(db, Clock.systemUTC());
      assertThatIllegalArgumentException()
          .isThrownBy(() -> notes.add(BreakerId.parse("a:b"), "op", "fake\u001b[2J"))
          .withMessageContaining("note text must not contain control characters");
      assertThatIllegalArgumentException()
          .isThrownBy(() -> notes.add(BreakerId.parse("a:b"), "op\n", "text"))
          .withMessageContaining("note actor");
    }
  }
}
