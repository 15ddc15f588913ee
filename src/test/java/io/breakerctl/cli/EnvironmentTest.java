package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.StringReader;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EnvironmentTest {

  private static Environment with(Map<String, String> variables) {
    return new Environment(
        variables, false, Clock.systemUTC(), new BufferedReader(new StringReader("")), "tester");
  }

  @Test
  void stateHomeFollowsXdgStateHomeThenHome() {
    assertThat(with(Map.of("XDG_STATE_HOME", "/s", "HOME", "/h")).stateHome())
        .isEqualTo(Path.of("/s/breakerctl"));
    assertThat(with(Map.of("HOME", "/h")).stateHome())
        .isEqualTo(Path.of("/h/.local/state/breakerctl"));
    assertThat(with(Map.of("XDG_STATE_HOME", "", "HOME", "/h")).stateHome())
        .as("an empty XDG_STATE_HOME counts as unset")
        .isEqualTo(Path.of("/h/.local/state/breakerctl"));
    assertThat(with(Map.of("XDG_STATE_HOME", "  ", "HOME", "/h")).stateHome())
        .isEqualTo(Path.of("/h/.local/state/breakerctl"));
  }
}
