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
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code top} inside the console, rendered into a fixed-size virtual terminal (JLine's VT100
 * emulator): a trip reaches the screen through pub/sub (the timer is 30 s), and a force from the
 * screen goes through {@code force} with its reason.
 */
@DisplayName("top: the full-screen live view")
class TopIT {

  @RegisterExtension static final RedisExtension redis = RedisExtension.standalone();

  private static final Duration BOUND = Duration.ofSeconds(15);

  @TempDir Path home;

  @Test
  @DisplayName("an opened breaker shows by push (not the 30 s interval); o forces it with a reason")
  void showsATripWithinOneSecondAndForcesFromTheScreen(RedisServerProcess server) throws Exception {
    MongoServer mongo = new MongoServer(new MemoryBackend());
    mongo.bind("127.0.0.1", 0);
    Policy policy = Policy.builder().failureThreshold(5).open(Duration.ofSeconds(60)).build();
    BreakerId payments = BreakerId.parse("checkout:payments");
    try (RedisFleetStore store =
            RedisFleetStore.connect(StoreConfig.builder().uri(server.uri()).build());
        VirtualTerminal t =
            new VirtualTerminal(
                Map.of(
                    "BREAKERCTL_REDIS", server.uri(),
                    "BREAKERCTL_MONGO", "mongodb://127.0.0.1:" + mongo.getLocalAddress().getPort(),
                    "XDG_STATE_HOME", home.resolve("state").toString(),
                    "XDG_CONFIG_HOME", home.resolve("config").toString()),
                140,
                30)) {
      for (String id : List.of("checkout:payments", "checkout:inventory", "claims:members")) {
        StoreFutures.await(
            store.record(BreakerId.parse(id), Outcome.successes("it-node", 1), policy));
      }
      // claims:members flapped before top started: its trip is in the footer from the first frame
      for (int i = 0; i < 5; i++) {
        StoreFutures.await(
            store.record(
                BreakerId.parse("claims:members"), Outcome.failure("it-node", ""), policy));
      }
      t.awaitText(s -> s.contains(", prefix cb)> "), BOUND, "the prompt");
      t.type("top --interval 30s\r");
      t.awaitScreen(
          s ->
              row(s, "checkout:payments").contains("CLOSED")
                  && s.contains("claims:members CLOSED -> OPEN (FAILURE_THRESHOLD"),
          BOUND,
          "the first render, with the transition made before top started");

      for (int i = 0; i < 5; i++) {
        StoreFutures.await(store.record(payments, Outcome.failure("it-node", ""), policy));
      }
      long tripped = System.nanoTime();
      assertThat(StoreFutures.await(store.snapshot(payments, 0)).effectiveState())
          .isEqualTo(State.OPEN);

      String screen =
          t.awaitScreen(
              // the whole frame: a frame larger than the writer's buffer reaches the emulator in
              // pieces, and a screen read between them shows the row but half the transition line
              s ->
                  row(s, "checkout:payments").contains(" OPEN ")
                      && s.contains("checkout:payments CLOSED -> OPEN (FAILURE_THRESHOLD"),
              Duration.ofSeconds(10),
              "checkout:payments OPEN and its transition on the screen by push (the interval is"
                  + " 30 s)");
      long millis = (System.nanoTime() - tripped) / 1_000_000;
      System.out.printf("top showed the trip %d ms after it%n", millis);
      // by push, not by the 30 s interval: the figure is printed, the bound is far from it
      assertThat(millis).isLessThanOrEqualTo(10_000);
      List<String> lines = Arrays.asList(screen.split("\n"));
      int header = indexOf(lines, "STATE");
      assertThat(lines.get(header + 1))
          .as("the open breaker is listed first (severity)")
          .contains("checkout:payments");

      t.type("o");
      t.awaitScreen(s -> s.contains("for how long?"), BOUND, "the duration");
      t.type("10m\r");
      t.awaitScreen(
          s -> s.contains("reason to force open checkout:payments for 10m"), BOUND, "reason");
      t.type("from-top\r");
      t.awaitScreen(s -> s.contains("[y/N]"), BOUND, "the confirmation");
      t.type("y"); // one key
      t.awaitScreen(
          s -> row(s, "checkout:payments").contains("FORCED_OPEN"), BOUND, "the forced breaker");
      t.awaitScreen(
          s ->
              row(s, "checkout:payments").contains("until in 9m")
                  || row(s, "checkout:payments").contains("until in 10m"),
          BOUND,
          "the forced row's expiry");
      BreakerSnapshot s = StoreFutures.await(store.snapshot(payments, 0));
      assertThat(s.effectiveState()).isEqualTo(State.FORCED_OPEN);
      assertThat(s.fields()).containsEntry("overrideReason", "from-top");
      assertThat(Long.parseLong(s.fields().get("overrideUntil")))
          .as("forced for the 10 minutes asked")
          .isBetween(s.redisTimeMillis() + 9 * 60_000, s.redisTimeMillis() + 10 * 60_000);

      // any key but y cancels the confirmation at once, and is not typed into anything
      t.type("c");
      t.awaitScreen(s2 -> s2.contains("reason to clear"), BOUND, "the reason to clear");
      t.type("changed my mind\r");
      t.awaitScreen(s2 -> s2.contains("[y/N]"), BOUND, "the confirmation to clear");
      t.type("n");
      t.awaitScreen(s2 -> s2.contains("cancelled: nothing was changed"), BOUND, "cancelled");
      assertThat(StoreFutures.await(store.snapshot(payments, 0)).effectiveState())
          .isEqualTo(State.FORCED_OPEN);
      assertThat(s.fields().get("overrideActor"))
          .as("the identity (no credentials: default), the OS user and host")
          .startsWith("default(it@");

      t.type("q");
      t.type("version -o name\r");
      t.awaitText(s2 -> s2.contains("\ndev"), BOUND, "the console going on after q");
    } finally {
      mongo.shutdownNow();
    }
  }

  private static String row(String screen, String id) {
    for (String line : screen.split("\n")) {
      if (line.contains(id + " ") && !line.contains("->")) {
        return line;
      }
    }
    return "";
  }

  private static int indexOf(List<String> lines, String text) {
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains(text)) {
        return i;
      }
    }
    return -1;
  }
}
