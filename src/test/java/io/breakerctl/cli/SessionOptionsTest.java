package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.BreakerCtl;
import io.breakerctl.cli.output.OutputFormat;
import java.io.BufferedReader;
import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The global options of a console session reach each of its lines (the parse layer: the options a
 * line's command runs with, no server): a line's own option wins for that line, its {@code
 * --context} leaves the session's target options out.
 */
@DisplayName("a console session's global options in each line")
class SessionOptionsTest {

  private static final Environment ENV =
      new Environment(
          Map.of(), false, Clock.systemUTC(), new BufferedReader(new StringReader("")), "t");

  /** Everything given: what {@code breakerctl ... console} parses into. */
  private static final GlobalOptions SESSION =
      new GlobalOptions(
          new Settings.Flags(
              "staging",
              "redis://10.0.0.5:6379",
              "mongodb://10.0.0.6:27017",
              "blue",
              Duration.ofSeconds(2),
              "operator",
              Path.of("/run/operator.pw"),
              Path.of("/etc/ca.pem")),
          OutputFormat.JSON,
          true,
          true);

  /** The global options {@code line} runs with inside a session started with {@code session}. */
  private static GlobalOptions line(GlobalOptions session, String... line) {
    CommandLine cl =
        BreakerCtl.commandLine(
            ENV,
            new Sessions() {
              @Override
              public ServiceFactory services(Settings.Flags flags, Environment env) {
                throw new AssertionError("the line needs no connection");
              }

              @Override
              public GlobalOptions options() {
                return session;
              }
            });
    cl.setOut(new PrintWriter(new StringWriter()));
    cl.setErr(new PrintWriter(new StringWriter()));
    assertThat(cl.execute(line)).isZero();
    return ((BreakerCtl) cl.getCommand()).globals();
  }

  @Test
  @DisplayName("a line that gives no option runs with every option of the session")
  void everyOptionReachesTheLine() {
    assertThat(line(SESSION, "version")).isEqualTo(SESSION);
  }

  @Test
  @DisplayName("a line's own option wins for it, before or after the command; the rest stay")
  void aLinesOwnOptionWins() {
    GlobalOptions after = line(SESSION, "version", "--prefix", "green", "-o", "yaml");
    GlobalOptions before = line(SESSION, "--prefix", "green", "-o", "yaml", "version");

    assertThat(after).isEqualTo(before);
    assertThat(after.flags().prefix()).isEqualTo("green");
    assertThat(after.output()).isEqualTo(OutputFormat.YAML);
    assertThat(after.flags().redis()).isEqualTo("redis://10.0.0.5:6379");
    assertThat(after.flags().redisUser()).isEqualTo("operator");
    assertThat(after.flags().context()).isEqualTo("staging");
    assertThat(line(SESSION, "version"))
        .as("the next line: the session's again")
        .isEqualTo(SESSION);
  }

  @Test
  @DisplayName("a line's --context runs on that context: the session's target options stay out")
  void aLinesContextLeavesTheTargetOut() {
    GlobalOptions other = line(SESSION, "version", "--context", "prod");

    assertThat(other).isEqualTo(SESSION.inContext("prod"));
    assertThat(other.flags())
        .isEqualTo(
            new Settings.Flags("prod", null, null, null, Duration.ofSeconds(2), null, null, null));
    assertThat(other.output()).isEqualTo(OutputFormat.JSON);

    GlobalOptions own = line(SESSION, "--context", "prod", "--redis", "redis://h:1", "version");
    assertThat(own.flags().redis()).isEqualTo("redis://h:1");
    assertThat(own.flags().prefix()).isNull();
  }

  @Test
  @DisplayName("without a session a line runs with its own options only")
  void noSession() {
    CommandLine cl = BreakerCtl.commandLine(ENV);
    cl.setOut(new PrintWriter(new StringWriter()));
    assertThat(cl.execute("version", "--prefix", "green")).isZero();

    GlobalOptions own = ((BreakerCtl) cl.getCommand()).globals();
    assertThat(own.flags())
        .isEqualTo(new Settings.Flags(null, null, null, "green", null, null, null, null));
    assertThat(own.output()).isEqualTo(OutputFormat.TABLE);
    assertThat(own.verbose()).isFalse();
  }
}
