package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.breakerctl.runtime.control.ControlConfig;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.policy.PolicyId;
import io.breakerctl.runtime.control.policy.PolicyStore;
import io.breakerctl.runtime.control.policy.PolicyVersion;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The policy commands as a user runs them: the packaged jar against a real redis-server and the
 * MongoDB-wire server; exit codes, stdout and stderr apart (issue 14, items 1 to 3).
 */
@DisplayName("breakerctl policy (packaged jar)")
class PolicyCliIT extends WithCliServers {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  static String policy(String id, int threshold) {
    return "apiVersion: breakerctl/v1\nkind: Policy\nmetadata:\n  id: \""
        + id
        + "\"\nspec:\n  failureThreshold: "
        + threshold
        + "\n";
  }

  /** The versions of a policy as stored, oldest first (read from MongoDB, not through the CLI). */
  static List<PolicyVersion> versions(String id) {
    return versionsOn(servers, id);
  }

  static List<PolicyVersion> versionsOn(CliServers on, String id) {
    try (ControlDatabase db =
        ControlDatabase.connect(ControlConfig.builder().uri(on.mongoUri()).build())) {
      return new PolicyStore(db).versions(PolicyId.parse(id));
    }
  }

  private Path write(String name, String text) throws Exception {
    Path p = dir.resolve(name);
    Files.createDirectories(p.getParent());
    Files.writeString(p, text);
    return p;
  }

  @Test
  @DisplayName("validate is offline; an invalid file among valid ones: 2 and nothing applied")
  void validateAndInvalidApply() throws Exception {
    write("set/a.yaml", policy("val:a", 5));
    write(
        "set/b.yaml",
        policy("val:b", 0)
            + "---\n"
            + policy("Bad Id", 3)
            + "---\n"
            + policy("val:c", 3)
            + "  staticDefault: Premium Plan\n");
    Map<String, String> noServers =
        Map.of(
            "BREAKERCTL_REDIS", "redis://127.0.0.1:1", "BREAKERCTL_MONGO", "mongodb://127.0.0.1:1");

    CliProcess.Result ok =
        cli.run(noServers, "policy", "validate", dir.resolve("set/a.yaml").toString());
    assertThat(ok.code()).as(ok.toString()).isZero();
    assertThat(ok.out()).contains("val:a");

    CliProcess.Result bad = cli.run(noServers, "policy", "validate", dir.resolve("set").toString());
    assertThat(bad.code()).as(bad.toString()).isEqualTo(2);
    assertThat(bad.err())
        .containsPattern(
            "b.yaml: document 1: line \\d+: spec.failureThreshold must be >= 1 but was 0")
        .containsPattern("b.yaml: document 2: line \\d+: metadata.id")
        .contains("'Bad Id'")
        .contains(
            ": spec.staticDefault must be a name matching"
                + " [a-z0-9][a-z0-9._-]{0,62} but was \"Premium Plan\"")
        .doesNotContain("Exception");

    CliProcess.Result apply =
        cli.run("policy", "apply", "-f", dir.resolve("set").toString(), "--reason", "r", "--yes");
    assertThat(apply.code()).as(apply.toString()).isEqualTo(2);
    assertThat(apply.err()).contains("nothing was applied");
    assertThat(versions("val:a")).isEmpty();
  }

  @Test
  @DisplayName("a policy naming its static default: applied, and policy get shows the name")
  void staticDefaultIsAppliedAndShown() throws Exception {
    Path f =
        write(
            "named.yaml",
            policy("named:dep", 4) + "  fallbackPolicy: STATIC_DEFAULT\n  staticDefault: basic\n");
    CliProcess.Result apply =
        cli.run("policy", "apply", "-f", f.toString(), "--reason", "r", "--yes");
    assertThat(apply.code()).as(apply.toString()).isZero();
    CliProcess.Result got = cli.run("policy", "get", "named:dep", "-o", "yaml");
    assertThat(got.code()).as(got.toString()).isZero();
    assertThat(got.out())
        .contains("staticDefault: basic")
        .contains("fallbackPolicy: STATIC_DEFAULT");
    assertThat(versions("named:dep").get(0).policy().staticDefault()).contains("basic");
  }

