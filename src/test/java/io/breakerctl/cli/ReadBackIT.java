package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.redis.BreakerKeys;
import io.breakerctl.runtime.redis.BreakerScript;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisServerProcess;
import io.breakerctl.testing.TcpProxy;
import io.breakerctl.testing.TcpProxy.Answer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 30, item 5: after a timeout or a lost connection, {@code force} and {@code replay restore}
 * read back by the change's correlation id whether it landed and say applied (exit 0, a note), not
 * applied (exit 1, nothing written) or unknown (exit 6, the correlation id and how to check). Real
 * faults on a redis-server the test starts, reached through a loopback proxy that catches the
 * override's own request (by its reason): the answer lost after the script ran, a write paused
 * until the CLI gave up, a server stopped. In-process runs with {@code --timeout 2s}; nothing is
 * timed.
 */
@DisplayName("force and restore after a lost answer: applied, not applied or unknown, read back")
class ReadBackIT {
  static final BreakerKeys KEYS = BreakerKeys.withPrefix(BreakerKeys.DEFAULT_PREFIX);
  static RedisServerProcess redis;
  static MongoServer mongo;
  static String mongoUri;
  @TempDir static Path home;
  TcpProxy proxy;

  @BeforeAll
  static void start() {
    redis = RedisServerProcess.start(RedisBinary.embedded());
    mongo = new MongoServer(new MemoryBackend());
    mongo.bind("127.0.0.1", 0);
    mongoUri = "mongodb://127.0.0.1:" + mongo.getLocalAddress().getPort();
    // the server caches the scripts first: a request the proxy catches is the script running, not
    // a NOSCRIPT answer (whose loss is read back, rightly, as not applied)
    redis.call("SCRIPT", "LOAD", BreakerScript.OVERRIDE.body());
    redis.call("SCRIPT", "LOAD", BreakerScript.RESTORE.body());
  }

  private static Map<String, String> env(String redisUri) {
    Map<String, String> env = new HashMap<>();
    env.put("XDG_CONFIG_HOME", home.toString());
    env.put("BREAKERCTL_REDIS", redisUri);
    env.put("BREAKERCTL_MONGO", mongoUri);
    return env;
  }

  @AfterAll
  static void stop() {
    mongo.shutdownNow();
    redis.close();
  }

  @BeforeEach
  void openProxy() {
    proxy = TcpProxy.to(redis.port());
  }

  @AfterEach
  void closeProxy() {
    proxy.close();
  }

  private InProcessRun force(String id, String reason) {
    return viaProxy("force", "open", id, "--new", "--for", "10m", "--reason", reason, "--yes");
  }

  /**
   * Runs breakerctl through the proxy with {@code --timeout 2s -o json} (the read-back then has 4
   * s: room for a loaded machine; nothing here is timed).
   */
  private InProcessRun viaProxy(String... args) {
    String[] all = new String[args.length + 4];
    System.arraycopy(new String[] {"--timeout", "2s", "-o", "json"}, 0, all, 0, 4);
    System.arraycopy(args, 0, all, 4, args.length);
    return InProcessRun.breakerctl(env(proxy.uri()), all);
  }

  /**
   * A breaker forced open (straight to Redis), its history forwarded to MongoDB, then every key of
   * it lost: what {@code replay restore} rebuilds.
   */
  private static void lostWithHistory(String id) {
    Map<String, String> direct = env(redis.uri());
    InProcessRun set =
        InProcessRun.breakerctl(
            direct, "force", "open", id, "--new", "--for", "1h", "--reason", "r", "--yes");
    assertThat(set.code()).as(set.toString()).isZero();
    InProcessRun sync = InProcessRun.breakerctl(direct, "history", "sync");
    assertThat(sync.code()).as(sync.toString()).isZero();
    List<?> keys = (List<?>) redis.call("KEYS", KEYS.hash(BreakerId.parse(id)) + "*");
    assertThat(keys).isNotEmpty();
    keys.forEach(k -> redis.call("DEL", String.valueOf(k)));
  }

  private static JsonNode row(InProcessRun r) throws Exception {
    JsonNode doc = new ObjectMapper().readTree(r.out());
    assertThat(doc.path("kind").asText()).as(r.toString()).isEqualTo("OverrideList");
    return doc.path("items").path(0);
  }

