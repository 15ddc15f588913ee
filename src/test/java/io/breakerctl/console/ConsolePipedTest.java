package io.breakerctl.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code breakerctl console} with stdin not a terminal: one command a line, no server needed. */
@DisplayName("console with piped stdin")
class ConsolePipedTest {

  @TempDir Path home;

  private PipedRun console(String stdin) {
    return PipedRun.of(
        Map.of(
            "XDG_STATE_HOME", home.resolve("state").toString(),
            "XDG_CONFIG_HOME", home.resolve("config").toString()),
        stdin,
        List.of("console"));
  }

  @Test
  @DisplayName("runs every line; exits with the code of the last failure")
  void exitCodeOfTheLastFailure() {
    PipedRun r = console("version\n\n# a comment\nno-such-command\nversion -o name\nconfig view\n");

    assertThat(r.out()).contains("breakerctl dev").contains("dev\n");
    assertThat(r.err()).contains("no-such-command");
    assertThat(r.code()).as(r.err()).isEqualTo(2);
  }

  @Test
  @DisplayName("all lines succeeding: exit 0; 'exit' ends the input early")
  void allSucceed() {
    PipedRun r = console("version\nexit\nno-such-command\n");

    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).doesNotContain("no-such-command");
  }

  @Test
  @DisplayName("a console inside the console is refused and the next line still runs")
  void noNestedConsole() {
    PipedRun r = console("console\nversion\n");

    assertThat(r.err()).contains("already in the console");
    assertThat(r.out()).contains("breakerctl dev");
    assertThat(r.code()).isEqualTo(2);
  }
}
