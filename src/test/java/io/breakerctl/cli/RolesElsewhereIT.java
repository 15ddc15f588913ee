package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.breakerctl.console.VirtualTerminal;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisClusterProcess;
import io.breakerctl.testing.RedisServerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 29's roles where {@link RolesIT} does not go: {@code top}'s force keys, {@code
 * scripts/ci-rollout} and a 3-master Redis Cluster, with the docs' ACL lines (and, on the Cluster,
 * the additions the page names). A refused write leaves Redis and every MongoDB collection as they
 * were; an allowed one records the operator as the actor.
 */
@DisplayName("roles in top, in scripts/ci-rollout and on a Redis Cluster (docs' ACL lines)")
class RolesElsewhereIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String OS_USER =
      System.getenv().getOrDefault("USER", System.getProperty("user.name"));

  @TempDir static Path home;
  static RolesIT.Servers servers;
  static RedisServerProcess redis;
  static String mongoUri;
  static CliProcess cli;

  @BeforeAll
  static void start() throws Exception {
    servers = new RolesIT.Servers();
    redis = servers.redis;
    mongoUri = servers.mongoUri;
    cli = servers.cli(home);
  }

  @AfterAll
  static void stop() {
    if (servers != null) {
      servers.close();
    }
  }

  private static void record(String uri, String breaker) {
    try (RedisFleetStore store = RedisFleetStore.connect(StoreConfig.builder().uri(uri).build())) {
      StoreFutures.await(
          store.record(BreakerId.parse(breaker), Outcome.successes("n1", 1), Policy.DEFAULT));
    }
  }

  private static Map<String, String> as(String role, String redisUri) {
    return Map.of(
        "BREAKERCTL_REDIS",
        redisUri,
        "BREAKERCTL_REDIS_USER",
        role,
        "BREAKERCTL_REDIS_PASSWORD",
        RolesIT.PASSWORDS.get(role));
  }

  /** The newest event of {@code breaker} with {@code reason}, as {@code history} shows it. */
  private static JsonNode eventOf(String breaker, String reason) throws Exception {
    CliProcess.Result r = cli.run("history", breaker, "-o", "json");
    assertThat(r.code()).as(r.toString()).isZero();
    JsonNode found = null;
    for (JsonNode e : JSON.readTree(r.out()).path("items")) {
      if (e.path("reason").asText().equals(reason)) {
        found = e;
      }
    }
    assertThat(found).as("'" + reason + "' in " + r.out()).isNotNull();
    return found;
  }

  // --- top ---

  /**
   * Runs top on {@code breaker} as {@code role}, presses o, then c, each with a reason and
   * confirmed, and waits (bounded) for each one's outcome on the status line to say all of {@code
   * outcome} (a frame reaches the screen in pieces: what is awaited is the whole of it).
   */
  private static void topForceAndClear(String role, String breaker, String... outcome)
      throws Exception {
    Map<String, String> env = new HashMap<>(VirtualTerminal.variables(home.resolve("top-" + role)));
    env.putAll(as(role, redis.uri()));
    env.put("BREAKERCTL_MONGO", mongoUri);
    try (VirtualTerminal t = new VirtualTerminal(env, 400, 30)) {
      t.awaitText(s -> s.contains(", prefix cb)> "), VirtualTerminal.BOUND, "the prompt");
      t.type("top " + breaker + " --interval 30s\r");
      t.awaitScreen(s -> s.contains(breaker + " "), VirtualTerminal.BOUND, "the first render");
      for (String[] key : List.of(new String[] {"o", "open"}, new String[] {"c", "clear"})) {
        t.type(key[0]);
        if (key[1].equals("open")) {
          t.awaitScreen(s -> s.contains("for how long?"), VirtualTerminal.BOUND, "the duration");
          t.type("\r"); // until cleared
        }
        t.awaitScreen(s -> s.contains("reason to "), VirtualTerminal.BOUND, "the reason");
        t.type("top-" + key[1] + "-by-" + role + "\r");
        t.awaitScreen(s -> s.contains("[y/N]"), VirtualTerminal.BOUND, "the confirmation");
        t.type("y");
        String prefix = "force " + key[1] + " " + breaker + ": ";
        t.awaitScreen(
            s ->
                Arrays.stream(s.split("\n"))
                    .anyMatch(
                        l -> l.contains(prefix) && Arrays.stream(outcome).allMatch(l::contains)),
            VirtualTerminal.BOUND,
            prefix + " with " + Arrays.toString(outcome));
      }
      t.type("q");
    }
  }

  @Test
  @DisplayName("top as a viewer: o and c are refused naming the permission; nothing written")
  void topViewer() throws Exception {
    record(redis.uri(), "roles:top-viewer");
    Map<String, Object> redisBefore = RolesIT.redisDump(redis);
    Map<String, Object> mongoBefore = RolesIT.mongoDump(mongoUri);
    topForceAndClear("viewer", "roles:top-viewer", ": exit 4: ", "'viewer'", "NOPERM", "'evalsha'");
    assertThat(RolesIT.redisDump(redis)).as("Redis after top's keys").isEqualTo(redisBefore);
    assertThat(RolesIT.mongoDump(mongoUri)).as("MongoDB after top's keys").isEqualTo(mongoBefore);
  }

  @Test
  @DisplayName("top as an operator: o forces open, c clears, both audited as the operator")
  void topOperator() throws Exception {
    String breaker = "roles:top-operator";
    record(redis.uri(), breaker);
    topForceAndClear("operator", breaker, ": done");
    JsonNode open = eventOf(breaker, "top-open-by-operator");
    assertThat(open.path("cause").asText()).isEqualTo("OVERRIDE_SET");
    assertThat(open.path("to").asText()).isEqualTo("FORCED_OPEN");
    assertThat(open.path("actor").asText()).startsWith("operator(it@");
    JsonNode clear = eventOf(breaker, "top-clear-by-operator");
    assertThat(clear.path("cause").asText()).isEqualTo("OVERRIDE_CLEARED");
    assertThat(clear.path("actor").asText()).startsWith("operator(it@");
    assertThat(redis.call("HGET", "cb:{" + breaker + "}", "overrideActor")).as("cleared").isNull();
  }

  // --- scripts/ci-rollout ---

  private static CliProcess.Result sh(Path dir, Map<String, String> env, String... cmd)
      throws Exception {
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("BREAKERCTL_") || k.startsWith("CI_"));
    pb.environment().putAll(env);
    Path out = Files.createTempFile(home, "sh", ".out");
    Path err = Files.createTempFile(home, "sh", ".err");
    Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("hung: " + String.join(" ", cmd));
    }
    return new CliProcess.Result(
        p.exitValue(), Files.readString(out), Files.readString(err), java.time.Duration.ZERO);
  }

  @Test
  @DisplayName("scripts/ci-rollout with a viewer's credential exits 4 and writes nothing")
  void ciRolloutViewer() throws Exception {
    Path repo = Files.createDirectories(home.resolve("policy-repo"));
    Files.createDirectories(repo.resolve("policies"));
    Files.writeString(repo.resolve("policies/roles.yaml"), PolicyCliIT.policy("roles:ci", 7));
    Map<String, String> git =
        Map.of(
            "GIT_AUTHOR_NAME", "ci",
            "GIT_AUTHOR_EMAIL", "ci@example.org",
            "GIT_COMMITTER_NAME", "ci",
            "GIT_COMMITTER_EMAIL", "ci@example.org");
    for (String[] c :
        List.of(
            new String[] {"git", "init", "-q"},
            new String[] {"git", "add", "-A"},
            new String[] {"git", "commit", "-q", "-m", "roles:ci threshold 7"})) {
      CliProcess.Result r = sh(repo, git, c);
      assertThat(r.code()).as(r.toString()).isZero();
    }
    String script = Path.of("scripts/ci-rollout").toAbsolutePath().toString();
    String breakerctl = CiRolloutIT.breakerctl();
    Map<String, Object> redisBefore = RolesIT.redisDump(redis);
    Map<String, Object> mongoBefore = RolesIT.mongoDump(mongoUri);
    CliProcess.Result viewer = sh(repo, rollout(breakerctl, "viewer"), script, "policies");
    assertThat(viewer.code()).as(viewer.toString()).isEqualTo(4);
    assertThat(viewer.err())
        .as("the dry run showed the change, the apply was refused")
        .contains("failureThreshold")
        .contains("ci-rollout: applying")
        .contains("NOPERM")
        .contains("'viewer'");
    assertThat(RolesIT.redisDump(redis)).as("Redis after the rollout").isEqualTo(redisBefore);
    assertThat(RolesIT.mongoDump(mongoUri)).as("MongoDB after the rollout").isEqualTo(mongoBefore);

    CliProcess.Result operator = sh(repo, rollout(breakerctl, "operator"), script, "policies");
    assertThat(operator.code()).as(operator.toString()).isZero();
    assertThat(RolesIT.mongoDump(mongoUri)).as("a version applied").isNotEqualTo(mongoBefore);
    JsonNode versions = JSON.readTree(cli.run("policy", "history", "roles:ci", "-o", "json").out());
    assertThat(versions.path("items").get(0).path("status").path("author").asText())
        .startsWith("operator(ci-bot@");
  }

  /** ci-rollout's environment: the credential in BREAKERCTL_REDIS's user info, as a CI sets it. */
  private static Map<String, String> rollout(String breakerctl, String role) {
    Map<String, String> env = new HashMap<>();
    env.put(
        "BREAKERCTL_REDIS",
        "redis://"
            + role
            + ":"
            + RolesIT.PASSWORDS.get(role)
            + "@"
            + redis.host()
            + ":"
            + redis.port());
    env.put("BREAKERCTL_MONGO", mongoUri);
    env.put("BREAKERCTL_TIMEOUT", "5s");
    env.put("BREAKERCTL", breakerctl);
    env.put("XDG_CONFIG_HOME", home.resolve("ci-config").toString());
    env.put("NO_COLOR", "1");
    env.put("USER", "ci-bot");
    return env;
  }

  // --- Redis Cluster ---

  /** What src/docs/cli.md says the viewer and the operator also need on a Cluster. */
  private static List<String> readmeClusterAdditions() throws IOException {
    Matcher m =
        Pattern.compile("(?m)^# on Redis Cluster the viewer and the operator also need: (.*)$")
            .matcher(Files.readString(Path.of("src/docs/cli.md")));
    assertThat(m.find()).as("the docs' Cluster note under the role lines").isTrue();
    return List.of(m.group(1).trim().split(" +"));
  }

  private static void setUser(
      RedisClusterProcess cluster, String user, String role, List<String> more) throws Exception {
    List<String> args = new ArrayList<>(List.of("ACL", "SETUSER", user, "on"));
    args.add(">" + RolesIT.PASSWORDS.get(role));
    args.addAll(List.of(RolesIT.readmeRoles().get(role).split(" +")));
    args.addAll(more);
    for (RedisServerProcess master : cluster.nodes()) {
      assertThat(master.call(args.toArray(new String[0]))).hasToString("OK");
    }
  }

  private static Map<String, Object> clusterDump(RedisClusterProcess cluster) {
    Map<String, Object> dump = new TreeMap<>();
    cluster.nodes().forEach(n -> dump.put(n.uri(), RolesIT.redisDump(n)));
    return dump;
  }

  @Test
  @DisplayName("a Cluster: the viewer reads and may not force; the operator forces, as itself")
  void cluster() throws Exception {
    try (RedisClusterProcess cluster = RedisClusterProcess.start(RedisBinary.embedded())) {
      List<String> additions = readmeClusterAdditions();
      for (String role : List.of("viewer", "operator")) {
        setUser(cluster, role, role, additions);
      }
      String breaker = "roles:cluster";
      record(cluster.uri(), breaker);

      CliProcess.Result status = cli.run(as("viewer", cluster.uri()), "status", "roles:*");
      assertThat(status.code()).as(status.toString()).isZero();
      assertThat(status.out()).contains(breaker);

      Map<String, Object> redisBefore = clusterDump(cluster);
      Map<String, Object> mongoBefore = RolesIT.mongoDump(mongoUri);
      CliProcess.Result refused =
          cli.run(as("viewer", cluster.uri()), "force", "open", breaker, "--reason", "r", "--yes");
      assertThat(refused.code()).as(refused.toString()).isEqualTo(4);
      assertThat(refused.err()).contains("NOPERM").contains("'viewer'");
      assertThat(clusterDump(cluster)).as("every master after the refusal").isEqualTo(redisBefore);
      assertThat(RolesIT.mongoDump(mongoUri)).isEqualTo(mongoBefore);

      CliProcess.Result forced =
          cli.run(
              as("operator", cluster.uri()),
              "force",
              "open",
              breaker,
              "--reason",
              "on-the-cluster",
              "--yes");
      assertThat(forced.code()).as(forced.toString()).isZero();
      assertThat(
              cluster
                  .masterFor("cb:{" + breaker + "}")
                  .call("HGET", "cb:{" + breaker + "}", "overrideActor"))
          .asString()
          .startsWith("operator(" + OS_USER + "@");

      // the note is needed: without it the viewer cannot even read the cluster
      setUser(cluster, "viewer-without-note", "viewer", List.of());
      Map<String, String> bare = new HashMap<>(as("viewer", cluster.uri()));
      bare.put("BREAKERCTL_REDIS_USER", "viewer-without-note");
      CliProcess.Result without = cli.run(bare, "status", "roles:*");
      assertThat(without.code()).as(without.toString()).isEqualTo(4);
      assertThat(without.err()).contains("NOPERM").contains("'cluster'");
    }
  }
}