  /**
   * Checks the run exited {@code code} with one failed row whose outcome and read-back are {@code
   * outcome}; returns the row's correlation id.
   */
  private static String failedRow(InProcessRun r, int code, String outcome) throws Exception {
    assertThat(r.code()).as(r.toString()).isEqualTo(code);
    JsonNode row = row(r);
    assertThat(row.path("outcome").asText()).isEqualTo(outcome);
    assertThat(row.path("readBack").asText()).isEqualTo(outcome);
    assertThat(row.path("result").asText()).isEqualTo("failed");
    String corr = row.path("correlationId").asText();
    assertThat(corr).isNotEmpty();
    return corr;
  }

  /** The breaker's override fields, read directly from Redis. */
  private static Map<String, String> hash(String id) {
    Object reply = redis.call("HGETALL", KEYS.hash(BreakerId.parse(id)));
    Map<String, String> out = new HashMap<>();
    List<?> l = (List<?>) reply;
    for (int i = 0; i + 1 < l.size(); i += 2) {
      out.put(String.valueOf(l.get(i)), String.valueOf(l.get(i + 1)));
    }
    return out;
  }

  /** How many events of the breaker's stream carry {@code correlationId}. */
  private static long eventsCarrying(String id, String correlationId) {
    List<?> entries = (List<?>) redis.call("XRANGE", KEYS.events(BreakerId.parse(id)), "-", "+");
    return entries.stream()
        .map(e -> (List<?>) ((List<?>) e).get(1))
        .filter(f -> f.contains(correlationId))
        .count();
  }

  /**
   * The override's script runs; its answer is then lost: discarded on an open connection (the CLI
   * times out) or the connection reset as it arrives (the 2-of-8 case of the issue).
   */
  @ParameterizedTest(name = "answer {0}")
  @EnumSource(
      value = Answer.class,
      names = {"DISCARD", "RESET"})
  @DisplayName("the answer lost after the script ran: applied, exit 0, a note naming the id")
  void appliedAfterLostAnswer(Answer lost) throws Exception {
    String id = "readback:applied-" + lost.name().toLowerCase(java.util.Locale.ROOT);
    String reason = "drill-lost-answer-" + lost;
    proxy.onRequest(reason, () -> {}, lost);

    InProcessRun r = force(id, reason);

    assertThat(r.code()).as(r.toString()).isZero();
    JsonNode row = row(r);
    String corr = row.path("correlationId").asText();
    assertThat(corr).isNotEmpty();
    assertThat(row.path("state").asText()).isEqualTo("FORCED_OPEN");
    assertThat(row.path("outcome").asText()).isEqualTo("SET");
    assertThat(row.path("result").asText()).isEqualTo("applied");
    assertThat(row.path("readBack").asText()).isEqualTo("APPLIED");
    assertThat(r.err())
        .contains("note: " + id + ": the connection to Redis failed")
        .contains("the change landed")
        .contains(corr)
        .doesNotContain("error:")
        .doesNotContain("Exception")
        .doesNotContain("\tat ");
    assertThat(hash(id))
        .containsEntry("override", "FORCED_OPEN")
        .containsEntry("overrideCorrelationId", corr);
    assertThat(eventsCarrying(id, corr)).isPositive();
  }

  @Test
  @DisplayName("clear: the answer lost after the script ran: CLEARED, rebuilt from its event")
  void clearApplied() throws Exception {
    String id = "readback:clear";
    InProcessRun set =
        InProcessRun.breakerctl(
            env(redis.uri()), "force", "open", id, "--new", "--reason", "r", "--yes");
    assertThat(set.code()).as(set.toString()).isZero();
    proxy.onRequest("drill-clear-lost", () -> {}, Answer.DISCARD);

    InProcessRun r = viaProxy("force", "clear", id, "--reason", "drill-clear-lost", "--yes");

    assertThat(r.code()).as(r.toString()).isZero();
    JsonNode row = row(r);
    assertThat(row.path("previous").asText()).isEqualTo("FORCED_OPEN");
    assertThat(row.path("state").asText()).isEqualTo("CLOSED");
    assertThat(row.path("outcome").asText()).isEqualTo("CLEARED");
    assertThat(row.path("readBack").asText()).isEqualTo("APPLIED");
    assertThat(r.err()).contains("the change landed").doesNotContain("error:");
    assertThat(hash(id)).doesNotContainKey("override");
    assertThat(eventsCarrying(id, row.path("correlationId").asText())).isEqualTo(1);
  }

