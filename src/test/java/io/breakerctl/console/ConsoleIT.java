package io.breakerctl.console;

import static org.assertj.core.api.Assertions.assertThat;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.RedisExtension;
import io.breakerctl.testing.RedisServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console on a real JLine terminal (an xterm over piped streams) against a real redis-server
 * and the in-process MongoDB-wire server: completion, errors, confirmations, history, Ctrl-C.
 */
@DisplayName("console: a JLine REPL over every command")
class ConsoleIT {

  @RegisterExtension static final RedisExtension redis = RedisExtension.standalone();

  private static final Duration BOUND = Duration.ofSeconds(15);

  /** The end of the prompt ({@code breakerctl (redis://127.0.0.1:PORT, prefix cb)> }). */
  private static final String PROMPT = ", prefix cb)> ";

  private static MongoServer mongo;
  private static String mongoUri;

  @TempDir Path home;
  private RedisFleetStore store;

  @BeforeAll
  static void startMongo() {
    mongo = new MongoServer(new MemoryBackend());
    mongo.bind("127.0.0.1", 0);
    mongoUri = "mongodb://127.0.0.1:" + mongo.getLocalAddress().getPort();
  }

  @AfterAll
  static void stopMongo() {
    mongo.shutdownNow();
  }

  @BeforeEach
  void breakers(RedisServerProcess server) {
    server.flushAll();
    store = RedisFleetStore.connect(StoreConfig.builder().uri(server.uri()).build());
    for (String id : List.of("checkout:payments", "checkout:inventory", "claims:members")) {
      StoreFutures.await(
          store.record(BreakerId.parse(id), Outcome.successes("it-node", 1), Policy.DEFAULT));
    }
  }

  @org.junit.jupiter.api.AfterEach
  void closeStore() {
    store.close();
  }

  private VirtualTerminal console(RedisServerProcess server) throws Exception {
    return console(server, "xterm");
  }

  private VirtualTerminal console(RedisServerProcess server, String type) throws Exception {
    return new VirtualTerminal(
        VirtualTerminal.variables(
            home, "BREAKERCTL_REDIS", server.uri(), "BREAKERCTL_MONGO", mongoUri),
        120,
        40,
        type);
  }

  private Path history() {
    return home.resolve("state/breakerctl/history");
  }

  @Test
  @DisplayName("TAB completes a live breaker id containing ':'")
  void completesABreakerIdWithAColon(RedisServerProcess server) throws Exception {
    try (VirtualTerminal t = console(server)) {
      t.awaitText(s -> s.contains(PROMPT), BOUND, "the prompt");

      t.type("describe checkout:pa\t");
      t.awaitText(s -> s.contains("describe checkout:payments"), BOUND, "the completed id");
      t.type("\r");

      t.awaitText(
          s -> s.contains("FORCE") || s.lastIndexOf(PROMPT) > s.indexOf("describe"),
          BOUND,
          "describe to finish");
      t.type("\u0004");
      assertThat(t.awaitExit(BOUND)).isZero();
    }
    assertThat(Files.readAllLines(history()))
        .anySatisfy(l -> assertThat(l).endsWith("describe checkout:payments"));
  }

  @Test
  @DisplayName("an error prints and the next command works")
  void errorThenAWorkingCommand(RedisServerProcess server) throws Exception {
    try (VirtualTerminal t = console(server)) {
      t.awaitText(s -> s.contains(PROMPT), BOUND, "the prompt");

      t.type("describe NOT-AN-ID\r");
      String afterError = t.awaitText(s -> s.contains("error:"), BOUND, "the error");
      t.type("version\r");

      String text = t.awaitText(s -> s.contains("breakerctl dev"), BOUND, "version's output");
      assertThat(text.indexOf("breakerctl dev")).isGreaterThan(afterError.indexOf("error:"));
      t.type("status\r");
      t.awaitText(s -> s.contains("claims:members"), BOUND, "status after the error");
    }
  }

  @Test
  @DisplayName("force asks at the console's prompt; 'y' applies it")
  void forceConfirmedAtThePrompt(RedisServerProcess server) throws Exception {
    try (VirtualTerminal t = console(server)) {
      t.awaitText(s -> s.contains(PROMPT), BOUND, "the prompt");

      t.type("force open checkout:payments --reason incident-42\r");
      t.awaitText(s -> s.contains("Continue? [y/N]"), BOUND, "the confirmation");
      assertThat(snapshot("checkout:payments").effectiveState()).isEqualTo(State.CLOSED);
      t.type("y\r");

      t.awaitText(s -> s.lastIndexOf(PROMPT) > s.indexOf("Continue?"), BOUND, "force to finish");
      BreakerSnapshot s = snapshot("checkout:payments");
      assertThat(s.effectiveState()).as(t.text()).isEqualTo(State.FORCED_OPEN);
      assertThat(s.fields()).containsEntry("overrideReason", "incident-42");

      t.type("force open claims:members --reason no-thanks\r");
      t.awaitText(s2 -> s2.split("Continue\\?", -1).length == 3, BOUND, "the second question");
      t.type("n\r");
      t.awaitText(s2 -> s2.contains("cancelled"), BOUND, "the declined change");
      assertThat(snapshot("claims:members").effectiveState()).isEqualTo(State.CLOSED);
    }
    assertThat(Files.readAllLines(history())).noneMatch(l -> l.endsWith(":y") || l.endsWith(":n"));
  }

