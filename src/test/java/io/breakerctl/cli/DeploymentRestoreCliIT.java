package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.mongodb.client.model.Filters;
import io.breakerctl.runtime.control.ControlConfig;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.redis.BreakerKeys;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisServerProcess;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.bson.Document;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@code replay restore} goes only into the deployment its history belongs to (issue 29, item 7):
 * two Redis servers share one MongoDB and one prefix; the packaged jar restores the first one's
 * breakers into the first one after FLUSHALL, refuses to rebuild them into the second (nothing
 * written anywhere), and does so only when the source is named with {@code --from-deployment}.
 */
@DisplayName("replay restore: only into the deployment the history belongs to (packaged jar)")
class DeploymentRestoreCliIT extends WithCliServers {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String DEPLOYMENT_KEY = BreakerKeys.withPrefix("cb").deployment();

  @Test
  @DisplayName(
      "a second Redis sharing MongoDB and prefix is refused (exit 3, nothing written) unless"
          + " --from-deployment names the source; the first is restored after FLUSHALL")
  void restoreOnlyIntoItsOwnDeployment() throws Exception {
    BreakerId open = BreakerId.parse("dep:open");
    Policy trip = Policy.builder().failureThreshold(3).open(Duration.ofMinutes(5)).build();
    StoreFutures.await(servers.store.record(open, new Outcome("n1", 3, 0, -1, "", ""), trip));
    ReplayCliIT.override("dep:forced", OverrideKind.FORCED_OPEN, Duration.ofMinutes(30));
    Map<String, String> before = ReplayCliIT.states(json(cli.run("status", "dep:*", "-o", "json")));
    assertThat(before)
        .containsExactly(Map.entry("dep:forced", "FORCED_OPEN"), Map.entry("dep:open", "OPEN"));

    CliProcess.Result sync = cli.run("history", "sync");
    assertThat(sync.code()).as(sync.toString()).isZero();
    String first = String.valueOf(servers.redis.call("GET", DEPLOYMENT_KEY));
    assertThat(first)
        .as("the forwarder gave the first Redis an identity")
        .matches("d-[0-9a-f]{12}");
    try (ControlDatabase db =
        ControlDatabase.connect(ControlConfig.builder().uri(servers.mongoUri()).build())) {
      assertThat(
              db.collection(ControlDatabase.HISTORY)
                  .countDocuments(Filters.regex("breakerId", "^dep:")))
          .as("history stored")
          .isPositive();
      assertThat(
              db.collection(ControlDatabase.HISTORY)
                  .countDocuments(
                      Filters.and(
                          Filters.regex("breakerId", "^dep:"), Filters.ne("deployment", first))))
          .as("every history document carries the deployment it came from")
          .isZero();
      Document recorded =
          db.collection(ControlDatabase.DEPLOYMENTS).find(Filters.eq("_id", first)).first();
      assertThat(recorded).isNotNull();
      assertThat(recorded.getString("prefix")).isEqualTo("cb");
      assertThat(recorded.getList("addresses", String.class))
          .containsExactly("127.0.0.1:" + servers.redis.port());
    }

    try (RedisServerProcess second = RedisServerProcess.start(RedisBinary.embedded())) {
      long audits = audits();
      for (String[] args :
          List.of(
              new String[] {"--redis", second.uri(), "replay", "restore", "--yes"},
              new String[] {"--redis", second.uri(), "replay", "restore", "--dry-run"},
              new String[] {"--redis", second.uri(), "replay", "restore", "dep:*", "--yes"})) {
        CliProcess.Result refused = cli.run(args);
        assertThat(refused.code()).as(refused.toString()).isEqualTo(ExitCode.CONFLICT);
        assertThat(refused.err())
            .as(refused.toString())
            .contains("is no deployment on record for prefix 'cb'")
            .contains(first)
            .contains("127.0.0.1:" + servers.redis.port())
            .contains("--from-deployment " + first)
            .contains("nothing was restored")
            .doesNotContain("Exception");
        assertThat(second.call("DBSIZE")).as("nothing written into the second Redis").isEqualTo(0L);
        assertThat(audits()).as("no audit record").isEqualTo(audits);
      }

      CliProcess.Result unknown =
          cli.run(
              "--redis",
              second.uri(),
              "replay",
              "restore",
              "--from-deployment",
              "d-000000000000",
              "--yes");
      assertThat(unknown.code()).as(unknown.toString()).isEqualTo(ExitCode.NOT_FOUND);
      assertThat(unknown.err()).contains("no deployment d-000000000000 on record").contains(first);
      assertThat(second.call("DBSIZE")).isEqualTo(0L);

      // the first Redis loses its data, key included: it is recognised by its address
      servers.redis.flushAll();
      CliProcess.Result own = cli.run("replay", "restore", "dep:*", "--yes");
      assertThat(own.code()).as(own.toString()).isZero();
      assertThat(own.out())
          .contains("From deployment " + first + " (its data lost; recognised by its address")
          .contains("RESTORED");
      assertThat(ReplayCliIT.states(json(cli.run("status", "dep:*", "-o", "json"))))
          .isEqualTo(before);
      assertThat(servers.redis.call("GET", DEPLOYMENT_KEY))
          .as("the identity is back with the breakers")
          .isEqualTo(first);

      // named deliberately: the first deployment's breakers go into the second Redis, a new one
      CliProcess.Result moved =
          cli.run(
              "--redis",
              second.uri(),
              "replay",
              "restore",
              "dep:*",
              "--from-deployment",
              first,
              "--yes",
              "-o",
              "json");
      assertThat(moved.code()).as(moved.toString()).isZero();
      JsonNode report = JSON.readTree(moved.out());
      assertThat(report.path("fromDeployment").asText()).isEqualTo(first);
      String into = String.valueOf(second.call("GET", DEPLOYMENT_KEY));
      assertThat(into).matches("d-[0-9a-f]{12}").isNotEqualTo(first);
      assertThat(
              ReplayCliIT.states(
                  json(cli.run("--redis", second.uri(), "status", "dep:*", "-o", "json"))))
          .isEqualTo(before);

      // the second Redis is a deployment of its own now: its own history is empty, the first's is
      // named in a hint, and nothing changes
      long keys = (Long) second.call("DBSIZE");
      CliProcess.Result again = cli.run("--redis", second.uri(), "replay", "restore", "--yes");
      assertThat(again.code()).as(again.toString()).isZero();
      assertThat(again.out()).contains("From deployment " + into);
      assertThat(again.err()).contains("Nothing to restore.").contains(first);
      assertThat(second.call("DBSIZE")).isEqualTo(keys);
    }
  }

  private static long audits() {
    try (ControlDatabase db =
        ControlDatabase.connect(ControlConfig.builder().uri(servers.mongoUri()).build())) {
      return db.collection(ControlDatabase.AUDIT).countDocuments();
    }
  }

  private static JsonNode json(CliProcess.Result r) throws Exception {
    return ReplayCliIT.json(r);
  }
}
