package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.breakerctl.runtime.control.ControlConfig;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.policy.ApplyOptions;
import io.breakerctl.runtime.control.policy.PolicyControl;
import io.breakerctl.runtime.control.policy.PolicyDocument;
import io.breakerctl.runtime.control.policy.PolicyId;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.StoreFutures;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@code replay restore} after Redis lost its data, as a user runs it: the packaged jar against a
 * real redis-server and the MongoDB-wire server (issue 14, item 5).
 */
@DisplayName("breakerctl replay restore after FLUSHALL (packaged jar)")
class ReplayRestoreCliIT extends WithCliServers {

  @Test
  @DisplayName("after FLUSHALL, replay restore --yes brings status back")
  void restoreAfterFlushAll() throws Exception {
    BreakerId open = BreakerId.parse("res:open");
    Policy slow = Policy.builder().failureThreshold(3).open(Duration.ofMinutes(2)).build();
    try (ControlDatabase db =
        ControlDatabase.connect(ControlConfig.builder().uri(servers.mongoUri()).build())) {
      new PolicyControl(db, servers.store, Clock.systemUTC())
          .apply(PolicyDocument.of(PolicyId.of(open), slow), ApplyOptions.by("setup", "slow"));
    }
    StoreFutures.await(servers.store.record(open, new Outcome("n1", 3, 0, -1, "", ""), slow));
    ReplayCliIT.override("res:forced", OverrideKind.FORCED_OPEN, Duration.ofMinutes(30));
    JsonNode before = ReplayCliIT.json(cli.run("status", "res:*", "-o", "json"));
    assertThat(ReplayCliIT.states(before))
        .containsExactly(Map.entry("res:forced", "FORCED_OPEN"), Map.entry("res:open", "OPEN"));

    CliProcess.Result sync = cli.run("history", "sync");
    assertThat(sync.code()).as(sync.toString()).isZero();
    assertThat(sync.out()).contains("forwarded");
    servers.redis.flushAll();

    CliProcess.Result restore = cli.run("replay", "restore", "res:*", "--yes");
    assertThat(restore.code()).as(restore.toString()).isZero();
    assertThat(restore.out()).contains("RESTORED");
    JsonNode after = ReplayCliIT.json(cli.run("status", "res:*", "-o", "json"));
    assertThat(ReplayCliIT.states(after)).isEqualTo(ReplayCliIT.states(before));
    // status -o json streams rows in SCAN order, which the re-created keys need not keep: rows are
    // paired by id (pairing by index compared res:forced with res:open when the order changed)
    for (String id : List.of("res:forced", "res:open")) {
      JsonNode b = item(before, id);
      JsonNode a = item(after, id);
      assertThat(a.path("policy").path("version"))
          .as("policy version")
          .isEqualTo(b.path("policy").path("version"));
      ReplayCliIT.close(a.path("openUntil"), b.path("openUntil"), "openUntil of " + a.path("id"));
      ReplayCliIT.close(
          a.path("override").path("until"),
          b.path("override").path("until"),
          "override until of " + a.path("id"));
      assertThat(a.path("override").path("reason")).isEqualTo(b.path("override").path("reason"));
    }
  }

  /** The status row of {@code id}. */
  private static JsonNode item(JsonNode status, String id) {
    for (JsonNode n : status.path("items")) {
      if (id.equals(n.path("id").asText())) {
        return n;
      }
    }
    throw new AssertionError("no row for " + id + " in " + status);
  }
}