  @Test
  @DisplayName("history is kept across two sessions (up-arrow recalls the last command)")
  void historyAcrossTwoSessions(RedisServerProcess server) throws Exception {
    try (VirtualTerminal first = console(server)) {
      first.awaitText(s -> s.contains(PROMPT), BOUND, "the prompt");
      first.type("status claims:*\r");
      first.awaitText(s -> s.contains("claims:members"), BOUND, "status");
      first.type("\u0004");
      assertThat(first.awaitExit(BOUND)).isZero();
    }
    assertThat(Files.readString(history())).contains("status claims:*");

    try (VirtualTerminal second = console(server)) {
      second.awaitText(s -> s.contains(PROMPT), BOUND, "the prompt");
      second.type(VirtualTerminal.UP);
      second.awaitText(s -> s.contains("status claims:*"), BOUND, "the recalled command");
      second.type("\r");
      second.awaitText(s -> s.contains("claims:members"), BOUND, "the recalled command's output");
    }
  }

  @Test
  @DisplayName("Ctrl-C stops status --watch; the console stays")
  void ctrlCStopsAWatchAndTheConsoleStays(RedisServerProcess server) throws Exception {
    try (VirtualTerminal t = console(server)) {
      t.awaitText(s -> s.contains(PROMPT), BOUND, "the prompt");
      t.type("status --watch --interval 200ms\r");
      t.awaitText(s -> s.split("claims:members", -1).length > 3, BOUND, "several renders");

      t.type("\u0003");
      String stopped =
          t.awaitText(
              s -> s.lastIndexOf(PROMPT) > s.lastIndexOf("claims:members"),
              BOUND,
              "the prompt again");
      int renders = stopped.split("claims:members", -1).length;
      Thread.sleep(600);
      assertThat(t.text().split("claims:members", -1).length)
          .as("no render after Ctrl-C")
          .isEqualTo(renders);

      t.type("version\r");
      t.awaitText(s -> s.contains("breakerctl dev"), BOUND, "a command after Ctrl-C");
    }
  }

  @Test
  @DisplayName("use CONTEXT is shown in the prompt; an unknown context is an error")
  void useAContext(RedisServerProcess server) throws Exception {
    Path config = Files.createDirectories(home.resolve("config/breakerctl")).resolve("config.yaml");
    Files.writeString(
        config,
        "apiVersion: breakerctl/v1\nkind: Config\ncontexts:\n- name: blue\n  redis: "
            + server.uri()
            + "\n");
    try (VirtualTerminal t = console(server)) {
      t.awaitText(s -> s.contains(PROMPT), BOUND, "the prompt");
      t.type("use green\r");
      t.awaitText(s -> s.contains("no context 'green'"), BOUND, "the unknown context");
      t.type("use blue\r");
      t.awaitText(
          s -> s.contains("breakerctl (blue: " + server.uri() + PROMPT),
          BOUND,
          "the context in the prompt");
      t.type("status claims:*\r");
      t.awaitText(s -> s.contains("claims:members"), BOUND, "status in the context");
    }
  }

  @Test
  @DisplayName("connections are opened once and reused by the next commands")
  void connectionsAreReused(RedisServerProcess server) throws Exception {
    try (VirtualTerminal t = console(server)) {
      t.awaitText(s -> s.contains(PROMPT), BOUND, "the prompt");
      long before = clients(server);
      t.type("status\r");
      t.awaitText(s -> prompts(s) == 2, BOUND, "status");
      long afterFirst = clients(server);
      for (int i = 0; i < 3; i++) {
        t.type("describe claims:members\r");
      }
      t.type("status\r");
      t.awaitText(s -> prompts(s) == 6, BOUND, "four more commands");
      assertThat(afterFirst).as("the first command connects").isGreaterThan(before);
      assertThat(clients(server)).as("the next ones reuse it").isEqualTo(afterFirst);
    }
  }

  @Test
  @DisplayName("top on a dumb terminal says so and runs status --watch (Ctrl-C stops it)")
  void topOnADumbTerminal(RedisServerProcess server) throws Exception {
    try (VirtualTerminal t = console(server, "dumb")) {
      t.awaitText(s -> s.contains(PROMPT), BOUND, "the prompt");
      t.type("top --interval 200ms\r");
      t.awaitText(s -> s.contains("top needs a full-screen terminal"), BOUND, "the fallback");
      t.awaitText(s -> s.split("claims:members", -1).length > 2, BOUND, "status --watch renders");
      t.type("\u0003");
      t.awaitText(
          s -> s.lastIndexOf(PROMPT) > s.lastIndexOf("claims:members"), BOUND, "the prompt again");
    }
  }

  private static int prompts(String text) {
    return text.split(Pattern.quote(PROMPT), -1).length - 1;
  }

  private static long clients(RedisServerProcess server) {
    return String.valueOf(server.call("CLIENT", "LIST")).lines().count();
  }

  private BreakerSnapshot snapshot(String id) {
    return StoreFutures.await(store.snapshot(BreakerId.parse(id), 0));
  }
}
