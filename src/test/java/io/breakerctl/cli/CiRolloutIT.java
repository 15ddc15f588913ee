package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.breakerctl.runtime.control.policy.PolicyVersion;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code scripts/ci-rollout} against a temporary git repository of policy files, with the packaged
 * jar as breakerctl and real servers (issue 14, item 10). The rollback, history and get the test
 * runs itself between pipelines are in-process ({@link CliProcess#inProcess}).
 */
@DisplayName("scripts/ci-rollout (packaged jar, a git repository of policies)")
class CiRolloutIT extends WithCliServers {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path repo;

  private record Run(int code, String out, String err) {}

  private Run sh(Map<String, String> env, String... cmd) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(repo.toFile());
    Map<String, String> e = pb.environment();
    e.keySet().removeIf(k -> k.startsWith("BREAKERCTL_") || k.startsWith("CI_ROLLOUT"));
    e.put("BREAKERCTL_REDIS", servers.redis.uri());
    e.put("BREAKERCTL_MONGO", servers.mongoUri());
    e.put("BREAKERCTL_TIMEOUT", "2s");
    e.put("XDG_CONFIG_HOME", home.toString());
    e.put("NO_COLOR", "1");
    e.put("USER", "ci-bot");
    e.put("GIT_AUTHOR_NAME", "ci");
    e.put("GIT_AUTHOR_EMAIL", "ci@example.org");
    e.put("GIT_COMMITTER_NAME", "ci");
    e.put("GIT_COMMITTER_EMAIL", "ci@example.org");
    e.put("BREAKERCTL", breakerctl());
    e.putAll(env);
    Process p = pb.start();
    CompletableFuture<String> out = CliProcess.drain(p.getInputStream());
    CompletableFuture<String> err = CliProcess.drain(p.getErrorStream());
    if (!p.waitFor(90, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("hung: " + String.join(" ", cmd));
    }
    return new Run(p.exitValue(), out.get(5, TimeUnit.SECONDS), err.get(5, TimeUnit.SECONDS));
  }

  /** The packaged jar as {@code BREAKERCTL} (the command line the script runs). */
  static String breakerctl() {
    return Path.of(System.getProperty("java.home"), "bin", "java")
        + " "
        + String.join(" ", CliProcess.jvmFlags())
        + " -jar "
        + CliProcess.jar().toAbsolutePath();
  }

  private Run rollout(Map<String, String> env) throws Exception {
    return sh(env, Path.of("scripts/ci-rollout").toAbsolutePath().toString(), "policies");
  }

  private void commit(String threshold, String subject) throws Exception {
    commit("ci:payments", threshold, subject);
  }

  private void commit(String id, String threshold, String subject) throws Exception {
    Files.createDirectories(repo.resolve("policies"));
    Files.writeString(
        repo.resolve("policies/payments.yaml"),
        "apiVersion: breakerctl/v1\nkind: Policy\nmetadata:\n  id: "
            + id
            + "\nspec:\n"
            + "  failureThreshold: "
            + threshold
            + "\n",
        StandardCharsets.UTF_8);
    assertThat(sh(Map.of(), "git", "add", "-A").code()).isZero();
    assertThat(sh(Map.of(), "git", "commit", "-q", "-m", subject).code()).isZero();
  }

  private String head() throws Exception {
    return sh(Map.of(), "git", "rev-parse", "--short=12", "HEAD").out().trim();
  }

  /** The reasons of the policy's versions, oldest first (from MongoDB, not through the CLI). */
  private static List<String> reasons() {
    return PolicyCliIT.versionsOn(servers, "ci:payments").stream()
        .map(PolicyVersion::reason)
        .toList();
  }

  @Test
  @DisplayName("a change is applied with the commit as reason; a concurrent change fails with 3")
  void rollout() throws Exception {
    Files.createDirectories(repo.resolve("policies"));
    Files.writeString(
        repo.resolve("policies/payments.yaml"),
        "metadata: {id: ci:payments}\nspec: {failureThreshold: 9}\n",
        StandardCharsets.UTF_8);
    Run noGit = rollout(Map.of());
    assertThat(noGit.code()).as("outside a git repository: %s", noGit).isEqualTo(2);
    assertThat(noGit.err()).contains("is not in a git repository").doesNotContain("fatal:");
    assertThat(PolicyCliIT.versionsOn(servers, "ci:payments")).as("nothing applied").isEmpty();

    assertThat(sh(Map.of(), "git", "init", "-q").code()).isZero();
    commit("5", "payments: threshold 5");

    Run first = rollout(Map.of());
    assertThat(first.code()).as(first.toString()).isZero();
    assertThat(first.err()).contains("+ spec.failureThreshold: (none) -> 5");
    PolicyVersion v1 = PolicyCliIT.versionsOn(servers, "ci:payments").get(0);
    assertThat(v1.reason()).isEqualTo(head() + ": payments: threshold 5");
    assertThat(v1.author()).startsWith("default(ci-bot@");

    Run again = rollout(Map.of());
    assertThat(again.code()).as(again.toString()).isZero();
    assertThat(again.err()).contains("nothing to apply");
    assertThat(reasons()).hasSize(1);

    commit("8", "payments: threshold 8");
    Path other = repo.resolve("other.yaml");
    Files.writeString(
        other,
        "apiVersion: breakerctl/v1\nkind: Policy\nmetadata:\n  id: ci:payments\nspec:\n"
            + "  failureThreshold: 42\n");
    // someone else applies between the reviewed dry run and the apply
    String concurrent = breakerctl() + " policy apply -f " + other + " --reason hotfix --yes";
    Run conflict = rollout(Map.of("CI_ROLLOUT_GATE", concurrent + " >/dev/null"));
    assertThat(conflict.code()).as(conflict.toString()).isEqualTo(3);
    assertThat(conflict.err()).contains("expected version 1 but is 2");
    assertThat(reasons()).as("the concurrent change stands; the commit applied nothing").hasSize(2);
    assertThat(reasons().get(1)).isEqualTo("hotfix");

    // the same pipeline again must not apply over the hotfix (issue 30, item 2)
    Run rerun = rollout(Map.of());
    assertThat(rerun.code()).as(rerun.toString()).isEqualTo(3);
    assertThat(rerun.err())
        .contains("policy ci:payments: version 2 in force was not made by a CI rollout")
        .contains("origin hand")
        .contains("reason: hotfix")
        .contains("CI_ROLLOUT_OVERRIDE_HUMAN=1")
        .contains("~ spec.failureThreshold: 42 -> 8")
        .doesNotContain("ci-rollout: applying");
    assertThat(reasons()).as("the hotfix stands").hasSize(2);

    Files.writeString(repo.resolve("policies/broken.yaml"), "kind: Policy\nspec: [\n");
    Run invalid = rollout(Map.of());
    assertThat(invalid.code()).as(invalid.toString()).isEqualTo(2);
    assertThat(invalid.err()).contains("broken.yaml");
    assertThat(reasons()).hasSize(2);
  }

  @Test
  @DisplayName(
      "after a human rollback the pipeline refuses (3, nothing written) until told to override;"
          + " -o json is one document with plan and result")
  void refusesOverARollback() throws Exception {
    assertThat(sh(Map.of(), "git", "init", "-q").code()).isZero();
    commit("ci:gitops", "5", "gitops: threshold 5");
    Run first = rollout(Map.of());
    assertThat(first.code()).as(first.toString()).isZero();
    String c1 = head();
    commit("ci:gitops", "1", "gitops: threshold 1");
    Run second = rollout(Map.of());
    assertThat(second.code()).as(second.toString()).isZero();
    String c2 = head();
    List<PolicyVersion> applied = PolicyCliIT.versionsOn(servers, "ci:gitops");
    assertThat(applied)
        .extracting(v -> v.origin().toString())
        .containsExactly("ci:" + c1, "ci:" + c2);

    CliProcess.Result rolled =
        cli.inProcess(
            "policy", "rollback", "ci:gitops", "--to", "1", "--reason", "v2 hurt", "--yes");
    assertThat(rolled.code()).as(rolled.toString()).isZero();
    assertThat(rolled.err())
        .contains("the policy repository (commit " + c2 + ") still holds the spec of v2")
        .contains("refuses to apply over v3")
        .contains("CI_ROLLOUT_OVERRIDE_HUMAN=1")
        .contains("change the file of ci:gitops in the repository");
    PolicyVersion v3 = PolicyCliIT.versionsOn(servers, "ci:gitops").get(2);
    assertThat(v3.origin().toString()).isEqualTo("rollback:v1");

    Run refused = rollout(Map.of());
    assertThat(refused.code()).as(refused.toString()).isEqualTo(3);
    assertThat(refused.err())
        .contains("policy ci:gitops: version 3 in force was not made by a CI rollout")
        .contains("origin rollback:v1, by " + v3.author() + " at " + v3.createdAt())
        .contains("reason: v2 hurt")
        .contains("nothing was written")
        .contains("~ spec.failureThreshold: 5 -> 1")
        .doesNotContain("ci-rollout: applying");
    assertThat(refused.out()).doesNotContain("CREATED");
    assertThat(PolicyCliIT.versionsOn(servers, "ci:gitops")).as("nothing written").hasSize(3);

    Run refusedJson = sh(Map.of(), script(), "-o", "json", "policies");
    assertThat(refusedJson.code()).as(refusedJson.toString()).isEqualTo(3);
    JsonNode doc = JSON.readTree(refusedJson.out());
    assertThat(doc.path("apiVersion").asText()).isEqualTo("breakerctl/v1");
    assertThat(doc.path("kind").asText()).isEqualTo("CiRollout");
    assertThat(doc.path("commit").asText()).isEqualTo(c2);
    assertThat(doc.path("origin").asText()).isEqualTo("ci:" + c2);
    assertThat(doc.path("overrideHuman").asBoolean()).isFalse();
    assertThat(doc.path("plan")).hasSize(1);
    assertThat(doc.path("plan").get(0).path("policyId").asText()).isEqualTo("ci:gitops");
    assertThat(doc.path("plan").get(0).path("outcome").asText()).isEqualTo("WOULD_CHANGE");
    assertThat(doc.path("plan").get(0).path("fromVersion").asLong()).isEqualTo(3);
    assertThat(doc.path("result").path("outcome").asText()).isEqualTo("REFUSED_HAND_CHANGE");
    assertThat(doc.path("result").path("exitCode").asInt()).isEqualTo(3);
    assertThat(doc.path("result").path("items")).isEmpty();
    assertThat(doc.path("result").path("error").asText())
        .contains("version 3 in force was not made by a CI rollout");
    assertThat(refusedJson.err()).contains("ci-rollout: dry run");
    assertThat(PolicyCliIT.versionsOn(servers, "ci:gitops")).hasSize(3);

    Run override = sh(Map.of("CI_ROLLOUT_OVERRIDE_HUMAN", "1"), script(), "-o", "json", "policies");
    assertThat(override.code()).as(override.toString()).isZero();
    assertThat(override.err()).contains("CI_ROLLOUT_OVERRIDE_HUMAN=1: applying over");
    JsonNode applied4 = JSON.readTree(override.out());
    assertThat(applied4.path("overrideHuman").asBoolean()).isTrue();
    assertThat(applied4.path("result").path("outcome").asText()).isEqualTo("APPLIED");
    assertThat(applied4.path("result").path("exitCode").asInt()).isZero();
    assertThat(applied4.path("result").path("error").isNull()).isTrue();
    assertThat(applied4.path("result").path("items").get(0).path("outcome").asText())
        .isEqualTo("CREATED");
    assertThat(applied4.path("result").path("items").get(0).path("version").asLong()).isEqualTo(4);
    List<PolicyVersion> after = PolicyCliIT.versionsOn(servers, "ci:gitops");
    assertThat(after).hasSize(4);
    assertThat(after.get(3).origin().toString()).isEqualTo("ci:" + c2);
    assertThat(after.get(3).policy().failureThreshold()).isEqualTo(1);

    Run upToDate = sh(Map.of(), script(), "-o", "json", "policies");
    assertThat(upToDate.code()).as(upToDate.toString()).isZero();
    JsonNode none = JSON.readTree(upToDate.out());
    assertThat(none.path("result").path("outcome").asText()).isEqualTo("UP_TO_DATE");
    assertThat(none.path("plan").get(0).path("outcome").asText()).isEqualTo("WOULD_NOT_CHANGE");

    CliProcess.Result history = cli.inProcess("policy", "history", "ci:gitops");
    assertThat(history.code()).as(history.toString()).isZero();
    assertThat(history.out())
        .contains("ORIGIN")
        .containsPattern("1\\s+\\S+\\s+\\S+\\s+-\\s+-\\s+ci:" + c1 + "\\s+" + c1 + ": gitops")
        .containsPattern("3\\s+\\S+\\s+\\S+\\s+-\\s+-\\s+rollback:v1\\s+v2 hurt")
        .containsPattern("4\\*\\s+\\S+\\s+\\S+\\s+-\\s+-\\s+ci:" + c2);
    CliProcess.Result get = cli.inProcess("policy", "get", "ci:gitops", "-o", "json");
    assertThat(JSON.readTree(get.out()).path("status").path("origin").asText())
        .isEqualTo("ci:" + c2);
  }

  private static String script() {
    return Path.of("scripts/ci-rollout").toAbsolutePath().toString();
  }
}
