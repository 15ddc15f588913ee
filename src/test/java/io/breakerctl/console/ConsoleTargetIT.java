package io.breakerctl.console;

import static org.assertj.core.api.Assertions.assertThat;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.RedisExtension;
import io.breakerctl.testing.RedisServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The console and {@code top} act where they were started, with two real redis-servers and the
 * in-process MongoDB-wire server: {@code prod} is the config file's current context, {@code
 * staging} is named only by {@code --redis}. Each holds breakers the other does not (under the
 * prefixes {@code cb} and {@code blue}), so every read shows which server and prefix it reached,
 * and a dump of {@code prod} taken before the console must equal the one taken after it.
 */
@DisplayName("console and top: on the cluster and options they were started with")
class ConsoleTargetIT {

  @RegisterExtension static final RedisExtension redis = RedisExtension.manual();

  private static final String PASSWORD = "op-s3cret-pw";
  private static RedisServerProcess prod;
  private static RedisServerProcess staging;
  private static String mongoUri;

  @TempDir Path home;

  @BeforeAll
  static void start() {
    prod = redis.manage(RedisServerProcess.start(redis.binary()));
    staging = redis.manage(RedisServerProcess.start(redis.binary()));
    staging.call("ACL", "SETUSER", "operator", "on", ">" + PASSWORD, "~*", "&*", "+@all");
    MongoServer mongo = new MongoServer(new MemoryBackend());
    mongo.bind("127.0.0.1", 0);
    redis.manage(mongo::shutdownNow);
    mongoUri = "mongodb://127.0.0.1:" + mongo.getLocalAddress().getPort();
  }

  @BeforeEach
  void breakersAndConfig() throws Exception {
    prod.flushAll();
    staging.flushAll();
    seed(prod, "cb", "checkout:payments", "prod:only");
    seed(prod, "blue", "checkout:payments", "prod:only");
    seed(staging, "cb", "cb:only");
    seed(staging, "blue", "checkout:payments", "blue:only");
    Path config = Files.createDirectories(home.resolve("config/breakerctl")).resolve("config.yaml");
    Files.writeString(
        config,
        "apiVersion: breakerctl/v1\nkind: Config\ncurrent-context: prod\ncontexts:\n"
            + "- name: prod\n  redis: "
            + prod.uri()
            + "\n  mongo: "
            + mongoUri
            + "\n");
  }

  @ParameterizedTest(name = "--redis and --prefix {0} 'console'")
  @ValueSource(strings = {"before", "after"})
  @DisplayName(
      "piped lines read and force on --redis/--prefix; a line's own --prefix does not stick")
  void pipedLinesActWhereTheConsoleWasStarted(String where) {
    List<String> globals = List.of("--redis", staging.uri(), "--prefix", "blue");
    List<String> argv = new ArrayList<>(globals);
    argv.add(where.equals("before") ? globals.size() : 0, "console");
    Map<String, String> prodBefore = dump(prod);

    PipedRun r =
        piped(
            argv,
            "status -o name\n"
                + "status -o name --prefix cb\n"
                + "status -o name\n"
                + "force open checkout:payments --reason drill --yes\n");

    assertThat(r.code()).as(r.err()).isZero();
    // status lists breakers of the same severity in no promised order: each line's set
    List<String> lines = r.out().lines().toList();
    assertThat(lines).as(r.out()).hasSizeGreaterThan(5);
    assertThat(lines.subList(0, 2))
        .as("staging/blue")
        .containsExactlyInAnyOrder("blue:only", "checkout:payments");
    assertThat(lines.get(2)).as("staging/cb for the one line").isEqualTo("cb:only");
    assertThat(lines.subList(3, 5))
        .as("staging/blue again")
        .containsExactlyInAnyOrder("blue:only", "checkout:payments");
    assertThat(r.out()).doesNotContain("prod:only");
    assertThat(state(staging, "blue", "checkout:payments")).isEqualTo(State.FORCED_OPEN);
    assertThat(dump(prod)).as("the context's server is unchanged").isEqualTo(prodBefore);
  }

