package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.MemoryMongo;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisServerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An override acknowledged by a master only, lost in a failover, on a breaker no node uses (issue
 * 42, item 3): a master with a replica, {@code doctor} warning that nothing guards against lost
 * writes; the replica stalled (SIGSTOP) and its link killed ({@code CLIENT KILL TYPE replica}), so
 * {@code force open --min-replicas 1} exits 10 saying the override is on the master only; the
 * master SIGKILLed and the replica promoted ({@code REPLICAOF NO ONE}): the override is gone. One
 * history forwarder pass against the promoted replica ({@code history sync}, the pass the fleet's
 * forwarder-lease holder runs every 5 s) puts it back, with its actor, reason, expiry and
 * correlation id, as a REASSERTED transition by the forwarder's actor; a second pass changes
 * nothing. {@code doctor} fails naming the lost override before the pass, passes after it. And on
 * one server: an override whose keys were lost and recreated by a node's first call (a newer
 * incarnation without it) is put back; a cleared one is not.
 */
@DisplayName("an override lost in a failover is put back by the history forwarder")
class OverrideReassertIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String KEY = "cb:{ghost:unused}";

  @RegisterExtension final MemoryMongo mongo = new MemoryMongo();
  @TempDir Path home;

  private InProcessRun run(RedisServerProcess redis, String... args) {
    Map<String, String> env = new HashMap<>();
    env.put("XDG_CONFIG_HOME", home.toString());
    env.put("BREAKERCTL_REDIS", redis.uri());
    env.put("BREAKERCTL_MONGO", mongo.uri());
    env.put("BREAKERCTL_TIMEOUT", "2s");
    return InProcessRun.breakerctl(env, args);
  }

  @Test
  void lostOverridePutBack() throws Exception {
    try (RedisServerProcess master = RedisServerProcess.start(RedisBinary.embedded());
        RedisServerProcess replica = RedisServerProcess.replicaOf(master)) {
      // the deployment's identity, set by a forwarder pass, reaches the replica
      InProcessRun first = run(master, "history", "sync");
      assertThat(first.code()).as(first.err()).isZero();
      Poll.until(
          Duration.ofSeconds(10),
          "the replica holds the deployment's identity",
          () -> replica.call("GET", "cb:deployment") != null);
      InProcessRun doctor = run(master, "doctor");
      assertThat(doctor.out())
          .as("doctor warned that a failover can lose what the master acknowledged")
          .containsPattern("warn +replication +:\\d+ has min-replicas-to-write 0");

      replica.suspend();
      master.call("CLIENT", "KILL", "TYPE", "replica");
      Poll.until(
          Duration.ofSeconds(10),
          "the master lost its replica",
          () -> String.valueOf(master.call("INFO", "replication")).contains("connected_slaves:0"));
      InProcessRun forced =
          run(
              master,
              "force",
              "open",
              "ghost:unused",
              "--new",
              "--for",
              "1h",
              "--reason",
              "pre-empt the incident",
              "--min-replicas",
              "1",
              "--yes",
              "-o",
              "json");
      assertThat(forced.code()).as(forced.out() + forced.err()).isEqualTo(ExitCode.FEW_REPLICAS);
      JsonNode row = JSON.readTree(forced.out()).path("items").get(0);
      assertThat(row.path("replication").path("where").asText())
          .isEqualTo("on the master only (no replica connected)");
      assertThat(row.path("auditStored").asBoolean()).isTrue();
      String corr = row.path("correlationId").asText();

      master.kill(); // the failover: the replica that missed the override is promoted
      replica.resume();
      replica.call("REPLICAOF", "NO", "ONE");
      assertThat(replica.call("EXISTS", KEY)).as("lost with the master").isEqualTo(0L);

      InProcessRun lost = run(replica, "doctor");
      assertThat(lost.code()).as("doctor fails: " + lost.out()).isEqualTo(1);
      assertThat(lost.out())
          .containsPattern(
              "fail +overrides +1 override\\(s\\) MongoDB holds live are missing in Redis:"
                  + " ghost:unused FORCED_OPEN by default\\(tester@[^ ]+\\) \\(correlation id "
                  + corr
                  + "\\): Redis holds no keys");

      InProcessRun sync = run(replica, "history", "sync", "-o", "json");
      assertThat(sync.code()).as(sync.out() + sync.err()).isZero();
      assertThat(JSON.readTree(sync.out()).path("reasserted").toString())
          .isEqualTo("[\"ghost:unused\"]");
      assertThat(replica.call("HGET", KEY, "override")).isEqualTo("FORCED_OPEN");
      assertThat(replica.call("HGET", KEY, "overrideCorrelationId")).isEqualTo(corr);
      assertThat(replica.call("HGET", KEY, "overrideReason")).isEqualTo("pre-empt the incident");
      assertThat(Long.parseLong(String.valueOf(replica.call("HGET", KEY, "overrideUntil"))))
          .as("the expiry the operator gave, not a new hour")
          .isEqualTo(Instant.parse(row.path("until").asText()).toEpochMilli());

      InProcessRun history = run(replica, "history", "ghost:unused", "-o", "json");
      assertThat(history.code()).as(history.err()).isZero();
      assertThat(history.out()).contains("\"cause\" : \"REASSERTED\"").contains("OVERRIDE_SET");

      InProcessRun healed = run(replica, "doctor");
      assertThat(healed.out())
          .containsPattern("ok +overrides +every override MongoDB holds live is in Redis");

      InProcessRun again = run(replica, "history", "sync", "-o", "json");
      assertThat(again.code()).as(again.err()).isZero();
      assertThat(JSON.readTree(again.out()).path("reasserted").size())
          .as("nothing more to put back")
          .isZero();
      List<?> stream = (List<?>) replica.call("XRANGE", KEY + ":ev", "-", "+");
      assertThat(stream.toString()).as("one REASSERTED event").containsOnlyOnce("REASSERTED");
      assertThat(stream.toString())
          .as("who put it back")
          .contains("node, default(tester@")
          .containsPattern("\\(history forwarder\\), at,")
          .contains("reassertedCause, OVERRIDE_SET");
    }
  }

  @Test
  @DisplayName("recreated without it: put back; cleared: left alone")
  void recreatedAndCleared() throws Exception {
    try (RedisServerProcess redis = RedisServerProcess.start(RedisBinary.embedded())) {
      for (String id : new String[] {"gone:x", "kept:y"}) {
        InProcessRun f = run(redis, "force", "open", id, "--new", "--reason", "drill", "--yes");
        assertThat(f.code()).as(f.err()).isZero();
      }
      InProcessRun clear = run(redis, "force", "clear", "kept:y", "--reason", "over", "--yes");
      assertThat(clear.code()).as(clear.err()).isZero();
      // gone:x lost, then recreated by a node's first call: a new incarnation without the override
      redis.call("DEL", "cb:{gone:x}", "cb:{gone:x}:ev", "cb:{gone:x}:unfwd");
      try (RedisFleetStore node =
          RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build())) {
        StoreFutures.await(
            node.record(BreakerId.parse("gone:x"), Outcome.failure("n1", ""), Policy.DEFAULT));
      }
      assertThat(redis.call("HGET", "cb:{gone:x}", "override")).isNull();

      InProcessRun sync = run(redis, "history", "sync", "-o", "json");
      assertThat(sync.code()).as(sync.out() + sync.err()).isZero();
      assertThat(JSON.readTree(sync.out()).path("reasserted").toString()).isEqualTo("[\"gone:x\"]");
      assertThat(redis.call("HGET", "cb:{gone:x}", "override")).isEqualTo("FORCED_OPEN");
      assertThat(redis.call("HGET", "cb:{kept:y}", "override")).as("cleared").isNull();
    }
  }
}
