package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.breakerctl.runtime.model.BreakerId;
import java.io.BufferedReader;
import java.io.StringReader;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/** The parse layer: argv to options, no server. */
@DisplayName("breakerctl argument parsing")
class CliParseTest {

  static CommandLine cli() {
    return BreakerCtl.commandLine(
        new Environment(
            Map.of(), false, Clock.systemUTC(), new BufferedReader(new StringReader("")), "t"));
  }

  @Nested
  @DisplayName("status")
  class Status {
    @Test
    void optionsAndGlobalFlagsAfterTheVerb() {
      CommandLine cl = cli();
      ParseResult pr =
          cl.parseArgs(
              "status",
              "claims:*",
              "--state",
              "OPEN,half_open",
              "--sort",
              "state",
              "-o",
              "json",
              "--no-headers",
              "--redis",
              "redis://h:1",
              "--timeout",
              "500ms",
              "--check");
      ParseResult sub = pr.subcommand();
      assertThat(sub.matchedPositionalValue(0, "")).isEqualTo("claims:*");
      assertThat(sub.matchedOptionValue("--state", null).toString()).contains("OPEN", "HALF_OPEN");
      assertThat(sub.matchedOptionValue("-o", null).toString()).isEqualTo("JSON");
      assertThat(sub.hasMatchedOption("--check")).isTrue();
      BreakerCtl root = cl.getCommand();
      assertThat(root.flags().redis()).isEqualTo("redis://h:1");
      assertThat(root.flags().timeout()).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void badValuesAreParameterErrors() {
      assertThatThrownBy(() -> cli().parseArgs("status", "--state", "BROKEN"))
          .isInstanceOf(CommandLine.ParameterException.class);
      assertThatThrownBy(() -> cli().parseArgs("status", "--timeout", "soon"))
          .isInstanceOf(CommandLine.ParameterException.class);
      assertThatThrownBy(() -> cli().parseArgs("status", "-o", "xml"))
          .isInstanceOf(CommandLine.ParameterException.class);
    }
  }

  @Nested
  @DisplayName("force")
  class Force {
    @Test
    void reasonIsRequired() {
      assertThatThrownBy(() -> cli().parseArgs("force", "open", "a:b"))
          .isInstanceOf(CommandLine.MissingParameterException.class)
          .hasMessageContaining("--reason");
    }

    @Test
    void forDurationDryRunAndYes() {
      ParseResult pr =
          cli()
              .parseArgs(
                  "force", "open", "a:b", "--reason", "x", "--for", "30m", "--dry-run", "-y");
      ParseResult open = pr.subcommand().subcommand();
      assertThat(open.commandSpec().name()).isEqualTo("open");
      assertThat((Duration) open.matchedOptionValue("--for", null))
          .isEqualTo(Duration.ofMinutes(30));
      assertThat(open.hasMatchedOption("--dry-run")).isTrue();
      assertThat(open.hasMatchedOption("--yes")).isTrue();
    }

    @Test
    void clearTakesNoDuration() {
      assertThatThrownBy(
              () -> cli().parseArgs("force", "clear", "a:b", "--reason", "x", "--for", "1m"))
          .isInstanceOf(CommandLine.UnmatchedArgumentException.class);
    }
  }

  @Nested
  @DisplayName("selectors and durations")
  class Values {
    @Test
    void selector() {
      BreakerSelector exact = new BreakerSelector("claims:members", null, null);
      assertThat(exact.exactId()).isEqualTo(BreakerId.parse("claims:members"));
      BreakerSelector glob = new BreakerSelector("claims:*", null, "mem*");
      assertThat(glob.exactId()).isNull();
      assertThat(glob.scanGlob("cb")).isEqualTo("cb:{claims:*}");
      assertThat(glob.matches(BreakerId.parse("claims:members:get"))).isTrue();
      assertThat(glob.matches(BreakerId.parse("claims:billing"))).isFalse();
      assertThat(new BreakerSelector(null, "web", null).scanGlob("cb")).isEqualTo("cb:{web:*}");
      assertThatThrownBy(() -> new BreakerSelector("Claims:X", null, null))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> new BreakerSelector("cb:{x}", null, null))
          .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void durations() {
      assertThat(Durations.parse("250ms")).isEqualTo(Duration.ofMillis(250));
      assertThat(Durations.parse("5")).isEqualTo(Duration.ofSeconds(5));
      assertThat(Durations.parse("2h")).isEqualTo(Duration.ofHours(2));
      assertThat(Durations.format(Duration.ofMinutes(30))).isEqualTo("30m");
      assertThatThrownBy(() -> Durations.parse("-1s"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'-1s'");
    }
  }

  @Test
  @DisplayName("every command documents the exit codes")
  void exitCodesInHelp() {
    CommandLine cl = cli();
    assertThat(cl.getUsageMessage()).contains("Exit codes:").contains("Not found.");
    assertThat(cl.getSubcommands().get("force").getSubcommands().get("open").getUsageMessage())
        .contains("Exit codes:")
        .contains("--reason=TEXT");
  }
}
