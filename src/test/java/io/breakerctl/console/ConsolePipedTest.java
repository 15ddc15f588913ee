package io.breakerctl.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.cli.BreakerCtl;
import io.breakerctl.cli.Environment;
import java.io.BufferedReader;
import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code breakerctl console} with stdin not a terminal: one command a line, no server needed. */
@DisplayName("console with piped stdin")
class ConsolePipedTest {

  @TempDir Path home;

  private record Run(int code, String out, String err) {}

  private Run console(String stdin) {
    Environment env =
        new Environment(
            Map.of(
                "XDG_STATE_HOME", home.resolve("state").toString(),
                "XDG_CONFIG_HOME", home.resolve("config").toString()),
            false,
            Clock.systemUTC(),
            new BufferedReader(new StringReader(stdin)),
            "it");
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = BreakerCtl.commandLine(env);
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int code = cl.execute("console");
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  @DisplayName("runs every line; exits with the code of the last failure")
  void exitCodeOfTheLastFailure() {
    Run r = console("version\n\n# a comment\nno-such-command\nversion -o name\nconfig view\n");

    assertThat(r.out()).contains("breakerctl dev").contains("dev\n");
    assertThat(r.err()).contains("no-such-command");
    assertThat(r.code()).as(r.err()).isEqualTo(2);
  }

  @Test
  @DisplayName("all lines succeeding: exit 0; 'exit' ends the input early")
  void allSucceed() {
    Run r = console("version\nexit\nno-such-command\n");

    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).doesNotContain("no-such-command");
  }

  @Test
  @DisplayName("a console inside the console is refused and the next line still runs")
  void noNestedConsole() {
    Run r = console("console\nversion\n");

    assertThat(r.err()).contains("already in the console");
    assertThat(r.out()).contains("breakerctl dev");
    assertThat(r.code()).isEqualTo(2);
  }
}
