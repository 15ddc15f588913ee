package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.control.ControlConfig;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.policy.ApplyOptions;
import io.breakerctl.runtime.control.policy.PolicyControl;
import io.breakerctl.runtime.control.policy.PolicyDocument;
import io.breakerctl.runtime.control.policy.PolicyId;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.NodeCallCounts;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.ChildJvm;
import io.breakerctl.testing.MemoryMongo;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Redis loses its data (FLUSHALL) under a fleet of three HYBRID nodes in two JVMs (two in a child,
 * one here) serving policy v3 under a CLI override (issue 30, item 1): {@code doctor} fails at
 * once, naming the lost deployment; within 5 s of the flush {@code status -o json} shows the three
 * nodes, v3 and the override again, put back by the nodes themselves (no control plane runs: the
 * nodes' {@code checkInterval} is 1 s, and they notice the flush at their next check or script
 * answer). Then a live node serving calls without a report on the breaker: {@code doctor}'s reports
 * check names it, and only it. The CLI runs in-process (the packaged jar's wiring is the contract
 * tests' concern). A flush at an open window's end, where at most one probe may pass, is {@code
 * FailoverIT.flushAtWindowEnd} (20 rounds).
 */
@DisplayName("FLUSHALL under three nodes in two JVMs: status shows them, v3 and the override again")
class FlushRecoveryIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final BreakerId ID = BreakerId.parse("flush:pricing");
  private static final long VERSION = 3;

  @RegisterExtension final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);
  @TempDir Path home;
  @RegisterExtension final MemoryMongo mongo = new MemoryMongo();

  private InProcessRun run(String... args) {
    return InProcessRun.breakerctl(home, redis.uri(), mongo.uri(), args);
  }

  private InProcessRun ok(String... args) {
    InProcessRun r = run(args);
    assertThat(r.code()).as("%s: %s%s", String.join(" ", args), r.out(), r.err()).isZero();
    return r;
  }

  /** The breaker's status item, or a missing node when no key holds it. */
  private JsonNode status() {
    try {
      return JSON.readTree(ok("status", ID.toString(), "-o", "json").out()).path("items").path(0);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Whether the status shows three nodes reporting v3, v3 warmed and the override. */
  private static boolean whole(JsonNode s) {
    return s.path("nodes").path("reporting").asInt() == 3
        && s.path("policy").path("version").asLong() == VERSION
        && s.path("override").path("state").asText().equals("FORCED_OPEN")
        && s.path("override").path("reason").asText().equals("flush drill");
  }

  @Test
  @DisplayName(
      "doctor fails at once; within 5 s status -o json shows 3 nodes, v3 and the override;"
          + " a serving node without a report is named")
  void flushedFleetComesBack() throws Exception {
    RedisFleetStore store =
        redis.manage(RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build()));
    try (ControlDatabase db =
        ControlDatabase.connect(ControlConfig.builder().uri(mongo.uri()).build())) {
      PolicyControl control = new PolicyControl(db, store, Clock.systemUTC());
      for (int v = 1; v <= VERSION; v++) {
        control.apply(
            PolicyDocument.of(PolicyId.of(ID), Policy.builder().failureThreshold(2 + v).build()),
            ApplyOptions.by("setup", "v" + v));
      }
    }
    ChildJvm child =
        redis.manage(
            ChildJvm.start(
                ServingNodesMain.class, redis.uri(), ID.toString(), "2", "flush-child-", "1000"));
    BreakerRegistry local =
        redis.manage(
            BreakerRegistry.builder()
                .redisUri(redis.uri())
                .nodeId("flush-local")
                .mode(Mode.HYBRID)
                .checkInterval(Duration.ofSeconds(1))
                .flushInterval(Duration.ofMillis(200))
                .build());
    CircuitBreaker node = local.breaker(ID);
    AtomicBoolean calling = new AtomicBoolean(true);
    Thread caller =
        new Thread(
            () -> {
              while (calling.get()) {
                try {
                  node.call(() -> "ok");
                } catch (RuntimeException rejected) {
                  // forced open
                }
                try {
                  Thread.sleep(20);
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "flush-local-caller");
    caller.setDaemon(true);
    caller.start();
    try {
      Poll.until(
          Duration.ofSeconds(60),
          "the child's nodes are built (READY)",
          () -> child.stdout().contains("READY"));
      ok("history", "sync"); // MongoDB records the deployment's identity at this Redis
      ok("force", "open", ID.toString(), "--for", "10m", "--reason", "flush drill", "--yes");
      Poll.until(
          Duration.ofSeconds(30),
          "status shows 3 nodes on v3 under the override before the flush",
          () -> whole(status()));
      ok("doctor"); // every check passes before the flush

      redis.server().flushAll();
      long flushedAt = System.currentTimeMillis();
      InProcessRun doctor = run("doctor");
      assertThat(doctor.code()).as(doctor.out() + doctor.err()).isEqualTo(1);
      assertThat(doctor.out()).contains("Redis holds no deployment key").contains("lost its data");

      JsonNode after = status();
      while (!whole(after) && System.currentTimeMillis() - flushedAt < 5_000) {
        Thread.sleep(50);
        after = status();
      }
      long back = System.currentTimeMillis() - flushedAt;
      assertThat(whole(after))
          .as("status shows the 3 nodes, v3 and the override again within 5 s: %s", after)
          .isTrue();
      System.out.printf("flush recovery: status whole again %d ms after FLUSHALL%n", back);
      assertThat(back).as("ms from the flush until status was whole").isLessThanOrEqualTo(5_000);

      // a live node serving calls of the breaker without a report on it: what the fleet view
      // shows from a flush until the nodes report again (a second at most here, too short to
      // catch), made to last by a node that sends its beat and counts (alive.lua, as any node)
      // and never reports
      StoreFutures.await(
          store.alive(
              "silent-node",
              Duration.ofMinutes(1),
              new NodeCallCounts(
                  1_000, Map.of(ID.toString(), new NodeCallCounts.Counts(40, 0, 0)))));
      InProcessRun silent = run("doctor");
      assertThat(silent.code()).as(silent.out()).isEqualTo(1);
      assertThat(silent.out())
          .containsPattern("fail +reports +1 live node\\(s\\) serving calls without a report")
          .contains("silent-node on flush:pricing")
          .doesNotContain("flush-local on")
          .doesNotContain("flush-child-");
    } finally {
      calling.set(false);
      caller.join(2_000);
    }
  }
}