  @Test
  @DisplayName("the write paused until the CLI gave up and closed it: not applied, exit 1")
  void notApplied() throws Exception {
    String id = "readback:not-applied";
    // the override's EVALSHA reaches a server that postpones writes (reads still answer)
    proxy.onRequest(
        "drill-not-applied", () -> redis.call("CLIENT", "PAUSE", "60000", "WRITE"), Answer.PASS);
    InProcessRun r;
    try {
      r = force(id, "drill-not-applied");
    } finally {
      redis.call("CLIENT", "UNPAUSE");
    }

    String corr = failedRow(r, ExitCode.CHECK_FAILED, "NOT_APPLIED");
    assertThat(r.err())
        .contains("the change did not land, nothing was written")
        .contains(corr)
        .contains("running the same command again is safe")
        .doesNotContain("\tat ");
    // unpaused, answered after: the write closed with its connection never runs
    redis.call("PING");
    assertThat(
            redis.call("EXISTS", KEYS.hash(BreakerId.parse(id)), KEYS.events(BreakerId.parse(id))))
        .as("no key of the breaker was written")
        .isEqualTo(0L);
  }

  @Test
  @DisplayName("the server stopped past the timeout: unknown, exit 6 naming the correlation id")
  void unknown() throws Exception {
    String id = "readback:unknown";
    proxy.onRequest("drill-unknown", redis::suspend, Answer.PASS);
    InProcessRun r;
    try {
      r = force(id, "drill-unknown");
    } finally {
      redis.resume();
    }

    String corr = failedRow(r, ExitCode.UNAVAILABLE, "UNKNOWN");
    assertThat(r.err())
        .contains("the outcome is unknown")
        .contains("correlation id " + corr)
        .contains("breakerctl history " + id)
        .contains("breakerctl describe " + id)
        .doesNotContain("\tat ");
    // either way is consistent with "unknown": nothing, or this very change (the request reached
    // the stopped server's socket before the CLI gave up), never another
    redis.call("PING");
    Map<String, String> h = hash(id);
    if (h.containsKey("override")) {
      assertThat(h).containsEntry("overrideCorrelationId", corr);
    }
  }

  @Test
  @DisplayName("restore: the answer lost after the script ran: RESTORED, exit 0, a note")
  void restoreApplied() throws Exception {
    String id = "rst:applied";
    lostWithHistory(id);
    proxy.onRequest("drill-restore-lost", () -> {}, Answer.DISCARD);

    InProcessRun r = viaProxy("replay", "restore", id, "--reason", "drill-restore-lost", "--yes");

    assertThat(r.code()).as(r.toString()).isZero();
    JsonNode item = new ObjectMapper().readTree(r.out()).path("items").path(0);
    assertThat(item.path("action").asText()).as(r.toString()).isEqualTo("RESTORED");
    assertThat(item.path("readBack").asText()).isEqualTo("APPLIED");
    assertThat(r.err())
        .contains("note: " + id + ": the connection to Redis failed")
        .contains("the restore landed")
        .doesNotContain("error:")
        .doesNotContain("\tat ");
    Map<String, String> h = hash(id);
    assertThat(h).containsEntry("override", "FORCED_OPEN").containsKey("restoredFrom");
  }

  @Test
  @DisplayName("restore: the write paused until the CLI gave up: not restored, exit 1, no keys")
  void restoreNotApplied() throws Exception {
    String id = "rst:not-applied";
    lostWithHistory(id);
    proxy.onRequest(
        "drill-restore-paused", () -> redis.call("CLIENT", "PAUSE", "60000", "WRITE"), Answer.PASS);
    InProcessRun r;
    try {
      r = viaProxy("replay", "restore", id, "--reason", "drill-restore-paused", "--yes");
    } finally {
      redis.call("CLIENT", "UNPAUSE");
    }

    assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.CHECK_FAILED);
    JsonNode item = new ObjectMapper().readTree(r.out()).path("items").path(0);
    assertThat(item.path("action").asText()).isEqualTo("FAILED");
    assertThat(item.path("readBack").asText()).isEqualTo("NOT_APPLIED");
    assertThat(r.err())
        .contains("the change did not land, nothing was written")
        .contains("not restored")
        .doesNotContain("\tat ");
    redis.call("PING");
    assertThat(redis.call("EXISTS", KEYS.hash(BreakerId.parse(id)))).isEqualTo(0L);
  }
}