  @Test
  @DisplayName(
      "a policy's criticality: applied, shown by policy get, warmed into Redis and read back by"
          + " describe")
  void criticalityIsAppliedWarmedAndShown() throws Exception {
    Path f = write("critical.yaml", policy("rated:dep", 4) + "  criticality: CRITICAL\n");
    CliProcess.Result apply =
        cli.run("policy", "apply", "-f", f.toString(), "--reason", "r", "--yes");
    assertThat(apply.code()).as(apply.toString()).isZero();
    CliProcess.Result got = cli.run("policy", "get", "rated:dep", "-o", "yaml");
    assertThat(got.code()).as(got.toString()).isZero();
    assertThat(got.out()).contains("criticality: CRITICAL");
    assertThat(versions("rated:dep").get(0).policy().criticality())
        .isEqualTo(io.breakerctl.runtime.model.Criticality.CRITICAL);
    CliProcess.Result described = cli.run("describe", "rated:dep", "-o", "json");
    assertThat(described.code()).as(described.toString()).isZero();
    JsonNode warmed = JSON.readTree(described.out()).path("policy").path("spec");
    assertThat(warmed.path("criticality").asText()).as(described.out()).isEqualTo("CRITICAL");

    Path bad = write("bad.yaml", policy("rated:dep", 4) + "  criticality: urgent\n");
    CliProcess.Result refused = cli.run("policy", "validate", bad.toString());
    assertThat(refused.code()).as(refused.toString()).isEqualTo(2);
    assertThat(refused.out() + refused.err())
        .contains("spec.criticality must be one of [NONE, LOW, MEDIUM, HIGH, CRITICAL]");
  }

  @Test
  @DisplayName("dry run 1 then apply, apply again: one version and 'unchanged'; dry run 0")
  void applyIsIdempotent() throws Exception {
    Path f = write("idem.yaml", policy("idem:dep", 4));
    String file = f.toString();

    CliProcess.Result dry = cli.run("policy", "apply", "-f", file, "--reason", "r", "--dry-run");
    assertThat(dry.code()).as(dry.toString()).isEqualTo(1);
    assertThat(dry.out()).contains("+ spec.failureThreshold: (none) -> 4");
    CliProcess.Result noReason = cli.run("policy", "apply", "-f", file, "--dry-run");
    assertThat(noReason.code()).as("a dry run needs no reason: %s", noReason).isEqualTo(1);
    assertThat(noReason.out()).contains("+ spec.failureThreshold: (none) -> 4");
    CliProcess.Result applyNoReason = cli.run("policy", "apply", "-f", file, "--yes");
    assertThat(applyNoReason.code()).as(applyNoReason.toString()).isEqualTo(2);
    assertThat(applyNoReason.err()).contains("--reason");
    assertThat(versions("idem:dep")).as("nothing applied without a reason").isEmpty();

    CliProcess.Result first =
        cli.run("policy", "apply", "-f", file, "--reason", "first", "--yes", "-o", "json");
    assertThat(first.code()).as(first.toString()).isZero();
    JsonNode item = JSON.readTree(first.out()).path("items").get(0);
    assertThat(item.path("outcome").asText()).isEqualTo("CREATED");
    assertThat(item.path("version").asLong()).isEqualTo(1);
    assertThat(item.path("warmed").get(0).path("outcome").asText()).isEqualTo("WARMED");

    // what `policy get -o yaml` prints is applied again: unchanged, no new version
    CliProcess.Result got = cli.run("policy", "get", "idem:dep", "-o", "yaml");
    assertThat(got.code()).as(got.toString()).isZero();
    assertThat(got.out())
        .contains("kind: Policy")
        .contains("failureThreshold: 4")
        .contains("version: 1");
    Path printed = write("printed.yaml", got.out());
    CliProcess.Result second =
        cli.run("policy", "apply", "-f", printed.toString(), "--reason", "again", "--yes");
    assertThat(second.code()).as(second.toString()).isZero();
    assertThat(second.out()).contains("unchanged at v1").contains("0 changed, 1 unchanged");
    assertThat(second.err()).isEmpty();

    assertThat(versions("idem:dep")).hasSize(1);
    CliProcess.Result dryAgain =
        cli.run("policy", "apply", "-f", file, "--reason", "r", "--dry-run");
    assertThat(dryAgain.code()).as(dryAgain.toString()).isZero();
  }

  @Test
  @DisplayName("two concurrent applies of different specs pinned to version 0: one 0, one 3")
  void concurrentApplies() throws Exception {
    String a = write("race-a.yaml", policy("race:dep", 3)).toString();
    String b = write("race-b.yaml", policy("race:dep", 9)).toString();
    CompletableFuture<CliProcess.Result> ra =
        CompletableFuture.supplyAsync(
            () ->
                cli.run(
                    "policy",
                    "apply",
                    "-f",
                    a,
                    "--reason",
                    "a",
                    "--yes",
                    "--expect",
                    "race:dep=0"));
    CompletableFuture<CliProcess.Result> rb =
        CompletableFuture.supplyAsync(
            () ->
                cli.run(
                    "policy",
                    "apply",
                    "-f",
                    b,
                    "--reason",
                    "b",
                    "--yes",
                    "--expect",
                    "race:dep=0"));
    List<CliProcess.Result> both = List.of(ra.get(), rb.get());

    assertThat(both)
        .extracting(CliProcess.Result::code)
        .as(both.toString())
        .containsExactlyInAnyOrder(0, 3);
    CliProcess.Result loser = both.stream().filter(r -> r.code() == 3).findFirst().orElseThrow();
    assertThat(loser.err()).contains("expected version 0 but is 1").contains("nothing was written");
    assertThat(versions("race:dep")).hasSize(1);
  }
}
