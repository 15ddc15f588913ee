package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.StoreFutures;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@code replay --at} and {@code replay --from --to} as a user runs them: the packaged jar against
 * a real redis-server and the MongoDB-wire server (issue 14, item 5).
 */
@DisplayName("breakerctl replay --at and --from --to (packaged jar)")
class ReplayCliIT extends WithCliServers {
  private static final ObjectMapper JSON = new ObjectMapper();

  static void override(String id, OverrideKind kind, Duration d) {
    StoreFutures.await(
        servers.store.override(
            BreakerId.parse(id), new OverrideRequest(kind, "tester", "drill", d, "")));
    // Replay's instants are Redis milliseconds: two transitions of different breakers in the same
    // millisecond give two frames that --at cannot tell apart (both are at that instant).
    try {
      Thread.sleep(3);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** id -> state of the items of a BreakerList document. */
  static Map<String, String> states(JsonNode list) {
    Map<String, String> m = new TreeMap<>();
    list.path("items").forEach(i -> m.put(i.path("id").asText(), i.path("state").asText()));
    return m;
  }

  static JsonNode json(CliProcess.Result r) throws Exception {
    assertThat(r.code()).as(r.toString()).isZero();
    return JSON.readTree(r.out());
  }

  @Test
  @DisplayName("every --from/--to frame equals --at at its instant; --at equals status then")
  void framesEqualStatesAt() throws Exception {
    Instant t0 = Instant.now().minusSeconds(1);
    List<Instant> instants = new ArrayList<>();
    List<Map<String, String>> printed = new ArrayList<>();
    override("rep:a", OverrideKind.FORCED_OPEN, Duration.ZERO);
    printed.add(states(json(cli.run("status", "rep:*", "-o", "json"))));
    instants.add(beforeNextEvent());
    override("rep:b", OverrideKind.FORCED_CLOSED, Duration.ZERO);
    override("rep:a", OverrideKind.CLEAR, Duration.ZERO);
    printed.add(states(json(cli.run("status", "rep:*", "-o", "json"))));
    instants.add(beforeNextEvent());
    assertThat(printed.get(0)).containsExactly(Map.entry("rep:a", "FORCED_OPEN"));
    assertThat(printed.get(1))
        .containsExactly(Map.entry("rep:a", "CLOSED"), Map.entry("rep:b", "FORCED_CLOSED"));

    CliProcess.Result frames =
        cli.run(
            "replay",
            "rep:*",
            "--from",
            t0.toString(),
            "--to",
            "now",
            "--speed",
            "0",
            "-o",
            "jsonl");
    assertThat(frames.code()).as(frames.toString()).isZero();
    List<JsonNode> parsed = new ArrayList<>();
    for (String line : frames.out().split("\n")) {
      parsed.add(JSON.readTree(line));
    }
    assertThat(parsed).as(frames.out()).hasSize(3);
    List<CompletableFuture<CliProcess.Result>> ats = new ArrayList<>();
    for (JsonNode f : parsed) {
      assertThat(f.path("kind").asText()).isEqualTo("BreakerList");
      ats.add(at(f.path("at").asText()));
    }
    for (Instant t : instants) {
      ats.add(at(t.toString()));
    }
    for (int i = 0; i < parsed.size(); i++) {
      assertThat(states(json(ats.get(i).get())))
          .as("frame %d at %s", i, parsed.get(i).path("at"))
          .isEqualTo(states(parsed.get(i)));
    }
    for (int i = 0; i < instants.size(); i++) {
      assertThat(states(json(ats.get(parsed.size() + i).get())))
          .as("--at %s", instants.get(i))
          .isEqualTo(printed.get(i));
    }
  }

  /**
   * Now, as an instant strictly before any event recorded from here on: history times are Redis
   * milliseconds, so an event in this very millisecond must not count as at or before it.
   */
  private static Instant beforeNextEvent() {
    return Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MILLIS).minusMillis(1);
  }

  /** Both absent, or both times within 5 s (the remaining expiry restored). */
  static void close(JsonNode after, JsonNode before, String what) {
    assertThat(after.isMissingNode() || after.isNull())
        .as(what + " present in both or neither")
        .isEqualTo(before.isMissingNode() || before.isNull());
    if (!before.isMissingNode() && !before.isNull()) {
      long was = Instant.parse(before.asText()).toEpochMilli();
      long now = Instant.parse(after.asText()).toEpochMilli();
      assertThat(Math.abs(now - was)).as(what).isLessThan(5000);
    }
  }

  /** Two runs at a time: more JVMs at once only slow each other down on 2 loaded cores. */
  private static final ExecutorService TWO = Executors.newFixedThreadPool(2);

  private static CompletableFuture<CliProcess.Result> at(String instant) {
    return CompletableFuture.supplyAsync(
        () -> cli.run("replay", "rep:*", "--at", instant, "-o", "json", "--timeout", "10s"), TWO);
  }
}