  @Test
  @DisplayName("a console on a context that is not one: exit 2, before any line runs")
  void unknownContextAtStart() {
    PipedRun r =
        piped(List.of("console", "--context", "nope"), "force open x:y --reason r --yes\n");

    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("context 'nope' is not defined");
    assertThat(r.out()).isEmpty();
  }

  @Test
  @DisplayName("the prompt names the target; force acts on it; 'use' switches, an unknown one not")
  void interactiveSessionAndUse() throws Exception {
    String onStaging = "breakerctl (prod: " + staging.uri() + ", prefix cb)> ";
    String onProd = "breakerctl (prod: " + prod.uri() + ", prefix cb)> ";
    Map<String, String> prodBefore = dump(prod);
    try (VirtualTerminal t = console("--redis", staging.uri())) {
      t.awaitText(s -> s.contains(onStaging), VirtualTerminal.BOUND, "the prompt naming staging");
      t.type("status --prefix blue\r");
      t.awaitText(s -> s.contains("blue:only"), VirtualTerminal.BOUND, "staging/blue for one line");
      t.type("status\r");
      t.awaitText(
          s -> s.lastIndexOf("cb:only") > s.lastIndexOf("blue:only"),
          VirtualTerminal.BOUND,
          "staging/cb again");

      t.type("force open cb:only --reason drill\r");
      t.awaitText(s -> s.contains("Continue? [y/N]"), VirtualTerminal.BOUND, "the confirmation");
      t.type("y\r");
      t.awaitText(
          s -> s.lastIndexOf(onStaging) > s.indexOf("Continue?"), VirtualTerminal.BOUND, "force");
      assertThat(state(staging, "cb", "cb:only")).as(t.text()).isEqualTo(State.FORCED_OPEN);

      t.type("use nope\r");
      t.awaitText(
          s -> s.lastIndexOf(onStaging) > s.indexOf("no context 'nope'"),
          VirtualTerminal.BOUND,
          "the error, then the prompt still on staging");
      t.type("use prod\r");
      t.awaitText(s -> s.contains(onProd), VirtualTerminal.BOUND, "the prompt naming prod");
      t.type("status\r");
      t.awaitText(s -> s.contains("prod:only"), VirtualTerminal.BOUND, "status on prod");
    }
    assertThat(dump(prod)).as("only read, never written").isEqualTo(prodBefore);
  }

  @Test
  @DisplayName("the history file is 0600 and holds no password after a session that typed one")
  void historyHoldsNoPassword() throws Exception {
    Path history = Files.createDirectories(home.resolve("state/breakerctl")).resolve("history");
    Files.writeString(
        history,
        "1733000000000:status claims:*\n"
            + "1733000000001:status --redis redis://operator:OLD-"
            + PASSWORD
            + "@h:1\n");
    Files.setPosixFilePermissions(history, PosixFilePermissions.fromString("rw-r--r--"));
    String withPassword = "redis://operator:" + PASSWORD + "@" + staging.host() + ":";
    try (VirtualTerminal t = console()) {
      t.awaitText(s -> s.contains("prefix cb)> "), VirtualTerminal.BOUND, "the prompt");
      t.type("status --redis " + withPassword + staging.port() + "\r");
      t.awaitText(
          s -> s.contains("cb:only"), VirtualTerminal.BOUND, "status with the password in the URI");
      t.type("status --redis 'redis://operator:p w,/#?%@127.0.0.1:1' --timeout 500ms\r");
      t.type("status --redis-password " + PASSWORD + "\r");
      t.type("describe prod:only\r");
      t.awaitText(s -> s.contains("not kept in the history"), VirtualTerminal.BOUND, "the note");
      t.awaitText(
          s -> s.split("prefix cb\\)> ", -1).length > 5,
          VirtualTerminal.BOUND,
          "every line to finish");
      t.type("\u0004");
      assertThat(t.awaitExit(VirtualTerminal.BOUND)).isZero();
    }

    assertThat(Files.getPosixFilePermissions(history))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    String kept = Files.readString(history);
    assertThat(kept)
        .contains("status claims:*", "describe prod:only")
        .doesNotContain(PASSWORD, "p w,/#?%", "operator:");
  }

