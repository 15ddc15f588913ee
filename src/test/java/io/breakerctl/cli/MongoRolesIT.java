package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.AuthenticatingMongo;
import io.breakerctl.testing.AuthenticatingMongo.User;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where MongoDB authenticates, a read-only MongoDB user writes nothing (issue 29, item 1): the
 * packaged jar against a MongoDB-wire server that authenticates with SCRAM-SHA-256 and enforces the
 * built-in roles {@code read} and {@code readWrite} ({@link AuthenticatingMongo}; no real {@code
 * mongod} runs on these machines). Every control-plane write by the {@code read} user exits 4
 * naming the user and the missing actions, before anything is written, whether the server reports
 * the user's privileges ({@code connectionStatus}) or only refuses the write itself (code 13); its
 * reviews (history, a dry run) work; the {@code readWrite} user's writes succeed.
 */
@DisplayName("a read-only MongoDB user: every control-plane write exits 4, nothing written")
class MongoRolesIT {
  private static final BreakerId BREAKER = BreakerId.parse("mroles:dep");
  private static final User READER = new User("reader", "reader-pw", "breakerctl", false);
  private static final User WRITER = new User("writer", "writer-pw", "breakerctl", true);

  @TempDir static Path home;
  static RedisServerProcess redis;
  static AuthenticatingMongo mongo;
  static CliProcess cli;

  @BeforeAll
  static void start() throws Exception {
    redis = RedisServerProcess.start(RedisBinary.embedded());
    mongo = AuthenticatingMongo.start(List.of(READER, WRITER));
    cli =
        new CliProcess(home).env("BREAKERCTL_REDIS", redis.uri()).env("BREAKERCTL_TIMEOUT", "10s");
    try (RedisFleetStore s =
        RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build())) {
      StoreFutures.await(s.record(BREAKER, Outcome.failure("n1", ""), Policy.DEFAULT));
    }
    // the writer sets the control plane up: two policy versions, forwarded history
    ok(cli.run(as(WRITER), "policy", "apply", "-f", policy(5), "--reason", "v1", "--yes"));
    ok(cli.run(as(WRITER), "policy", "apply", "-f", policy(6), "--reason", "v2", "--yes"));
    ok(cli.run(as(WRITER), "history", "sync"));
  }

  @AfterAll
  static void stop() {
    if (mongo != null) {
      mongo.close();
    }
    if (redis != null) {
      redis.close();
    }
  }

  private static Map<String, String> as(User user) {
    return Map.of("BREAKERCTL_MONGO", mongo.uri(user));
  }

  private static String policy(int threshold) throws Exception {
    Path f = home.resolve("policy-" + threshold + ".yaml");
    Files.writeString(f, PolicyCliIT.policy(BREAKER.toString(), threshold));
    return f.toString();
  }

  private static CliProcess.Result ok(CliProcess.Result r) {
    assertThat(r.code()).as(r.toString()).isZero();
    return r;
  }

  /** Every command that writes the control plane, as a user types it. */
  private static List<String[]> writes() throws Exception {
    return List.of(
        new String[] {"note", BREAKER.toString(), "a note"},
        new String[] {"policy", "apply", "-f", policy(9), "--reason", "r", "--yes"},
        new String[] {
          "policy", "rollback", BREAKER.toString(), "--to", "1", "--reason", "r", "--yes"
        },
        new String[] {"history", "sync"},
        new String[] {"history", "prune", "--before", "2099-01-01T00:00:00Z", "--yes"});
  }

  @Test
  @DisplayName(
      "the read user: each write exits 4 naming user and actions, MongoDB and Redis unchanged;"
          + " its reviews work")
  void readerWritesNothing() throws Exception {
    Map<String, Object> mongoBefore = RolesIT.mongoDump(mongo.uri(WRITER));
    Map<String, Object> redisBefore = RolesIT.redisDump(redis);
    assertThat(mongoBefore).containsKeys("policy_versions", "history");
    for (String[] command : writes()) {
      CliProcess.Result r = cli.run(as(READER), command);
      String what = String.join(" ", command);
      assertThat(r.code()).as(what + ": " + r).isEqualTo(ExitCode.PERMISSION);
      assertThat(r.err())
          .as(what + ": " + r)
          .contains("refused before anything was written")
          .contains("reader")
          .contains("insert")
          .doesNotContain("reader-pw")
          .doesNotContain("Exception");
      assertThat(RolesIT.mongoDump(mongo.uri(WRITER)))
          .as("MongoDB after " + what)
          .isEqualTo(mongoBefore);
      assertThat(RolesIT.redisDump(redis)).as("Redis after " + what).isEqualTo(redisBefore);
    }
    // reviews need only reads
    CliProcess.Result history = cli.run(as(READER), "history", BREAKER.toString());
    assertThat(history.code()).as(history.toString()).isZero();
    assertThat(history.out()).contains(BREAKER.toString());
    CliProcess.Result dryRun = cli.run(as(READER), "policy", "apply", "-f", policy(9), "--dry-run");
    assertThat(dryRun.code()).as(dryRun.toString()).isIn(ExitCode.OK, ExitCode.CHECK_FAILED);
    assertThat(dryRun.out()).contains("9");
    assertThat(RolesIT.mongoDump(mongo.uri(WRITER)))
        .as("MongoDB after the reviews")
        .isEqualTo(mongoBefore);
  }

  @Test
  @DisplayName("a server that does not report privileges: the write's own Unauthorized is exit 4")
  void unauthorizedWriteIsPermission() throws Exception {
    try (AuthenticatingMongo quiet =
        AuthenticatingMongo.withoutConnectionStatus(List.of(READER, WRITER))) {
      Map<String, String> reader = Map.of("BREAKERCTL_MONGO", quiet.uri(READER));
      CliProcess.Result r = cli.run(reader, "note", BREAKER.toString(), "a note");
      assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.PERMISSION);
      assertThat(r.err()).as(r.toString()).contains("not authorized").doesNotContain("reader-pw");
      assertThat(RolesIT.mongoDump(quiet.uri(WRITER)))
          .as("no note, no collection, no index")
          .doesNotContainKey("notes");
      CliProcess.Result w =
          cli.run(Map.of("BREAKERCTL_MONGO", quiet.uri(WRITER)), "note", BREAKER.toString(), "ok");
      assertThat(w.code()).as(w.toString()).isZero();
      assertThat(RolesIT.mongoDump(quiet.uri(WRITER))).containsKey("notes");
    }
  }

  @Test
  @DisplayName("the readWrite user's note is stored; a wrong password is refused (exit 4)")
  void writerWrites() {
    User wrong = new User(WRITER.name(), "not-the-password", WRITER.db(), true);
    CliProcess.Result refused =
        cli.run(Map.of("BREAKERCTL_MONGO", mongo.uri(wrong)), "note", BREAKER.toString(), "x");
    assertThat(refused.code()).as(refused.toString()).isEqualTo(ExitCode.PERMISSION);
    assertThat(refused.err()).doesNotContain("not-the-password");
    CliProcess.Result r = cli.run(as(WRITER), "note", BREAKER.toString(), "written by the writer");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(RolesIT.mongoDump(mongo.uri(WRITER)).get("notes").toString())
        .contains("written by the writer")
        .as("only MongoDB authenticates: its user is the actor, with the OS user and host")
        .contains("\"actor\": \"writer(");
  }
}
