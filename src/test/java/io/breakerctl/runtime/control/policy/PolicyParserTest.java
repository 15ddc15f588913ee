package io.breakerctl.runtime.control.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.breakerctl.runtime.model.FallbackPolicy;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.StoreFailureMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PolicyParserTest {

  /** The problems as printed, without the line a field problem names (asserted apart). */
  private static List<String> problems(String source, String text) {
    return PolicyParser.parse(source, text).problems().stream()
        .map(p -> p.column() > 0 ? p.toString() : p.toString().replaceFirst("line \\d+: ", ""))
        .toList();
  }

  @Nested
  @DisplayName("valid documents")
  class Valid {

    @Test
    void onlyTheIdIsRequiredAndEverythingElseDefaults() {
      PolicySet set = PolicyParser.parse("p.yaml", "metadata: {id: claims:members}\n");

      assertThat(set.problems()).isEmpty();
      assertThat(set.documents())
          .singleElement()
          .satisfies(
              d -> {
                assertThat(d.id().toString()).isEqualTo("claims:members");
                assertThat(d.policy()).isEqualTo(Policy.DEFAULT);
                assertThat(d.expiresAt()).isEmpty();
              });
    }

    @Test
    void everySpecFieldMapsOntoThePolicyWithFractionalSeconds() {
      String yaml =
          """
          apiVersion: breakerctl/v1
          kind: Policy
          metadata:
            id: claims:members:search
            owner: team-claims
            labels: {tier: gold}
            expiresAt: 2030-01-01T00:00:00Z
          spec:
            failureThreshold: 3
            windowSeconds: 0.5
            failureRateThreshold: 50
            minimumCalls: 10
            slowCallMillis: 800
            openSeconds: 1.25
            maxOpenSeconds: 60
            halfOpenPermits: 2
            probeLeaseSeconds: 0.2
            storeFailureMode: LAST_KNOWN
            fallbackPolicy: CACHED
            staticDefault: basic-plan
            enabled: false
          """;

      PolicySet set = PolicyParser.parse("p.yaml", yaml);

      assertThat(set.problems()).isEmpty();
      PolicyDocument d = set.documents().get(0);
      assertThat(d.owner()).isEqualTo("team-claims");
      assertThat(d.labels()).containsEntry("tier", "gold");
      assertThat(d.expiresAt()).contains(Instant.parse("2030-01-01T00:00:00Z"));
      Policy p = d.policy();
      assertThat(p.failureThreshold()).isEqualTo(3);
      assertThat(p.window()).isEqualTo(Duration.ofMillis(500));
      assertThat(p.failureRateThreshold()).hasValue(50.0);
      assertThat(p.minimumCalls()).isEqualTo(10);
      assertThat(p.slowCallMillis()).hasValue(800);
      assertThat(p.open()).isEqualTo(Duration.ofMillis(1250));
      assertThat(p.maxOpen()).isEqualTo(Duration.ofSeconds(60));
      assertThat(p.halfOpenPermits()).isEqualTo(2);
      assertThat(p.probeLease()).isEqualTo(Duration.ofMillis(200));
      assertThat(p.storeFailureMode()).isEqualTo(StoreFailureMode.LAST_KNOWN);
      assertThat(p.fallbackPolicy()).isEqualTo(FallbackPolicy.CACHED);
      assertThat(p.staticDefault()).contains("basic-plan");
      assertThat(p.enabled()).isFalse();
    }

    @Test
    void severalYamlDocumentsAndDefaultsIds() {
      String yaml =
          """
          metadata: {id: "*:*"}
          ---
          metadata: {id: "claims:*"}
          spec: {failureThreshold: 9}
          ---
          metadata: {id: claims:members}
          ---
          """;

      PolicySet set = PolicyParser.parse("p.yaml", yaml);

      assertThat(set.problems()).isEmpty();
      assertThat(set.documents())
          .extracting(d -> d.id().toString())
          .containsExactly("*:*", "claims:*", "claims:members");
      assertThat(set.documents()).extracting(PolicyDocument::document).containsExactly(1, 2, 3);
      assertThat(set.documents().get(0).id().isDefault()).isTrue();
      assertThat(set.documents().get(1).id().defaultCaller()).contains("claims");
    }

    @Test
    void jsonArrayAndConcatenatedObjects() {
      PolicySet array =
          PolicyParser.parse(
              "p.json", "[{\"metadata\":{\"id\":\"a:b\"}},{\"metadata\":{\"id\":\"a:c\"}}]");
      PolicySet stream =
          PolicyParser.parse(
              "p.json", "{\"metadata\":{\"id\":\"a:b\"}}\n{\"metadata\":{\"id\":\"a:c\"}}");

      assertThat(array.problems()).isEmpty();
      assertThat(array.documents()).hasSize(2);
      assertThat(stream.problems()).isEmpty();
      assertThat(stream.documents()).hasSize(2);
    }
  }

  @Nested
  @DisplayName("invalid documents: every problem with its location")
  class Invalid {

    @Test
    void theIssueExampleIsReportedVerbatim() {
      String yaml =
          """
          metadata: {id: claims:ok}
          ---
          metadata: {id: claims:members}
          spec: {failureThreshold: 0}
          """;

      assertThat(problems("policies/claims.yaml", yaml))
          .containsExactly(
              "policies/claims.yaml: document 2: spec.failureThreshold must be >= 1 but was 0");
    }

    @Test
    void everyProblemOfOneDocumentIsReported() {
      String yaml =
          """
          apiVersion: breakerctl/v2
          kind: Polcy
          colour: blue
          metadata:
            id: claims:members
            onwer: me
            labels: {tier: [1, 2]}
            expiresAt: tomorrow
          spec:
            failureThreshold: five
            windowSeconds: 1.0005
            failureRateThreshold: 120
            minimumCalls: 2.5
            slowCallMillis: -1
            openSeconds: "30"
            halfOpenPermits: 99999999999
            probeLeaseSeconds: 7200
            storeFailureMode: sometimes
            fallbackPolicy: 3
            staticDefault: Basic Plan
            enabled: "yes"
            timeout: 3
          """;

      assertThat(problems("p.yaml", yaml))
          .containsExactlyInAnyOrder(
              "p.yaml: document 1: colour is not a known field (known: apiVersion, kind, metadata, spec, status)",
              "p.yaml: document 1: apiVersion must be 'breakerctl/v1' but was \"breakerctl/v2\"",
              "p.yaml: document 1: kind must be 'Policy' but was \"Polcy\"",
              "p.yaml: document 1: metadata.onwer is not a known field (known: expiresAt, id, labels, owner)",
              "p.yaml: document 1: metadata.labels.tier must be a string but was a list [1,2]",
              "p.yaml: document 1: metadata.expiresAt must be an RFC 3339 time (2026-12-01T10:00:00Z) but was \"tomorrow\"",
              "p.yaml: document 1: spec.timeout is not a known field (known: criticality, enabled, failureRateThreshold, failureThreshold, fallbackPolicy, halfOpenPermits, maxOpenSeconds, maxProbeSeconds, minimumCalls, openSeconds, probeLeaseSeconds, rateLimited, slowCallMillis, staticDefault, storeFailureMode, windowSeconds)",
              "p.yaml: document 1: spec.failureThreshold must be an integer but was \"five\"",
              "p.yaml: document 1: spec.windowSeconds must be a whole number of milliseconds but was 1.0005",
              "p.yaml: document 1: spec.failureRateThreshold must be > 0 and <= 100 but was 120.0",
              "p.yaml: document 1: spec.minimumCalls must be an integer but was 2.5",
              "p.yaml: document 1: spec.slowCallMillis must be >= 1 but was -1",
              "p.yaml: document 1: spec.openSeconds must be a number of seconds but was \"30\"",
              "p.yaml: document 1: spec.halfOpenPermits is out of range: 99999999999",
              "p.yaml: document 1: spec.probeLeaseSeconds must be <= 3600 but was 7200",
              "p.yaml: document 1: spec.storeFailureMode must be one of [LOCAL_ONLY, LAST_KNOWN, ALLOW_ALL] but was \"sometimes\"",
              "p.yaml: document 1: spec.fallbackPolicy must be one of [NONE, CACHED, STATIC_DEFAULT, DEFERRED, CONTROLLED_FAILURE] but was 3",
              "p.yaml: document 1: spec.staticDefault must be a name matching [a-z0-9][a-z0-9._-]{0,62} but was \"Basic Plan\"",
              "p.yaml: document 1: spec.enabled must be true or false but was \"yes\"");
    }

    @Test
    @DisplayName("rateLimited takes IGNORE, BACKOFF or COUNT; anything else is a located error")
    void rateLimitedIsChecked() {
      String ok = "metadata: {id: claims:members}\nspec:\n  rateLimited: BACKOFF\n";
      assertThat(PolicyParser.parse("p.yaml", ok).documents().get(0).policy().rateLimited())
          .isEqualTo(io.breakerctl.runtime.model.RateLimitAction.BACKOFF);
      String bad = "metadata: {id: claims:members}\nspec:\n  rateLimited: sometimes\n";
      assertThat(problems("p.yaml", bad))
          .containsExactly(
              "p.yaml: document 1: spec.rateLimited must be one of [IGNORE, BACKOFF, COUNT] but"
                  + " was \"sometimes\"");
      assertThat(PolicyParser.parse("p.yaml", bad).problems().get(0).line())
          .as("the line of the rateLimited key")
          .isEqualTo(3);
      assertThat(PolicyParser.parse("p.yaml", bad).documents()).isEmpty();
    }

    @Test
    @DisplayName("a field problem names the line of its key (else of its document)")
    void fieldProblemsNameTheirLine() {
      String yaml =
          """
          metadata: {id: claims:ok}
          ---
          metadata:
            id: claims:members
            onwer: me
          spec:
            openSeconds: 30
            failureThreshold: 0
          ---
          - not a mapping
          """;
      List<String> printed =
          PolicyParser.parse("p.yaml", yaml).problems().stream()
              .map(PolicyProblem::toString)
              .toList();
      assertThat(printed)
          .containsExactly(
              "p.yaml: document 2: line 5: metadata.onwer is not a known field (known: expiresAt,"
                  + " id, labels, owner)",
              "p.yaml: document 2: line 8: spec.failureThreshold must be >= 1 but was 0",
              "p.yaml: document 3: document must be a mapping with apiVersion, kind, metadata and"
                  + " spec but was a list [\"not a mapping\"]");
      String json = "[{\"metadata\": {\"id\": \"a:b\"},\n \"spec\": {\"minimumCalls\": 0}}]";
      assertThat(PolicyParser.parse("p.json", json).problems())
          .extracting(PolicyProblem::line)
          .containsExactly(2);
    }

    @Test
    @DisplayName("an empty file, only ---, an unreadable or non-regular path: a problem, never ok")
    void noDocumentIsAProblem(@TempDir Path dir) throws Exception {
      assertThat(problems("p.yaml", ""))
          .containsExactly(
              "p.yaml: holds no policy document (an empty file, or only --- separators)");
      assertThat(problems("p.yaml", "---\n---\n")).hasSize(1);
      Path fifo = dir.resolve("fifo.yaml");
      Process mk = new ProcessBuilder("mkfifo", fifo.toString()).start();
      assertThat(mk.waitFor()).isZero();
      assertThat(PolicyParser.read(fifo).problems())
          .extracting(PolicyProblem::message)
          .containsExactly("is not a regular file (policies are read from files)");
    }

    @Test
    @DisplayName("metadata.expiresAt not in the future is a problem when a time is given")
    void expiryInThePast(@TempDir Path dir) throws Exception {
      Path f = dir.resolve("p.yaml");
      java.nio.file.Files.writeString(
          f, "metadata:\n  id: a:b\n  expiresAt: \"2020-01-01T00:00:00Z\"\n");
      assertThat(PolicyParser.read(List.of(f)).problems()).as("no time given").isEmpty();
      PolicySet set =
          PolicyParser.read(List.of(f), java.time.Instant.parse("2026-12-05T00:00:00Z"));
      assertThat(set.isValid()).isFalse();
      assertThat(set.documents()).isEmpty();
      assertThat(set.problems())
          .extracting(PolicyProblem::message)
          .containsExactly(
              "metadata.expiresAt 2020-01-01T00:00:00Z is not in the future: the version would"
                  + " expire as it is created");
      assertThat(set.problems())
          .extracting(PolicyProblem::line)
          .as("located at the key, as every other problem")
          .containsExactly(3);
    }

    @Test
    void staticDefaultMustBeAName() {
      assertThat(problems("p.yaml", "metadata: {id: a:b}\nspec: {staticDefault: [a]}\n"))
          .containsExactly(
              "p.yaml: document 1: spec.staticDefault must be a name matching [a-z0-9][a-z0-9._-]{0,62} but was a list [\"a\"]");
      assertThat(problems("p.yaml", "metadata: {id: a:b}\nspec: {staticDefault: null}\n"))
          .isEmpty();
    }

    @Test
    void crossFieldRuleIsReportedWithTheSpecPath() {
      assertThat(
              problems(
                  "p.yaml", "metadata: {id: a:b}\nspec: {openSeconds: 60, maxOpenSeconds: 10}\n"))
          .containsExactly(
              "p.yaml: document 1: spec.maxOpenSeconds must be >= openSeconds (60) but was 10");
    }

    @Test
    void missingIdAndWrongShapes() {
      assertThat(problems("p.yaml", "spec: {}\n---\n- a\n- b\n---\nmetadata: 3\nspec: 4\n"))
          .containsExactly(
              "p.yaml: document 1: metadata.id is required",
              "p.yaml: document 2: document must be a mapping with apiVersion, kind, metadata and spec but was a list [\"a\",\"b\"]",
              "p.yaml: document 3: metadata must be a mapping but was 3",
              "p.yaml: document 3: spec must be a mapping but was 4");
    }

    @Test
    void badIdsAreRejectedQuotingTheId() {
      String longId = "a".repeat(300) + ":b";
      String yaml =
          "metadata: {id: \"{\"}\n---\nmetadata: {id: \"a}:b\"}\n---\nmetadata: {id: \"a b:c\"}\n"
              + "---\nmetadata: {id: \""
              + longId
              + "\"}\n---\nmetadata: {id: \"*:b\"}\n---\nmetadata: {id: \"A:*\"}\n---\nmetadata: {id: 7}\n";

      List<String> found = problems("p.yaml", yaml);

      assertThat(found).hasSize(7);
      assertThat(found.get(0))
          .startsWith("p.yaml: document 1: metadata.id policy id must be")
          .contains("'{'");
      assertThat(found.get(1)).startsWith("p.yaml: document 2: metadata.id").contains("'a}'");
      assertThat(found.get(2)).startsWith("p.yaml: document 3: metadata.id").contains("'a b'");
      assertThat(found.get(3))
          .startsWith("p.yaml: document 4: metadata.id")
          .contains("is 300 characters long (at most 63)");
      assertThat(found.get(4)).startsWith("p.yaml: document 5: metadata.id").contains("'*'");
      assertThat(found.get(5)).startsWith("p.yaml: document 6: metadata.id").contains("'A'");
      assertThat(found.get(6))
          .isEqualTo("p.yaml: document 7: metadata.id must be a string but was 7");
    }

    @Test
    void yamlSyntaxErrorCarriesLineAndColumn() {
      String yaml = "metadata: {id: a:b}\n---\nmetadata:\n  id: a:c\n spec: [\n";

      List<String> found = problems("p.yaml", yaml);

      assertThat(found)
          .singleElement()
          .asString()
          .matches("p\\.yaml: document 2: line \\d+, column \\d+: syntax error: .+");
      PolicyProblem p = PolicyParser.parse("p.yaml", yaml).problems().get(0);
      assertThat(p.line()).isBetween(4, 6);
      assertThat(p.column()).isPositive();
    }

    @Test
    void jsonSyntaxErrorAndDuplicateKey() {
      PolicyProblem syntax =
          PolicyParser.parse("p.json", "{\"metadata\": {\"id\": \"a:b\",}}").problems().get(0);
      PolicyProblem dup =
          PolicyParser.parse(
                  "p.yaml",
                  "metadata: {id: a:b}\nspec:\n  failureThreshold: 1\n  failureThreshold: 2\n")
              .problems()
              .get(0);

      assertThat(syntax.line()).isEqualTo(1);
      assertThat(syntax.column()).isEqualTo(27);
      assertThat(syntax.message()).startsWith("syntax error: ");
      assertThat(dup.line()).isEqualTo(4);
      assertThat(dup.message()).contains("failureThreshold");
    }

    @Test
    void invalidSetCannotBeApplied() {
      PolicySet set = PolicyParser.parse("p.yaml", "metadata: {id: a:b}\nspec: {enabled: 1}\n");

      assertThat(set.isValid()).isFalse();
      assertThatThrownBy(set::requireValid)
          .isInstanceOf(InvalidPolicyException.class)
          .hasMessageContaining(
              "p.yaml: document 1: line 2: spec.enabled must be true or false but was 1");
    }
  }

  @Nested
  @DisplayName("files and directories")
  class Files_ {

    @TempDir Path dir;

    @Test
    void duplicateIdsAcrossFilesAndOversizedFilesAreProblems() throws IOException {
      Path policies = Files.createDirectories(dir.resolve("policies"));
      Files.writeString(
          policies.resolve("a.yaml"), "metadata: {id: a:b}\n---\nmetadata: {id: a:c}\n");
      Files.writeString(policies.resolve("b.json"), "{\"metadata\": {\"id\": \"a:c\"}}");
      Files.writeString(policies.resolve("notes.txt"), "ignored");
      Files.writeString(
          policies.resolve("c.yml"),
          "metadata: {id: a:d}\n# " + "x".repeat((int) PolicyParser.MAX_FILE_BYTES) + "\n");

      PolicySet set = PolicyParser.read(policies);

      assertThat(set.problems())
          .extracting(PolicyProblem::toString)
          .containsExactly(
              policies.resolve("b.json")
                  + ": document 1: line 1: metadata.id 'a:c' is already defined in "
                  + policies.resolve("a.yaml")
                  + " document 2",
              policies.resolve("c.yml")
                  + ": file is 1048599 bytes, over the limit of 1048576 bytes (1 MiB)");
      assertThat(set.documents()).hasSize(2);
    }

    @Test
    void missingFileAndEmptyDirectory() throws IOException {
      Path empty = Files.createDirectories(dir.resolve("empty"));

      PolicySet set = PolicyParser.read(dir.resolve("nope.yaml"), empty);

      assertThat(set.problems())
          .extracting(PolicyProblem::message)
          .containsExactly(
              "no such file or directory", "directory holds no *.yaml, *.yml or *.json file");
    }
  }
}
