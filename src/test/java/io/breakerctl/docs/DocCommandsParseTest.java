package io.breakerctl.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.BreakerCtl;
import io.breakerctl.cli.Environment;
import java.io.BufferedReader;
import java.io.StringReader;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Every YAML block of the docs parses, and every {@code breakerctl} command line of README.md and
 * src/docs/*.md (shell and YAML blocks) parses as the CLI's command model reads it: a command,
 * subcommand or option renamed or removed fails here, without a server ({@code DocExamplesIT} runs
 * the shell lines on the sandbox).
 */
@DisplayName("every documented breakerctl command line parses")
class DocCommandsParseTest {

  static CommandLine commandLine() {
    return BreakerCtl.commandLine(
        new Environment(
            Map.of("NO_COLOR", "1"),
            false,
            Clock.systemUTC(),
            new BufferedReader(new StringReader("")),
            "docs"));
  }

  @Test
  @DisplayName("no unknown command or option, no missing required option")
  void everyCommandParses() {
    List<DocPages.Command> commands = DocPages.allCommands();
    assertThat(commands).as("documented command lines").hasSizeGreaterThan(30);
    List<String> bad = new ArrayList<>();
    for (DocPages.Command c : commands) {
      try {
        commandLine().parseArgs(c.args().toArray(String[]::new));
      } catch (CommandLine.ParameterException e) {
        bad.add(c.where() + "\n    " + e.getMessage());
      }
    }
    assertThat(bad).as("command lines the CLI does not accept").isEmpty();
  }

  @Test
  @DisplayName("every YAML block (CI pipelines, config files) is valid YAML")
  void everyYamlBlockParses() throws Exception {
    com.fasterxml.jackson.databind.ObjectMapper yaml =
        new com.fasterxml.jackson.databind.ObjectMapper(
            new com.fasterxml.jackson.dataformat.yaml.YAMLFactory());
    int blocks = 0;
    for (DocPages.Block b : DocPages.allBlocks()) {
      if (b.info().equals("yaml")) {
        blocks++;
        try (com.fasterxml.jackson.databind.MappingIterator<Object> docs =
            yaml.readerFor(Object.class).readValues(b.text())) {
          assertThat(docs.readAll()).as(b.where() + " holds a document").isNotEmpty();
        } catch (java.io.IOException e) {
          throw new AssertionError(b.where() + " is not valid YAML: " + e.getMessage(), e);
        }
      }
    }
    assertThat(blocks).as("YAML blocks: two pipelines and a config file").isGreaterThanOrEqualTo(3);
  }
}
