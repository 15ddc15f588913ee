package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import io.breakerctl.BreakerCtl;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisServerProcess;
import java.io.BufferedReader;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The run layer: commands executed in-process with captured stdout/stderr on real servers. */
@DisplayName("breakerctl commands (in-process, real servers)")
class CliRunIT {
  static RedisServerProcess redis;
  static MongoServer mongo;
  static String mongoUri;
  @TempDir static Path home;

  record Run(int code, String out, String err) {
    @Override
    public String toString() {
      return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  @BeforeAll
  static void start() {
    redis =
        RedisServerProcess.builder(RedisBinary.embedded())
            .config(
                "user operator on >op-secret ~* &* -@all +@read +@write +@connection +time +info"
                    + " +evalsha +eval +publish\n")
            .start();
    mongo = new MongoServer(new MemoryBackend());
    mongo.bind("127.0.0.1", 0);
    mongoUri = "mongodb://127.0.0.1:" + mongo.getLocalAddress().getPort();
    try (RedisFleetStore s =
        RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build())) {
      for (String id : new String[] {"claims:members", "claims:billing", "web:search:query"}) {
        StoreFutures.await(
            s.record(BreakerId.parse(id), Outcome.failure("n1", ""), Policy.DEFAULT));
      }
    }
  }

  @AfterAll
  static void stop() {
    mongo.shutdownNow();
    redis.close();
  }

  static Run run(String stdin, boolean interactive, String... args) {
    Map<String, String> env = new HashMap<>();
    env.put("XDG_CONFIG_HOME", home.toString());
    env.put("BREAKERCTL_REDIS", redis.uri());
    env.put("BREAKERCTL_MONGO", mongoUri);
    // a starved machine (a busy-core run took 23 minutes) must not time a read out: the runs here
    // show what the commands print, not how fast they answer
    env.put("BREAKERCTL_TIMEOUT", "10s");
    env.put("BREAKERCTL_REDIS_PASSWORD", "op-secret");
    Environment e =
        new Environment(
            env,
            interactive,
            Clock.systemUTC(),
            new BufferedReader(new StringReader(stdin)),
            "tester");
    InProcessRun r = InProcessRun.execute(BreakerCtl.commandLine(e), args);
    return new Run(r.code(), r.out(), r.err());
  }

  static Run run(String... args) {
    return run("", false, args);
  }

  /** A run that succeeded and printed exactly {@code out} (on failure: its exit and stderr). */
  static void expectOut(Run r, String out) {
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out()).as(r.toString()).isEqualTo(out);
  }

  @Nested
  @DisplayName("status")
  class Status {
    @Test
    @DisplayName("filters by caller, dependency and state; sorts; -o name")
    void filters() {
      expectOut(
          run("status", "--caller", "claims", "-o", "name", "--sort", "id"),
          "claims:billing\nclaims:members\n");
      expectOut(run("status", "--dependency", "search", "-o", "name"), "web:search:query\n");
      expectOut(run("status", "--state", "OPEN", "-o", "name"), "");
      expectOut(
          run("status", "--state", "closed", "-o", "name", "--sort", "id"),
          "claims:billing\nclaims:members\nweb:search:query\n");
    }

    @Test
    @DisplayName("--watch renders again every interval, bounded by --watch-count")
    void watch() {
      Run r =
          run(
              "status",
              "claims:*",
              "-w",
              "--interval",
              "100ms",
              "--watch-count",
              "2",
              "-o",
              "name",
              "--sort",
              "id");
      assertThat(r.code()).isZero();
      assertThat(r.out())
          .isEqualTo("claims:billing\nclaims:members\n\nclaims:billing\nclaims:members\n");
    }

    @Test
    @DisplayName("yaml and jsonl are versioned / one object a line; tables have headers")
    void formats() {
      Run yaml = run("status", "claims:members", "-o", "yaml");
      assertThat(yaml.out()).startsWith("apiVersion: breakerctl/v1\nkind: BreakerList\nitems:\n");
      Run jsonl = run("status", "claims:*", "-o", "jsonl");
      assertThat(jsonl.out().split("\n")).hasSize(2).allMatch(l -> l.startsWith("{\"id\":"));
      Run table = run("status", "--no-headers", "claims:members");
      assertThat(table.out()).startsWith("claims:members").doesNotContain("STATE");
    }
  }

  @Nested
  @DisplayName("force")
  class Force {
    @Test
    @DisplayName("on a terminal the prompt lists the breakers; declining exits 5")
    void promptDeclined() {
      Run r = run("n\n", true, "force", "open", "claims:*", "--reason", "drill");
      assertThat(r.code()).isEqualTo(5);
      assertThat(r.err()).contains("claims:billing").contains("claims:members").contains("[y/N]");
      assertThat(redis.call("HGET", "cb:{claims:members}", "override")).isNull();
    }

