package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.breakerctl.BreakerCtl;
import io.breakerctl.cli.output.OutputFormat;
import io.breakerctl.runtime.model.BreakerId;
import java.io.BufferedReader;
import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
      assertThat(Durations.parse("3650d")).isEqualTo(Durations.MAX);
      assertThatThrownBy(() -> Durations.parse("3651d"))
          .hasMessageContaining("'3651d' is too long (at most 3650d)");
      assertThatThrownBy(() -> Durations.parse("999999999d")).hasMessageContaining("too long");
      assertThat(Durations.format(Duration.ofMinutes(30))).isEqualTo("30m");
      assertThatThrownBy(() -> Durations.parse("-1s"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'-1s'");
    }
  }

  /** Every command's words from the root, e.g. [force, open]; hidden ones too. */
  static List<List<String>> commandPaths(CommandLine cl, List<String> prefix) {
    List<List<String>> paths = new ArrayList<>();
    for (Map.Entry<String, CommandLine> e : cl.getSubcommands().entrySet()) {
      List<String> path = new ArrayList<>(prefix);
      path.add(e.getKey());
      paths.add(path);
      paths.addAll(commandPaths(e.getValue(), path));
    }
    return paths;
  }

  record Run(int code, String out, String err) {}

  static Run execute(String... args) {
    InProcessRun r = InProcessRun.execute(cli(), args);
    return new Run(r.code(), r.out(), r.err());
  }

  @Nested
  @DisplayName("help")
  class Help {
    @Test
    @DisplayName("-h and --help answer on every command and subcommand with exit 0")
    void helpEverywhere() {
      List<List<String>> paths = commandPaths(cli(), List.of());
      assertThat(paths).hasSizeGreaterThan(20);
      for (List<String> path : paths) {
        for (String flag : List.of("-h", "--help")) {
          List<String> args = new ArrayList<>(path);
          args.add(flag);
          Run r = execute(args.toArray(new String[0]));
          assertThat(r.code()).as("%s: %s", args, r).isZero();
          assertThat(r.out()).as("%s", args).startsWith("Usage: breakerctl " + path.get(0));
          assertThat(r.err()).as("%s", args).isEmpty();
        }
      }
    }

    @Test
    @DisplayName("versions and durations out of range: exit 2 naming the option, before a backend")
    void outOfRangeValues() {
      for (String[] args :
          new String[][] {
            {"policy", "get", "a:b", "--revision", "-1"},
            {"policy", "get", "a:b", "--revision", "0"},
            {"policy", "diff", "a:b", "--from", "0", "--to", "2"},
            {"policy", "rollback", "a:b", "--to", "-3", "--reason", "r", "--yes"}
          }) {
        Run r = execute(args);
        assertThat(r.code()).as("%s: %s", List.of(args), r).isEqualTo(2);
        assertThat(r.err()).as("%s", List.of(args)).contains("versions start at 1");
      }
      Run forever = execute("force", "open", "a:b", "--for", "4000d", "--reason", "x", "--yes");
      assertThat(forever.code()).as("%s", forever).isEqualTo(2);
      assertThat(forever.err()).contains("--for").contains("too long (at most 3650d)");
      Run timeout = execute("--timeout", "99999999d", "status");
      assertThat(timeout.code()).as("%s", timeout).isEqualTo(2);
      assertThat(timeout.err()).contains("--timeout").contains("too long");
    }

    @Test
    @DisplayName("policy apply --origin takes ci:COMMIT or hand only: exit 2 before a backend")
    void applyOrigin() {
      for (String bad : List.of("robot", "rollback:v1", "revert:v2", "ci:", "ci:a b", "unknown")) {
        Run r =
            execute(
                "policy", "apply", "-f", "none.yaml", "--origin", bad, "--reason", "r", "--yes");
        assertThat(r.code()).as("%s: %s", bad, r).isEqualTo(2);
        assertThat(r.err()).as(bad).contains("--origin");
      }
    }

    @Test
    @DisplayName("a usage error recommends the --help of its own command, which answers")
    void usageHintsNameTheirCommand() {
      Run r = execute("force", "open", "a:b");
      assertThat(r.code()).isEqualTo(2);
      assertThat(r.err()).contains("--reason").contains("Run 'breakerctl force open --help'");
      assertThat(execute("force", "open", "--help").code()).isZero();
      Run set = execute("config", "set-context");
      assertThat(set.err()).contains("Run 'breakerctl config set-context --help'");
    }

    @Test
    @DisplayName("help TOPIC: errors name the word that is wrong; the summary lists the topics")
    void helpTopics() {
      Run extra = execute("help", "exit-codes", "extra");
      assertThat(extra.code()).isEqualTo(2);
      assertThat(extra.err()).contains("'extra'").doesNotContain("'exit-codes' (topics");
      Run sub = execute("help", "force", "bogus");
      assertThat(sub.err())
          .contains("'bogus' is not a subcommand of 'breakerctl force'")
          .contains("open, closed");
      Run top = execute("help", "bogus");
      assertThat(top.err()).contains("'bogus'").contains("exit-codes, environment");
      assertThat(execute("help", "exit-codes").out()).contains("Not found.");
      for (List<String> args :
          List.of(List.of("help", "--bogus"), List.of("help", "force", "-x"))) {
        Run unknown = execute(args.toArray(new String[0]));
        assertThat(unknown.code()).as("%s: %s", args, unknown).isEqualTo(2);
        assertThat(unknown.err()).contains("Unknown option: '" + args.get(args.size() - 1) + "'");
        assertThat(unknown.out()).isEmpty();
      }
      Run root = execute("--help");
      assertThat(root.out().replaceAll("\\s+", " "))
          .contains(
              "help Show help for a command, e.g. 'help force open', or a topic:"
                  + " exit-codes, environment.");
    }
  }

  @Nested
  @DisplayName("global -o and values that are usage errors")
  class Globals {
    @Test
    @DisplayName("-o before the command or after it")
    void outputIsGlobal() {
      CommandLine cl = cli();
      cl.parseArgs("-o", "json", "status");
      assertThat(((BreakerCtl) cl.getCommand()).output()).isEqualTo(OutputFormat.JSON);
      CommandLine after = cli();
      after.parseArgs("status", "-o", "yaml");
      assertThat(((BreakerCtl) after.getCommand()).output()).isEqualTo(OutputFormat.YAML);
      CommandLine version = cli();
      StringWriter out = new StringWriter();
      version.setOut(new PrintWriter(out));
      assertThat(version.execute("-o", "json", "version")).isZero();
      assertThat(out.toString()).contains("\"kind\" : \"Version\"");
    }

    @Test
    @DisplayName("--redis '' and other empty values, --for 0, --watch-count 0/-1: exit 2")
    void emptyAndZeroValues() {
      for (String[] args :
          List.of(
              new String[] {"status", "--redis", ""},
              new String[] {"status", "--context", ""},
              new String[] {"status", "--redis-user", ""},
              new String[] {"status", "--watch", "--watch-count", "0"},
              new String[] {"status", "--watch-count", "-1"},
              new String[] {"status", "--caller", "a:b"},
              new String[] {"status", "--redis", "redis://127.0.0.1:abc"},
              new String[] {"status", "--redis", "redis-socket:///tmp/redis.sock"},
              new String[] {"force", "open", "a:b", "--reason", "x", "--for", "0", "--yes"})) {
        Run r = execute(args);
        assertThat(r.code()).as("%s: %s", List.of(args), r).isEqualTo(2);
        assertThat(r.err()).as("%s", List.of(args)).contains("Run 'breakerctl ");
        assertThat(r.out()).isEmpty();
      }
      assertThat(execute("status", "--redis", "").err()).contains("--redis must not be empty");
      assertThat(execute("status", "--watch-count", "0").err()).contains("at least 1");
      assertThat(execute("status", "--redis", "redis://h:abc").err()).contains("port 'abc'");
      assertThat(execute("status", "--redis", "redis-socket:///x").err()).contains("socket");
    }

    @Test
    @DisplayName("a bad value: picocli names the option, no Java class names")
    void noJavaInternals() {
      Run r = execute("status", "--timeout", "soon");
      assertThat(r.code()).isEqualTo(2);
      assertThat(r.err())
          .contains("'--timeout'")
          .contains("invalid duration 'soon'")
          .doesNotContain("java.lang")
          .doesNotContain("Exception");
    }

    @Test
    @DisplayName("echoed input is cut at 200 characters; an over-long segment names the rule")
    void longInputIsCut() {
      String huge = "a".repeat(1_000_000) + ":b";
      Run r = execute("status", huge);
      assertThat(r.code()).isEqualTo(2);
      assertThat(r.err()).contains("1000002 characters long (at most 200)");
      assertThat(r.err().length()).isLessThan(1000);
      Run segment = execute("status", "claims:" + "m".repeat(70) + "*");
      assertThat(segment.err()).contains("71 characters long").contains("at most 63");
      Run unknown = execute("status", "--" + "x".repeat(100_000));
      assertThat(unknown.code()).isEqualTo(2);
      assertThat(unknown.err().length()).isLessThan(2000);
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
