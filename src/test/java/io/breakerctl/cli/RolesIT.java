package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import io.breakerctl.runtime.control.ControlConfig;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.fallback.BusinessKeys;
import io.breakerctl.runtime.control.fallback.FallbackSnapshots;
import io.breakerctl.runtime.control.fallback.PayloadKeys;
import io.breakerctl.runtime.fallback.SnapshotApproval;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisServerProcess;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 29, items 1-3: the docs' viewer, operator and admin ACL lines (read from src/docs/cli.md
 * itself) against every command that writes. A refused write exits 4 and leaves Redis and every
 * MongoDB collection (documents and indexes) exactly as they were; an allowed one records the ACL
 * user as the actor, with the OS user and host beside it. The packaged jar runs as a process for
 * the first write of the viewer and of the operator, the admin's prune, the console and {@code
 * history --follow}; the other commands run in-process ({@link CliProcess#inProcess}: the same
 * command line and environment, against the same real Redis ACLs and MongoDB).
 */
@DisplayName("roles: who may write, and as whom (packaged jar and in-process, docs' ACL lines)")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RolesIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SALT = "roles-salt-of-this-test";
  private static final BreakerId BREAKER = BreakerId.parse("roles:dep");

  @TempDir static Path home;
  static Servers servers;
  static RedisServerProcess redis;
  static String mongoUri;
  static CliProcess cli;
  static final Map<String, String> PASSWORDS = new LinkedHashMap<>();

  /** The docs' {@code ACL SETUSER} lines: each role's rules after its password. */
  static Map<String, String> readmeRoles() throws Exception {
    Matcher m =
        Pattern.compile("(?m)^ACL SETUSER (viewer|operator|admin) on >([A-Z-]+) (.*)$")
            .matcher(Files.readString(Path.of("src/docs/cli.md")));
    Map<String, String> rules = new LinkedHashMap<>();
    while (m.find()) {
      rules.put(m.group(1), m.group(3));
      PASSWORDS.put(m.group(1), m.group(1) + "-pw-" + m.group(1).length());
    }
    assertThat(rules).as("the docs' role lines").containsOnlyKeys("viewer", "operator", "admin");
    return rules;
  }

  /** The docs' {@code ACL SETUSER} lines, as a redis.conf with this test's passwords. */
  static String readmeAclConfig() throws Exception {
    StringBuilder conf = new StringBuilder();
    readmeRoles()
        .forEach(
            (role, rules) ->
                conf.append("user ")
                    .append(role)
                    .append(" on >")
                    .append(PASSWORDS.get(role))
                    .append(' ')
                    .append(rules)
                    .append('\n'));
    return conf.toString();
  }

  @BeforeAll
  static void start() throws Exception {
    servers = new Servers();
    redis = servers.redis;
    mongoUri = servers.mongoUri;
    cli = servers.cli(home).env("BREAKERCTL_FALLBACK_SALT", SALT);
    // the state every command below could change, set up by the default user
    try (RedisFleetStore store =
        RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build())) {
      StoreFutures.await(store.record(BREAKER, Outcome.successes("n1", 1), Policy.DEFAULT));
      StoreFutures.await(
          store.record(BreakerId.parse("roles:gone"), Outcome.successes("n1", 1), Policy.DEFAULT));
    }
    for (int threshold : new int[] {3, 8}) {
      ok(
          cli.inProcess(
              "policy", "apply", "-f", policy(threshold).toString(), "--reason", "v", "--yes"));
    }
    ok(cli.inProcess("note", "roles:dep", "set up"));
    ok(cli.inProcess("force", "open", "roles:gone", "--reason", "setup", "--yes"));
    ok(cli.inProcess("history", "sync"));
    redis.call("DEL", "cb:{roles:gone}"); // lost from Redis: replay restore has work to do
    try (ControlDatabase db =
        ControlDatabase.connect(ControlConfig.builder().uri(mongoUri).build())) {
      new FallbackSnapshots(
              db,
              new BusinessKeys(SALT),
              PayloadKeys.of(
                  Map.of("k1", "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8)),
                  "k1"),
              Clock.systemUTC())
          .capture(
              BREAKER,
              "member-1",
              "{}".getBytes(StandardCharsets.UTF_8),
              "test",
              Duration.ofHours(1),
              SnapshotApproval.OPERATOR);
    }
  }

  @AfterAll
  static void stop() {
    if (servers != null) {
      servers.close();
    }
  }

  /** A Redis with the docs' role lines (this test's passwords) and an in-memory MongoDB. */
  static final class Servers implements AutoCloseable {
    final RedisServerProcess redis;
    final MongoServer mongo = new MongoServer(new MemoryBackend());
    final String mongoUri;

    Servers() throws Exception {
      mongo.bind("127.0.0.1", 0);
      mongoUri = "mongodb://127.0.0.1:" + mongo.getLocalAddress().getPort();
      try {
        redis =
            RedisServerProcess.builder(RedisBinary.embedded()).config(readmeAclConfig()).start();
      } catch (Exception | Error e) {
        mongo.shutdownNow();
        throw e;
      }
    }

    /** The packaged CLI on both servers, as the default user. */
    CliProcess cli(Path home) {
      return new CliProcess(home)
          .env("BREAKERCTL_REDIS", redis.uri())
          .env("BREAKERCTL_MONGO", mongoUri)
          .env("BREAKERCTL_TIMEOUT", "5s");
    }

    @Override
    public void close() {
      mongo.shutdownNow();
      redis.close();
    }
  }

  private static Path policy(int threshold) throws Exception {
    Path f = home.resolve("policy-" + threshold + ".yaml");
    Files.writeString(f, PolicyCliIT.policy(BREAKER.toString(), threshold));
    return f;
  }

  private static CliProcess.Result ok(CliProcess.Result r) {
    assertThat(r.code()).as(r.toString()).isZero();
    return r;
  }

  /** The environment of a run as {@code role}. */
  private static Map<String, String> as(String role) {
    return Map.of("BREAKERCTL_REDIS_USER", role, "BREAKERCTL_REDIS_PASSWORD", PASSWORDS.get(role));
  }

  /** Every command that writes, as a user types it. */
  private static List<String[]> writes() throws Exception {
    return List.of(
        new String[] {"force", "open", "roles:dep", "--reason", "r", "--yes"},
        new String[] {"force", "open", "roles:dep", "--reason", "r", "--dry-run"},
        new String[] {"note", "roles:dep", "a note"},
        new String[] {"fallback", "approve", "roles:dep", "member-1", "--reason", "r", "--yes"},
        new String[] {"policy", "apply", "-f", policy(5).toString(), "--reason", "r", "--yes"},
        new String[] {"policy", "rollback", "roles:dep", "--to", "1", "--reason", "r", "--yes"},
        new String[] {"replay", "restore", "roles:*", "--yes"},
        new String[] {"history", "sync"},
        new String[] {"history", "prune", "--before", "2099-01-01T00:00:00Z", "--yes"});
  }

  /** Everything in {@code redis}: each key's type and content (TTLs aside). */
  static Map<String, Object> redisDump(RedisServerProcess redis) {
    Map<String, Object> dump = new TreeMap<>();
    for (Object k : (List<?>) redis.call("KEYS", "*")) {
      String key = String.valueOf(k);
      String type = String.valueOf(redis.call("TYPE", key));
      Object content =
          switch (type) {
            case "hash" -> redis.call("HGETALL", key);
            case "zset" -> redis.call("ZRANGE", key, "0", "-1", "WITHSCORES");
            case "stream" -> redis.call("XRANGE", key, "-", "+");
            case "string" -> redis.call("GET", key);
            case "set" -> redis.call("SMEMBERS", key);
            case "list" -> redis.call("LRANGE", key, "0", "-1");
            default -> type;
          };
      dump.put(key, type + " " + content);
    }
    return dump;
  }

  /** Every MongoDB collection at {@code mongoUri}: its documents and its indexes. */
  static Map<String, Object> mongoDump(String mongoUri) {
    Map<String, Object> dump = new TreeMap<>();
    try (MongoClient c = MongoClients.create(mongoUri)) {
      MongoDatabase db = c.getDatabase(ControlConfig.builder().uri(mongoUri).build().database());
      for (String name : db.listCollectionNames()) {
        List<String> docs = new ArrayList<>();
        db.getCollection(name).find().forEach(d -> docs.add(d.toJson()));
        docs.sort(String::compareTo);
        List<String> indexes = new ArrayList<>();
        db.getCollection(name).listIndexes().forEach(d -> indexes.add(d.toJson()));
        indexes.sort(String::compareTo);
        dump.put(name, Map.of("documents", docs, "indexes", indexes));
      }
    }
    return dump;
  }

  @Test
  @Order(1)
  @DisplayName("a viewer: every write exits 4 naming the permission; Redis and MongoDB unchanged")
  void viewerWritesNothing() throws Exception {
    Map<String, Object> redisBefore = redisDump(redis);
    Map<String, Object> mongoBefore = mongoDump(mongoUri);
    List<String[]> writes = writes();
    for (int i = 0; i < writes.size(); i++) {
      String[] command = writes.get(i);
      // the first as the packaged jar, the others in-process (the same command line and env)
      CliProcess.Result r =
          i == 0 ? cli.run(as("viewer"), command) : cli.inProcess(as("viewer"), command);
      String what = String.join(" ", command);
      assertThat(r.code()).as(what + ": " + r).isEqualTo(4);
      assertThat(r.err()).as(what).contains("NOPERM").contains("viewer");
      assertThat(redisDump(redis)).as("Redis after " + what).isEqualTo(redisBefore);
      assertThat(mongoDump(mongoUri)).as("MongoDB after " + what).isEqualTo(mongoBefore);
    }
    CliProcess.Result console =
        console(
            as("viewer"),
            "note roles:dep from-the-console\nforce open roles:dep --reason r --yes\n");
    assertThat(console.code()).as(console.toString()).isEqualTo(4);
    assertThat(redisDump(redis)).as("Redis after the console").isEqualTo(redisBefore);
    assertThat(mongoDump(mongoUri)).as("MongoDB after the console").isEqualTo(mongoBefore);
  }

  @Test
  @Order(2)
  @DisplayName("a viewer reads: status, history, replay, doctor, dry runs of policy and restore")
  void viewerReads() throws Exception {
    Map<String, Object> redisBefore = redisDump(redis);
    Map<String, Object> mongoBefore = mongoDump(mongoUri);
    List<String[]> reads =
        List.of(
            new String[] {"status", "roles:*"},
            new String[] {"describe", "roles:dep"},
            new String[] {"history", "roles:*"},
            new String[] {"replay", "roles:*", "--at", "2099-01-01T00:00:00Z"},
            new String[] {"policy", "list"},
            new String[] {"fallback", "list", "roles:*"});
    for (String[] command : reads) {
      ok(cli.inProcess(as("viewer"), command));
    }
    // the dry run and the diff answer as they would for anyone: 1, a change
    CliProcess.Result dry =
        cli.inProcess(as("viewer"), "policy", "apply", "-f", policy(5).toString(), "--dry-run");
    assertThat(dry.code()).as(dry.toString()).isEqualTo(1);
    CliProcess.Result diff =
        cli.inProcess(as("viewer"), "policy", "diff", "roles:dep", "-f", policy(5).toString());
    assertThat(diff.code()).as(diff.toString()).isEqualTo(1);
    ok(
        cli.inProcess(
            as("viewer"),
            "policy",
            "rollback",
            "roles:dep",
            "--to",
            "1",
            "--reason",
            "r",
            "--dry-run"));
    ok(cli.inProcess(as("viewer"), "replay", "restore", "roles:*", "--dry-run"));
    CliProcess.Result doctor = cli.inProcess(as("viewer"), "doctor");
    assertThat(doctor.out()).contains("acl read").contains("read-only user");
    assertThat(redisDump(redis)).isEqualTo(redisBefore);
    assertThat(mongoDump(mongoUri)).isEqualTo(mongoBefore);
  }

  @Test
  @Order(2)
  @DisplayName("a review on an empty control plane creates nothing: no collection, no index")
  void reviewCreatesNothing() throws Exception {
    MongoServer fresh = new MongoServer(new MemoryBackend());
    fresh.bind("127.0.0.1", 0);
    String uri = "mongodb://127.0.0.1:" + fresh.getLocalAddress().getPort();
    try {
      Map<String, String> env = new HashMap<>(as("viewer"));
      env.put("BREAKERCTL_MONGO", uri);
      assertThat(
              cli.inProcess(env, "policy", "apply", "-f", policy(5).toString(), "--dry-run").code())
          .isEqualTo(1);
      assertThat(
              cli.inProcess(env, "policy", "diff", "roles:dep", "-f", policy(5).toString()).code())
          .as("no version in force: the file's policy is a difference")
          .isEqualTo(1);
      ok(cli.inProcess(env, "history", "roles:*"));
      ok(cli.inProcess(env, "replay", "roles:*", "--at", "2099-01-01T00:00:00Z"));
      ok(cli.inProcess(env, "replay", "restore", "roles:*", "--dry-run"));
      ok(cli.inProcess(env, "policy", "list"));
      cli.inProcess(env, "doctor");
      try (MongoClient c = MongoClients.create(uri)) {
        List<String> created = new ArrayList<>();
        c.listDatabaseNames()
            .forEach(
                d -> c.getDatabase(d).listCollectionNames().forEach(n -> created.add(d + "." + n)));
        assertThat(created).as("collections a review created").isEmpty();
      }
    } finally {
      fresh.shutdownNow();
    }
  }

  @Test
  @Order(3)
  @DisplayName("a viewer follows the history: SUBSCRIBE is in its line, the operator's force shows")
  void viewerFollows() throws Exception {
    ProcessBuilder pb =
        cli.builder(as("viewer"), "history", "roles:dep", "--follow", "-o", "jsonl");
    Path out = home.resolve("follow.out");
    pb.redirectOutput(out.toFile());
    pb.redirectError(home.resolve("follow.err").toFile());
    Process follow = pb.start();
    try {
      // the first page (the set-up note) is printed after the subscription is made
      waitFor(out, "set up", follow);
      ok(
          cli.inProcess(
              as("operator"), "force", "open", "roles:dep", "--reason", "followed", "--yes"));
      waitFor(out, "followed", follow);
    } finally {
      follow.destroy();
      follow.waitFor(30, TimeUnit.SECONDS);
    }
    ok(
        cli.inProcess(
            as("operator"), "force", "clear", "roles:dep", "--reason", "followed", "--yes"));
  }

  private static void waitFor(Path file, String text, Process p) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      if (Files.exists(file) && Files.readString(file).contains(text)) {
        return;
      }
      assertThat(p.isAlive())
          .as("history --follow ended: " + Files.readString(home.resolve("follow.err")))
          .isTrue();
      Thread.sleep(50);
    }
    throw new AssertionError("history --follow never printed " + text);
  }

  @Test
  @Order(4)
  @DisplayName("an operator: every write but prune succeeds, audited as 'operator (user@host)'")
  void operatorWrites() throws Exception {
    List<String[]> writes = writes();
    for (int i = 0; i < writes.size(); i++) {
      String[] command = writes.get(i);
      // the first as the packaged jar, the others in-process (the same command line and env)
      CliProcess.Result r =
          i == 0 ? cli.run(as("operator"), command) : cli.inProcess(as("operator"), command);
      String what = String.join(" ", command);
      if (command[0].equals("history") && command[1].equals("prune")) {
        assertThat(r.code()).as(what + ": " + r).isEqualTo(4);
        assertThat(r.err()).contains("admin").contains("config");
      } else {
        assertThat(r.code()).as(what + ": " + r).isZero();
      }
    }
    ok(cli.inProcess(as("operator"), "history", "sync"));
    JsonNode timeline =
        JSON.readTree(ok(cli.inProcess("history", "roles:dep", "-o", "json")).out());
    Map<String, String> actorByKind = new HashMap<>();
    for (JsonNode e : timeline.path("items")) {
      actorByKind.merge(e.path("kind").asText(), e.path("actor").asText(), (a, b) -> b);
    }
    String osUser =
        "(" + System.getenv().getOrDefault("USER", System.getProperty("user.name")) + "@";
    assertThat(actorByKind.get("NOTE")).startsWith("operator" + osUser);
    assertThat(actorByKind.values()).anySatisfy(a -> assertThat(a).startsWith("operator" + osUser));
    JsonNode filtered =
        JSON.readTree(
            ok(cli.inProcess("history", "roles:dep", "--actor", "operator", "-o", "json")).out());
    assertThat(filtered.path("items").size()).isPositive();
    filtered
        .path("items")
        .forEach(e -> assertThat(e.path("actor").asText()).startsWith("operator("));
    JsonNode versions =
        JSON.readTree(ok(cli.inProcess("policy", "history", "roles:dep", "-o", "json")).out());
    List<String> authors = new ArrayList<>();
    versions.path("items").forEach(v -> authors.add(v.path("status").path("author").asText()));
    assertThat(authors).anySatisfy(a -> assertThat(a).startsWith("operator" + osUser));
  }

  @Test
  @Order(5)
  @DisplayName("an admin prunes the history")
  void adminPrunes() {
    CliProcess.Result r =
        cli.run(as("admin"), "history", "prune", "--before", "2099-01-01T00:00:00Z", "--yes");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out()).contains("removed");
  }

  /** {@code breakerctl console} with {@code lines} on its stdin. */
  private static CliProcess.Result console(Map<String, String> env, String lines) throws Exception {
    ProcessBuilder pb = cli.builder(env, "console");
    Path out = home.resolve("console.out");
    Path err = home.resolve("console.err");
    pb.redirectOutput(out.toFile());
    pb.redirectError(err.toFile());
    Process p = pb.start();
    try (OutputStream in = p.getOutputStream()) {
      in.write(lines.getBytes(StandardCharsets.UTF_8));
    }
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("the console hung");
    }
    return new CliProcess.Result(
        p.exitValue(), Files.readString(out), Files.readString(err), Duration.ZERO);
  }
}
