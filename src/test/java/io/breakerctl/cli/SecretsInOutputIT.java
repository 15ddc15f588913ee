package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisServerProcess;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A password that holds {@code , / # ? %} and a space, raw and percent-encoded, given in every
 * place a secret reaches breakerctl (a Redis URI, a list of seeds, a Sentinel URI, a MongoDB URI,
 * the password variable): no command that fails prints any piece of it, on stdout or stderr, with
 * or without {@code -v}. Each piece of the password is a token of three characters found nowhere
 * else, so a leak of a part is caught as well as a leak of the whole.
 */
@DisplayName("a password with , / # ? space and % never appears in any output")
class SecretsInOutputIT {
  static final String[] TOKENS = {"Q7p", "Z4a", "K9s", "V2s", "J5w", "X8o", "W3rd"};
  static final String RAW = "Q7p,Z4a/K9s#V2s?J5w X8o%W3rd";
  static final String ENCODED = "Q7p%2CZ4a%2FK9s%23V2s%3FJ5w%20X8o%25W3rd";
  static final String OTHER = "U6n,T1k/Y0m";

  static RedisServerProcess redis;
  static MongoServer mongo;
  static int mongoPort;
  static int deadPort;
  @TempDir static Path home;

  record Run(List<String> args, int code, String out, String err) {}

  @BeforeAll
  static void start() throws IOException {
    redis = RedisServerProcess.start(RedisBinary.embedded());
    redis.call(
        "ACL",
        "SETUSER",
        "viewer",
        "on",
        ">" + RAW,
        "~*",
        "&*",
        "-@all",
        "+@read",
        "+@connection",
        "+time",
        "+info");
    redis.call("ACL", "SETUSER", "operator", "on", ">" + OTHER, "~*", "&*", "+@all");
    mongo = new MongoServer(new MemoryBackend());
    mongo.bind("127.0.0.1", 0);
    mongoPort = mongo.getLocalAddress().getPort();
    try (ServerSocket s = new ServerSocket(0)) {
      deadPort = s.getLocalPort();
    }
    try (RedisFleetStore s =
        RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build())) {
      StoreFutures.await(
          s.record(BreakerId.parse("claims:members"), Outcome.failure("n1", ""), Policy.DEFAULT));
    }
  }

  @AfterAll
  static void stop() {
    mongo.shutdownNow();
    redis.close();
  }

  static String redisAs(String user, String password, int port) {
    return "redis://" + user + ":" + password + "@127.0.0.1:" + port;
  }

  static String mongoUri() {
    return "mongodb://127.0.0.1:" + mongoPort;
  }

  /** Runs in-process with and without {@code -v}; returns both runs. */
  static List<Run> both(Map<String, String> extraEnv, String... args) {
    List<Run> runs = new ArrayList<>();
    for (boolean verbose : new boolean[] {false, true}) {
      List<String> argv = new ArrayList<>();
      if (verbose) {
        argv.add("-v");
      }
      argv.addAll(List.of(args));
      Map<String, String> env = new HashMap<>();
      env.put("XDG_CONFIG_HOME", home.toString());
      env.put("BREAKERCTL_REDIS", redis.uri());
      env.put("BREAKERCTL_MONGO", mongoUri());
      env.put("BREAKERCTL_TIMEOUT", "2s");
      env.putAll(extraEnv);
      InProcessRun r = InProcessRun.breakerctl(env, argv.toArray(String[]::new));
      runs.add(new Run(argv, r.code(), r.out(), r.err()));
    }
    return runs;
  }

  static List<Run> both(String... args) {
    return both(Map.of(), args);
  }

  /** Every run exited {@code code} and printed no piece of the password. */
  static void assertNoSecret(List<Run> runs, int code) {
    for (Run r : runs) {
      String shown = r.args() + " -> exit " + r.code() + "\n" + r.out() + "\n" + r.err();
      assertThat(r.code()).as(shown).isEqualTo(code);
      assertThat(r.out() + r.err()).as(shown).doesNotContain(TOKENS).doesNotContain("U6n", "T1k");
    }
    assertThat(runs.get(1).err().length())
        .as("-v prints more than the message")
        .isGreaterThanOrEqualTo(runs.get(0).err().length());
  }

  @Test
  @DisplayName("Redis URIs: raw (refused), wrong password, unreachable, NOPERM, seeds, Sentinel")
  void redisUris() {
    int port = redis.port();
    // the raw password cannot be read by Lettuce: a usage error naming the problem
    List<Run> raw = both("--redis", redisAs("viewer", RAW, port), "status");
    assertNoSecret(raw, ExitCode.USAGE);
    assertThat(raw.get(0).err()).contains("percent-encoded", "redis://viewer:***@127.0.0.1");
    // the percent-encoded one works, so it is the right password
    assertNoSecret(both("--redis", redisAs("viewer", ENCODED, port), "status"), ExitCode.OK);
    assertNoSecret(
        both("--redis", redisAs("operator", ENCODED, port), "status"), ExitCode.PERMISSION);
    assertNoSecret(
        both("--redis", redisAs("viewer", ENCODED, deadPort), "status"), ExitCode.UNAVAILABLE);
    List<Run> noperm =
        both(
            "--redis",
            redisAs("viewer", ENCODED, port),
            "force",
            "open",
            "claims:members",
            "--reason",
            "test",
            "--yes");
    assertNoSecret(noperm, ExitCode.PERMISSION);
    assertNoSecret(
        both(
            "--redis",
            redisAs("viewer", ENCODED, deadPort) + "," + redisAs("viewer", ENCODED, deadPort + 1),
            "status"),
        ExitCode.UNAVAILABLE);
    assertNoSecret(
        both(
            "--redis",
            redisAs("viewer", RAW, deadPort) + "," + redisAs("viewer", RAW, port),
            "status"),
        ExitCode.USAGE);
    assertNoSecret(
        both(
            "--redis",
            "redis-sentinel://" + ENCODED + "@127.0.0.1:" + deadPort + "?sentinelMasterId=m",
            "status"),
        ExitCode.UNAVAILABLE);
    assertNoSecret(
        both("--redis", redisAs("viewer", ENCODED, port), "describe", "nobody:knows"),
        ExitCode.NOT_FOUND);
  }

  @Test
  @DisplayName("the raw password from the environment: status, force (NOPERM), doctor")
  void passwordVariable() {
    Map<String, String> env =
        Map.of("BREAKERCTL_REDIS_USER", "viewer", "BREAKERCTL_REDIS_PASSWORD", RAW);
    assertNoSecret(both(env, "status"), ExitCode.OK);
    assertNoSecret(
        both(env, "force", "open", "claims:members", "--reason", "test", "--yes"),
        ExitCode.PERMISSION);
    List<Run> doctor = both(env, "doctor");
    for (Run r : doctor) {
      assertThat(r.out() + r.err()).doesNotContain(TOKENS);
    }
    Map<String, String> wrong =
        Map.of("BREAKERCTL_REDIS_USER", "operator", "BREAKERCTL_REDIS_PASSWORD", RAW);
    assertNoSecret(both(wrong, "status"), ExitCode.PERMISSION);
  }

  @Test
  @DisplayName("MongoDB URIs: raw (refused), unreachable, SRV, doctor")
  void mongoUris() {
    String raw = "mongodb://viewer:" + RAW + "@127.0.0.1:" + mongoPort + "/db";
    List<Run> refused = both("--mongo", raw, "policy", "list");
    assertNoSecret(refused, ExitCode.USAGE);
    assertThat(refused.get(0).err()).contains("mongodb://viewer:***@127.0.0.1");
    String dead =
        "mongodb://viewer:"
            + ENCODED
            + "@127.0.0.1:"
            + deadPort
            + ",127.0.0.1:"
            + (deadPort + 1)
            + "/db?authSource=admin";
    assertNoSecret(both("--mongo", dead, "policy", "list"), ExitCode.UNAVAILABLE);
    // history falls back to Redis with a warning naming MongoDB's hosts
    assertNoSecret(both("--mongo", dead, "history", "claims:members"), ExitCode.OK);
    List<Run> doctor =
        both("--mongo", dead, "--redis", redisAs("viewer", ENCODED, redis.port()), "doctor");
    for (Run r : doctor) {
      assertThat(r.out() + r.err()).as(r.toString()).doesNotContain(TOKENS);
      assertThat(r.out() + r.err()).contains("viewer:***@");
    }
    for (Run r :
        both("--mongo", "mongodb+srv://viewer:" + ENCODED + "@c.invalid/db", "policy", "list")) {
      assertThat(r.code()).isNotZero();
      assertThat(r.out() + r.err()).as(r.toString()).doesNotContain(TOKENS);
    }
  }

  @Test
  @DisplayName("the packaged jar with -v: the process's whole stderr (logs included)")
  void packagedJar() {
    CliProcess jar =
        new CliProcess(home).env("BREAKERCTL_MONGO", mongoUri()).env("BREAKERCTL_TIMEOUT", "2s");
    String[][] runs = {
      {"-v", "--redis", redisAs("viewer", ENCODED, deadPort), "status"},
      {
        "-v",
        "--redis",
        redisAs("viewer", ENCODED, redis.port()),
        "force",
        "open",
        "claims:members",
        "--reason",
        "test",
        "--yes"
      },
      {"-v", "--redis", redisAs("viewer", RAW, redis.port()), "doctor"},
    };
    int[] codes = {ExitCode.UNAVAILABLE, ExitCode.PERMISSION, ExitCode.USAGE};
    for (int i = 0; i < runs.length; i++) {
      CliProcess.Result r = jar.run(runs[i]);
      assertThat(r.code()).as(r.toString()).isEqualTo(codes[i]);
      assertThat(r.out() + r.err()).as(r.toString()).doesNotContain(TOKENS);
    }
  }

  @Test
  @DisplayName("config view shows the URIs masked; config set-context refuses and masks them")
  void config() {
    Map<String, String> env =
        Map.of(
            "BREAKERCTL_REDIS",
            redisAs("viewer", ENCODED, redis.port()),
            "BREAKERCTL_MONGO",
            "mongodb://viewer:" + ENCODED + "@127.0.0.1:" + mongoPort + "/db");
    List<Run> view = both(env, "config", "view", "--resolved");
    assertNoSecret(view, ExitCode.OK);
    assertThat(view.get(0).out()).contains("viewer:***@");
    assertNoSecret(
        both("config", "set-context", "x", "--redis", redisAs("viewer", ENCODED, 1)),
        ExitCode.USAGE);
    assertNoSecret(
        both("config", "set-context", "x", "--redis", redisAs("viewer", RAW, 1)), ExitCode.USAGE);
    assertNoSecret(
        both("config", "set-context", "x", "--mongo", "mongodb://u:" + RAW + "@h/db"),
        ExitCode.USAGE);
  }
}
