package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.breakerctl.testing.MemoryMongo;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisClusterProcess;
import io.breakerctl.testing.RedisExtension;
import io.breakerctl.testing.RedisServerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code force} says where each change is, asked of the breaker's master with {@code WAIT} on the
 * connection that wrote it (issue 42, item 3), and {@code --min-replicas N} (or {@code
 * BREAKERCTL_MIN_REPLICAS}) exits 10 when fewer than N replicas acknowledged it, the override still
 * set: a master without replicas, with one online, with one stalled (SIGSTOP: connected, answering
 * nothing); on a Cluster with a replica per master, a glob over every master with one replica
 * stalled: the rows of the healthy masters say 1/1, the stalled one's 0/1, and the worst decides.
 */
@DisplayName("force says how many replicas have each override; --min-replicas exits 10")
class ForceReplicasIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @RegisterExtension final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);
  @RegisterExtension final MemoryMongo mongo = new MemoryMongo();
  @TempDir Path home;

  private InProcessRun force(String redisUri, Map<String, String> extraEnv, String... args) {
    Map<String, String> env = new HashMap<>();
    env.put("XDG_CONFIG_HOME", home.toString());
    env.put("BREAKERCTL_REDIS", redisUri);
    env.put("BREAKERCTL_MONGO", mongo.uri());
    env.put("BREAKERCTL_TIMEOUT", "2s");
    env.putAll(extraEnv);
    List<String> all = new ArrayList<>(List.of("force"));
    all.addAll(List.of(args));
    all.addAll(List.of("--reason", "replicas drill", "--yes"));
    return InProcessRun.breakerctl(env, all.toArray(String[]::new));
  }

  private static Map<String, JsonNode> rows(InProcessRun r) throws Exception {
    Map<String, JsonNode> rows = new LinkedHashMap<>();
    JSON.readTree(r.out()).path("items").forEach(i -> rows.put(i.path("id").asText(), i));
    return rows;
  }

  @Test
  @DisplayName("standalone: no replica, one online, one stalled")
  void standalone() throws Exception {
    InProcessRun alone =
        force(redis.uri(), Map.of("BREAKERCTL_MIN_REPLICAS", "1"), "open", "rep:alone", "--new");
    assertThat(alone.code()).as(alone.out() + alone.err()).isEqualTo(ExitCode.FEW_REPLICAS);
    assertThat(alone.out())
        .contains("replicated: on the master only (no replica connected)")
        .containsPattern("rep:alone +CLOSED +FORCED_OPEN +SET .* none");
    assertThat(alone.err())
        .contains("fewer than 1 replica(s) acknowledged the change of 1 breaker(s)")
        .contains("the change IS set");
    assertThat(redis.server().call("HGET", "cb:{rep:alone}", "override")).isEqualTo("FORCED_OPEN");

    InProcessRun flagWins =
        force(
            redis.uri(),
            Map.of("BREAKERCTL_MIN_REPLICAS", "1"),
            "closed",
            "rep:alone",
            "--min-replicas",
            "0",
            "-o",
            "json");
    assertThat(flagWins.code()).as(flagWins.err()).isZero();
    assertThat(rows(flagWins).get("rep:alone").path("replication").toString())
        .isEqualTo(
            "{\"acknowledged\":0,\"connected\":0,"
                + "\"where\":\"on the master only (no replica connected)\"}");

    InProcessRun bad = force(redis.uri(), Map.of(), "open", "rep:alone", "--min-replicas", "x");
    assertThat(bad.code()).isEqualTo(ExitCode.USAGE);
    assertThat(bad.err()).contains("--min-replicas must be a whole number from 0 to 100");
    assertThat(redis.server().call("HGET", "cb:{rep:alone}", "override"))
        .as("nothing written")
        .isEqualTo("FORCED_CLOSED");

    try (RedisServerProcess replica = RedisServerProcess.replicaOf(redis.server())) {
      InProcessRun online =
          force(redis.uri(), Map.of(), "open", "rep:alone", "--min-replicas", "1", "-o", "json");
      assertThat(online.code()).as(online.out() + online.err()).isZero();
      JsonNode row = rows(online).get("rep:alone");
      assertThat(row.path("replication").path("acknowledged").asInt()).isEqualTo(1);
      assertThat(row.path("replication").path("where").asText())
          .isEqualTo("on the master and 1/1 replicas");
      assertThat(replica.call("HGET", "cb:{rep:alone}", "override")).isEqualTo("FORCED_OPEN");

      replica.suspend(); // connected, answering nothing: it cannot acknowledge
      try {
        InProcessRun stalled =
            force(redis.uri(), Map.of(), "closed", "rep:alone", "--min-replicas", "1");
        assertThat(stalled.code())
            .as(stalled.out() + stalled.err())
            .isEqualTo(ExitCode.FEW_REPLICAS);
        assertThat(stalled.out())
            .contains("replicated: on the master and 0/1 replicas")
            .containsPattern("rep:alone +FORCED_OPEN +FORCED_CLOSED +SET .* 0/1");
        assertThat(redis.server().call("HGET", "cb:{rep:alone}", "override"))
            .isEqualTo("FORCED_CLOSED");
      } finally {
        replica.resume();
      }
    }
  }

  @Test
  @DisplayName("Cluster: a glob over every master, one replica stalled: the worst decides")
  void clusterWorstDecides() throws Exception {
    try (RedisClusterProcess cluster =
        RedisClusterProcess.startWithReplicas(RedisBinary.embedded(), Duration.ofSeconds(15))) {
      // one breaker on each master
      Map<RedisServerProcess, String> byMaster = new LinkedHashMap<>();
      for (int i = 0; byMaster.size() < cluster.nodes().size(); i++) {
        String id = "rep:b" + i;
        byMaster.putIfAbsent(cluster.masterFor("cb:{" + id + "}"), id);
      }
      for (String id : byMaster.values()) {
        InProcessRun r = force(cluster.uri(), Map.of(), "open", id, "--new", "--min-replicas", "1");
        assertThat(r.code()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("replicated: on the master and 1/1 replicas");
      }
      RedisServerProcess stalledReplica = cluster.replicas().get(0);
      String onStalled = byMaster.get(cluster.nodes().get(0));
      stalledReplica.suspend();
      try {
        InProcessRun glob =
            force(cluster.uri(), Map.of(), "closed", "rep:*", "--min-replicas", "1", "-o", "json");
        assertThat(glob.code()).as(glob.out() + glob.err()).isEqualTo(ExitCode.FEW_REPLICAS);
        Map<String, JsonNode> rows = rows(glob);
        assertThat(rows).containsOnlyKeys(byMaster.values());
        rows.forEach(
            (id, row) -> {
              assertThat(row.path("result").asText()).as(id).isEqualTo("applied");
              assertThat(row.path("replication").path("where").asText())
                  .as(id)
                  .isEqualTo(
                      id.equals(onStalled)
                          ? "on the master and 0/1 replicas"
                          : "on the master and 1/1 replicas");
            });
        assertThat(glob.err())
            .contains("fewer than 1 replica(s) acknowledged the change of 1 breaker(s)")
            .contains("(" + onStalled + ")");
        for (Map.Entry<RedisServerProcess, String> e : byMaster.entrySet()) {
          assertThat(e.getKey().call("HGET", "cb:{" + e.getValue() + "}", "override"))
              .as("set on its master")
              .isEqualTo("FORCED_CLOSED");
        }
      } finally {
        stalledReplica.resume();
      }
    }
  }
}