  @Test
  @DisplayName("top in a console on --redis user:password@staging: its breakers, no password shown")
  void topOnTheSessionsTarget() throws Exception {
    String uri = "redis://operator:" + PASSWORD + "@" + staging.host() + ":" + staging.port();
    String shown =
        "redis://operator:***@" + staging.host() + ":" + staging.port() + ", prefix blue";
    Map<String, String> prodBefore = dump(prod);
    try (VirtualTerminal t = console("--redis", uri, "--prefix", "blue")) {
      t.awaitText(
          s -> s.contains("breakerctl (prod: " + shown + ")> "),
          VirtualTerminal.BOUND,
          "the prompt");
      t.type("top --interval 30s\r");
      String screen =
          t.awaitScreen(
              s -> s.contains(shown) && s.contains("blue:only") && s.contains("checkout:payments"),
              VirtualTerminal.BOUND,
              "top's header and staging/blue's breakers");
      assertThat(screen).doesNotContain("prod:only");

      t.type("o"); // the first by id (all CLOSED): blue:only
      t.awaitScreen(s -> s.contains("for how long?"), VirtualTerminal.BOUND, "the duration");
      t.type("\r"); // until cleared
      t.awaitScreen(
          s -> s.contains("reason to force open blue:only"), VirtualTerminal.BOUND, "the reason");
      t.type("from-top\r");
      t.awaitScreen(s -> s.contains("[y/N]"), VirtualTerminal.BOUND, "the confirmation");
      t.type("y");
      t.awaitScreen(
          s -> s.contains("force open blue:only: done"), VirtualTerminal.BOUND, "the force");
      t.type("q");
      t.type("version -o name\r");
      t.awaitText(s -> s.contains("\ndev"), VirtualTerminal.BOUND, "the console after top");
      assertThat(t.text()).doesNotContain(PASSWORD);
    }
    assertThat(state(staging, "blue", "blue:only")).isEqualTo(State.FORCED_OPEN);
    assertThat(dump(prod)).isEqualTo(prodBefore);
  }

  private Map<String, String> variables() {
    return VirtualTerminal.variables(home);
  }

  private PipedRun piped(List<String> argv, String stdin) {
    return PipedRun.of(variables(), stdin, argv);
  }

  private VirtualTerminal console(String... globals) throws Exception {
    return new VirtualTerminal(variables(), 140, 30, "xterm", globals);
  }

  private static void seed(RedisServerProcess server, String prefix, String... ids) {
    try (RedisFleetStore store = store(server, prefix)) {
      for (String id : ids) {
        StoreFutures.await(
            store.record(BreakerId.parse(id), Outcome.successes("it-node", 1), Policy.DEFAULT));
      }
    }
  }

  private static State state(RedisServerProcess server, String prefix, String id) {
    try (RedisFleetStore store = store(server, prefix)) {
      return StoreFutures.await(store.snapshot(BreakerId.parse(id), 0)).effectiveState();
    }
  }

  private static RedisFleetStore store(RedisServerProcess server, String prefix) {
    return RedisFleetStore.connect(StoreConfig.builder().uri(server.uri()).prefix(prefix).build());
  }

  /** Every key of {@code server} with its serialized value. */
  private static Map<String, String> dump(RedisServerProcess server) {
    Map<String, String> all = new TreeMap<>();
    Object keys = server.call("KEYS", "*");
    Stream.of(((List<?>) keys).toArray())
        .map(String::valueOf)
        .forEach(k -> all.put(k, String.valueOf(server.call("DUMP", k))));
    assertThat(all).as("the dump sees the seeded keys").isNotEmpty();
    return all;
  }
}