    @Test
    @DisplayName("accepting applies to every selected breaker, as the operator ACL user")
    void promptAcceptedAsOperator() {
      Run r =
          run(
              "y\n",
              true,
              "force",
              "metrics-only",
              "--caller",
              "claims",
              "--reason",
              "drill",
              "--for",
              "1m",
              "-o",
              "json",
              "--redis-user",
              "operator",
              "--timeout",
              "10s");
      assertThat(r.code()).as(r.err()).isZero();
      assertThat(r.out()).contains("\"kind\" : \"OverrideList\"").contains("claims:billing");
      assertThat(redis.call("HGET", "cb:{claims:members}", "override")).isEqualTo("METRICS_ONLY");
      assertThat(redis.call("HGET", "cb:{claims:members}", "overrideActor"))
          .asString()
          .as("the ACL user it connected as, then the OS user and host")
          .startsWith("operator(tester@");
      Run clear = run("force", "clear", "claims:*", "--reason", "drill over", "--yes");
      assertThat(clear.code()).as(clear.err()).isZero();
    }

    @Test
    @DisplayName("disable then clear; clearing again is a conflict (3)")
    void clearTwice() {
      Run set = run("force", "disable", "web:search:query", "--reason", "r", "--yes");
      assertThat(set.code()).as(set.err()).isZero();
      Run clear = run("force", "clear", "web:search:query", "--reason", "r", "--yes");
      assertThat(clear.code()).as(clear.err()).isZero();
      Run again = run("force", "clear", "web:search:query", "--reason", "r", "--yes");
      assertThat(again.code()).isEqualTo(3);
      assertThat(again.err()).contains("no override to clear");
    }
  }

  @Test
  @DisplayName("describe -o yaml is one versioned Breaker document")
  void describeYaml() {
    Run r = run("describe", "claims:members", "-o", "yaml");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out())
        .startsWith("apiVersion: breakerctl/v1\nkind: Breaker\nid: claims:members\n");
  }

  @Nested
  @DisplayName("policy apply --prune")
  class Prune {
    @Test
    @DisplayName("on a terminal the prompt lists the deletions: no cancels (5), yes deletes")
    void promptListsDeletions(@TempDir Path dir) throws Exception {
      Files.writeString(dir.resolve("a.yaml"), PolicyCliIT.policy("prompt:a", 3));
      Files.writeString(dir.resolve("b.yaml"), PolicyCliIT.policy("prompt:b", 4));
      String[] global = {"--prefix", "prompt"}; // keys apart from the breakers status lists
      Run setup =
          run(concat(global, "policy", "apply", "-f", dir.toString(), "--reason", "setup", "-y"));
      assertThat(setup.code()).as(setup.toString()).isZero();
      Files.delete(dir.resolve("b.yaml"));
      String[] prune =
          concat(global, "policy", "apply", "-f", dir.toString(), "--prune", "--reason", "gone");

      Run declined = run("n\n", true, prune);

      assertThat(declined.code()).as(declined.toString()).isEqualTo(5);
      assertThat(declined.err())
          .contains("delete the policies no file holds (reason: gone) on 1 policy:")
          .contains("  prompt:b (delete)")
          .contains("Continue? [y/N]");
      assertThat(run(concat(global, "policy", "get", "prompt:b")).code()).isZero();

      Run confirmed = run("y\n", true, prune);

      assertThat(confirmed.code()).as(confirmed.toString()).isZero();
      assertThat(confirmed.out())
          .contains("policy prompt:b: v1 -> v2 (deleted) [prune: in no file]")
          .contains("0 changed, 1 unchanged, 1 deleted of 2 policies");
      assertThat(run(concat(global, "policy", "get", "prompt:b")).code()).isEqualTo(7);
      Run tombstone =
          run(concat(global, "policy", "get", "prompt:b", "--revision", "2", "-o", "json"));
      assertThat(tombstone.code()).as(tombstone.toString()).isZero();
      assertThat(tombstone.out()).contains("\"deleted\" : true").contains("\"reason\" : \"gone\"");
      Run kept = run(concat(global, "policy", "get", "prompt:a", "-o", "json"));
      assertThat(kept.out()).as("printed only when true").doesNotContain("\"deleted\"");
    }

    private static String[] concat(String[] a, String... b) {
      String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
      System.arraycopy(b, 0, out, a.length, b.length);
      return out;
    }
  }
}
