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
import io.breakerctl.runtime.store.StoreFutures;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * After Redis lost its data, {@code doctor} says which breakers are out of step with the versions
 * MongoDB holds in force (both ways), and {@code policy warm} puts back what MongoDB holds (issue
 * 30, item 1): the packaged jar against a real redis-server and the MongoDB-wire server, a node
 * running.
 */
@DisplayName("breakerctl doctor's policies check and policy warm after a FLUSHALL (packaged jar)")
class PolicyWarmCliIT extends WithCliServers {

  @Test
  @DisplayName(
      "FLUSHALL, a node on its defaults: doctor fails naming v2 not warmed; policy warm puts it"
          + " back and the node adopts it; a policy MongoDB does not hold stays named")
  void doctorSeesDriftAndWarmRepairs() throws Exception {
    BreakerId id = BreakerId.parse("warmback:dep");
    BreakerId stray = BreakerId.parse("warmback:stray");
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
    CliProcess.Result dryRun = cli.run("policy", "warm", "warmback:dep", "--dry-run");
    assertThat(dryRun.code()).as(dryRun.toString()).isZero();
    assertThat(dryRun.out()).contains("warmback:dep").contains("WOULD_WARM");

    CliProcess.Result sync = cli.run("history", "sync"); // records the deployment's identity
    assertThat(sync.code()).as(sync.toString()).isZero();

    servers.redis.flushAll(); // Redis lost its data; no node held the breaker to put v2 back
    try (BreakerRegistry registry =
        BreakerRegistry.builder()
            .redisUri(servers.redis.uri())
            .nodeId("warmback-node")
            .flushInterval(Duration.ofMillis(200))
            .build()) {
      CircuitBreaker node = registry.breaker(id);
      node.tryAcquire().onSuccess(1_000); // a node without a control plane: its defaults
      // a policy warmed into Redis that MongoDB does not hold in force (the reverse drift)
      StoreFutures.await(
          servers.store.warm(stray, "warmback:stray", 4, Policy.DEFAULT, "elsewhere"));
      Poll.until(
          Duration.ofSeconds(5),
          "the node's report is in Redis",
          () -> !StoreFutures.await(servers.store.snapshot(id, 0)).nodes().isEmpty());

      CliProcess.Result before = cli.run("doctor");
      assertThat(before.code()).as(before.toString()).isEqualTo(1);
      assertThat(before.out())
          .contains("warmback:dep: MongoDB warmback:dep@2, Redis none warmed")
          .contains("warmback:stray: MongoDB none in force, Redis warmback:stray@4")
          .contains("policy warm puts back what MongoDB holds")
          .contains("Redis holds no deployment key, but MongoDB recorded")
          .contains("Redis lost its data");

      // status compares with MongoDB (given in the environment): the row shows what it holds
      CliProcess.Result table = cli.run("status", "warmback:*");
      assertThat(table.code()).as(table.toString()).isZero();
      assertThat(table.out()).contains("- (MongoDB warmback:dep v2)");
      assertThat(table.err())
          .contains("warning: 2 breaker(s) hold another policy version than MongoDB has in force");
      CliProcess.Result json = cli.run("status", "warmback:dep", "-o", "json");
      assertThat(json.out())
          .containsPattern(
              "\"inForce\" : \\{\\s*\"id\" : \"warmback:dep\",\\s*\"version\" : 2,"
                  + "\\s*\"drift\" : true");

      CliProcess.Result warm = cli.run("policy", "warm", "warmback:dep", "-o", "json");
      assertThat(warm.code()).as(warm.toString()).isZero();
      assertThat(warm.out()).contains("\"breaker\" : \"warmback:dep\"").contains("WARMED");
      Poll.until(
          Duration.ofSeconds(5), "the node adopts v2", () -> node.view().policyVersion() == 2);
      Poll.until(
          Duration.ofSeconds(10),
          "doctor names only the stray policy",
          () -> {
            CliProcess.Result after = cli.run("doctor");
            return after.code() == 1
                && after.out().contains("1 breaker(s) out of step")
                && after.out().contains("warmback:stray")
                && !after.out().contains("warmback:dep");
          });
    }
    CliProcess.Result inStep = cli.run("status", "warmback:dep", "-o", "json");
    assertThat(inStep.out()).containsPattern("\"version\" : 2,\\s*\"drift\" : false");
    servers.stopMongo();
    try {
      CliProcess.Result down = cli.run("status", "warmback:dep");
      assertThat(down.code()).as("status without MongoDB still answers: %s", down).isZero();
      assertThat(down.out()).contains("warmback:dep");
      assertThat(down.err()).contains("warning: MongoDB could not be read");
    } finally {
      servers.startMongo();
    }
    CliProcess.Result unknown = cli.run("policy", "warm", "warmback:nothing");
    assertThat(unknown.code()).as(unknown.toString()).isEqualTo(7);
    assertThat(unknown.err()).contains("no policy warmback:nothing in force");
  }
}
