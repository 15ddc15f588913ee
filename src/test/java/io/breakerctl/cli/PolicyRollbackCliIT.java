package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.control.ControlConfig;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.policy.ApplyOptions;
import io.breakerctl.runtime.control.policy.PolicyControl;
import io.breakerctl.runtime.control.policy.PolicyDocument;
import io.breakerctl.runtime.control.policy.PolicyId;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.redis.Poll;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@code policy rollback} as a user runs it: the packaged jar against a real redis-server and the
 * MongoDB-wire server, with a runtime node running (issue 14, item 3).
 */
@DisplayName("breakerctl policy rollback (packaged jar, a running node)")
class PolicyRollbackCliIT extends WithCliServers {

  @Test
  @DisplayName("rollback: dry run shows the diff, then a new version in history; a node adopts it")
  void rollbackIsAdoptedByARunningNode() throws Exception {
    BreakerId id = BreakerId.parse("roll:dep");
    try (ControlDatabase db =
        ControlDatabase.connect(ControlConfig.builder().uri(servers.mongoUri()).build())) {
      PolicyControl control = new PolicyControl(db, servers.store, Clock.systemUTC());
      for (int threshold : new int[] {3, 8}) {
        control.apply(
            PolicyDocument.of(
                PolicyId.of(id), Policy.builder().failureThreshold(threshold).build()),
            ApplyOptions.by("setup", "v" + threshold));
      }
    }
    try (BreakerRegistry registry =
        BreakerRegistry.builder().redisUri(servers.redis.uri()).nodeId("roll-node").build()) {
      CircuitBreaker node = registry.breaker(id);
      node.tryAcquire().onSuccess(1_000);
      Poll.until(Duration.ofSeconds(5), "the node runs v2", () -> node.view().policyVersion() == 2);

      CliProcess.Result dry =
          cli.run(
              "policy", "rollback", "roll:dep", "--to", "1", "--reason", "v2 hurt", "--dry-run");
      assertThat(dry.code()).as(dry.toString()).isZero();
      assertThat(dry.out()).contains("~ spec.failureThreshold: 8 -> 3").contains("dry run");

      CliProcess.Result rolled =
          cli.run("policy", "rollback", "roll:dep", "--to", "1", "--reason", "v2 hurt", "--yes");
      assertThat(rolled.code()).as(rolled.toString()).isZero();
      assertThat(rolled.err())
          .as("the repository hint (issue 30, item 2): v2 was a hand apply, no commit known")
          .contains("note: a policy repository that CI applies may still hold the spec rolled back")
          .contains("The next scripts/ci-rollout refuses to apply over v3 (exit 3)")
          .contains("CI_ROLLOUT_OVERRIDE_HUMAN=1")
          .contains("change the file of roll:dep in the repository")
          .contains("'breakerctl policy get roll:dep -o yaml'");
      long done = System.nanoTime();
      // by push: the figure is printed; the bound is a regression bound (3x the old 1 s target),
      // still below the 5 s canary that would find it without a push
      Poll.until(
          Duration.ofSeconds(3),
          "the node adopts v3 by push (within 3 s; the canary check comes every 5 s)",
          () -> node.view().policyVersion() == 3);
      System.out.printf(
          "the node adopted v3 %d ms after the rollback%n", (System.nanoTime() - done) / 1_000_000);
    }
    CliProcess.Result history = cli.run("policy", "history", "roll:dep");
    assertThat(history.code()).as(history.toString()).isZero();
    assertThat(history.out())
        .contains("ORIGIN")
        .contains("CHANGE-CAUSE")
        .containsPattern("2\\s+\\S+\\s+\\S+\\s+-\\s+-\\s+hand\\s+v8")
        .containsPattern(
            "3\\*\\s+\\S+\\s+\\S+\\s+-\\s+-\\s+rollback:v1\\s+v2 hurt \\(rollback to v1\\)");

    CliProcess.Result missing =
        cli.run("policy", "rollback", "roll:dep", "--to", "9", "--reason", "x", "--yes");
    assertThat(missing.code()).as(missing.toString()).isEqualTo(7);
  }
}
