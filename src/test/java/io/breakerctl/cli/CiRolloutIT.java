package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.control.PolicyVersion;
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
 * jar as breakerctl and real servers (issue 14, item 10).
 */
@DisplayName("scripts/ci-rollout (packaged jar, a git repository of policies)")
class CiRolloutIT extends WithCliServers {
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
    Files.createDirectories(repo.resolve("policies"));
    Files.writeString(
        repo.resolve("policies/payments.yaml"),
        "apiVersion: breakerctl/v1\nkind: Policy\nmetadata:\n  id: ci:payments\nspec:\n"
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

    Files.writeString(repo.resolve("policies/broken.yaml"), "kind: Policy\nspec: [\n");
    Run invalid = rollout(Map.of());
    assertThat(invalid.code()).as(invalid.toString()).isEqualTo(2);
    assertThat(invalid.err()).contains("broken.yaml");
    assertThat(reasons()).hasSize(2);
  }
}
