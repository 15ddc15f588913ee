package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.breakerctl.runtime.control.ControlConfig;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.audit.BreakerNote;
import io.breakerctl.runtime.control.audit.BreakerNotes;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.StoreFutures;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@code note}, {@code history --follow}, {@code wait} and the undo {@code force} names, as a user
 * runs them: the packaged jar against a real redis-server and the MongoDB-wire server; the changes
 * come from another process (this test) through the runtime's store (issue 14, items 4, 6, 8, 9).
 */
@DisplayName("breakerctl note, history --follow, wait, force undo (packaged jar)")
class HistoryCliIT extends WithCliServers {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static void override(String id, OverrideKind kind) {
    StoreFutures.await(
        servers.store.override(
            BreakerId.parse(id), new OverrideRequest(kind, "tester", "drill", Duration.ZERO, "")));
  }

  /** Lines of a process's stream, as they come. */
  private static BlockingQueue<String> lines(java.io.InputStream in) {
    BlockingQueue<String> q = new LinkedBlockingQueue<>();
    Thread t =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String l = r.readLine(); l != null; l = r.readLine()) {
                  q.add(l);
                }
              } catch (java.io.IOException e) {
                // the process ended
              }
            },
            "lines");
    t.setDaemon(true);
    t.start();
    return q;
  }

  @Test
  @DisplayName("a malformed stream entry: shown as MALFORMED and counted, exit 0, the rest intact")
  void malformedEntry() {
    override("mal:dep", OverrideKind.FORCED_OPEN);
    String stream =
        io.breakerctl.runtime.redis.BreakerKeys.withPrefix("cb").events(BreakerId.parse("mal:dep"));
    Object bad =
        servers.redis.call(
            "XADD",
            stream,
            "*",
            "from",
            "FORCED_OPEN",
            "to",
            "NOT-A-STATE",
            "cause",
            "OVERRIDE_CLEARED",
            "at",
            "1796000000000");
    override("mal:dep", OverrideKind.CLEAR);

    CliProcess.Result h = cli.run("history", "mal:*");
    assertThat(h.code()).as(h.toString()).isZero();
    assertThat(h.out()).contains("MALFORMED").contains("OVERRIDE_SET").contains("OVERRIDE_CLEARED");
    assertThat(h.err()).contains("warning: 1 malformed event(s) shown as MALFORMED");
    CliProcess.Result json = cli.run("history", "mal:*", "-o", "jsonl");
    assertThat(json.code()).as(json.toString()).isZero();
    assertThat(json.out().lines()).hasSize(3);
    assertThat(json.out()).contains("to=NOT-A-STATE is not a state");
    // the server's event audit at its close holds every entry to the transition table: this one
    // was put there on purpose
    servers.redis.call("XDEL", stream, String.valueOf(bad));
  }

  @Test
  @DisplayName("a note is on the timeline; --follow -o jsonl prints another process's transition")
  void noteAndFollow() throws Exception {
    CliProcess.Result note = cli.run("note", "fol:dep", "payments vendor paged, ticket 123");
    assertThat(note.code()).as(note.toString()).isZero();
    assertThat(note.out()).contains("added to fol:dep");

    Process p = cli.builder(Map.of(), "history", "fol:*", "--follow", "-o", "jsonl").start();
    try {
      BlockingQueue<String> out = lines(p.getInputStream());
      BlockingQueue<String> err = lines(p.getErrorStream());
      String first = out.poll(30, TimeUnit.SECONDS);
      assertThat(first).as("the note, first page (stderr: %s)", err).isNotNull();
      JsonNode n = JSON.readTree(first);
      assertThat(n.path("kind").asText()).isEqualTo("NOTE");
      assertThat(n.path("reason").asText()).isEqualTo("payments vendor paged, ticket 123");

      override("fol:dep", OverrideKind.FORCED_OPEN);
      long changed = System.nanoTime();
      String line = out.poll(5, TimeUnit.SECONDS);
      Duration took = Duration.ofNanos(System.nanoTime() - changed);
      assertThat(line).as("the transition (stderr: %s)", err).isNotNull();
      JsonNode t = JSON.readTree(line);
      assertThat(t.path("kind").asText()).isEqualTo("TRANSITION");
      assertThat(t.path("to").asText()).isEqualTo("FORCED_OPEN");
      assertThat(t.path("actor").asText()).isEqualTo("tester");
      assertThat(t.path("source").asText()).isEqualTo("REDIS");
      System.out.printf("history --follow printed the change after %d ms%n", took.toMillis());
      assertThat(took)
          .as("printed soon after the change (regression bound: 3x the old 1 s target)")
          .isLessThan(Duration.ofSeconds(3));
      assertThat(out.poll(300, TimeUnit.MILLISECONDS)).as("each entry once").isNull();
    } finally {
      p.destroy(); // SIGTERM: exit 5
      assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(p.exitValue()).isEqualTo(5);
  }

  @Test
  @DisplayName("force names its undo; wait returns soon after the change, 1 at its timeout")
  void forceUndoAndWait() throws Exception {
    CliProcess.Result forced =
        cli.run("force", "open", "wt:dep", "--new", "--reason", "drill 5", "--yes");
    assertThat(forced.code()).as(forced.toString()).isZero();
    assertThat(forced.out())
        .contains("undo: breakerctl force clear wt:dep --reason 'undo: drill 5'");

    Process p =
        cli.builder(Map.of(), "wait", "wt:dep", "--for", "state=CLOSED", "--timeout", "30s")
            .start();
    CompletableFuture<String> out = CliProcess.drain(p.getInputStream());
    BlockingQueue<String> err = lines(p.getErrorStream());
    String waiting = err.poll(30, TimeUnit.SECONDS);
    assertThat(waiting).contains("waiting up to 30s for 1 breaker(s) to be CLOSED");
    assertThat(p.isAlive()).isTrue();
    override("wt:dep", OverrideKind.CLEAR);
    long changed = System.nanoTime();
    assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
    Duration took = Duration.ofNanos(System.nanoTime() - changed);
    assertThat(p.exitValue()).as("stderr: %s", err).isZero();
    assertThat(out.get(5, TimeUnit.SECONDS)).isEqualTo("wt:dep is CLOSED\n");
    System.out.printf("wait exited %d ms after the change%n", took.toMillis());
    assertThat(took)
        .as("exits soon after the change (regression bound: 3x the old 1 s target)")
        .isLessThan(Duration.ofSeconds(3));

    CliProcess.Result timeout = cli.run("wait", "wt:dep", "--for", "state=OPEN", "--timeout", "1s");
    assertThat(timeout.code()).as(timeout.toString()).isEqualTo(1);
    assertThat(timeout.err()).contains("wt:dep is CLOSED, not OPEN").contains("timed out after 1s");

    // a misspelt id: no key, policy, note or history knows it
    CliProcess.Result typo = cli.run("wait", "wt:dpe", "--for", "state=CLOSED", "--timeout", "5s");
    assertThat(typo.code()).as(typo.toString()).isEqualTo(7);
    assertThat(typo.err())
        .contains("unknown breaker wt:dpe")
        .contains("did you mean wt:dep?")
        .doesNotContain("Exception");
    CliProcess.Result forceTypo =
        cli.run("force", "open", "wt:dpe", "--reason", "drill 6", "--yes");
    assertThat(forceTypo.code()).as(forceTypo.toString()).isEqualTo(7);
    assertThat(forceTypo.err()).contains("did you mean wt:dep?").contains("add --new");
    assertThat(servers.redis.call("EXISTS", "cb:{wt:dpe}")).as("nothing written").isEqualTo(0L);
    // history with Redis and MongoDB both down: not "No history found" and exit 0
    CliProcess.Result blind =
        cli.run(
            "history",
            "--redis",
            "redis://127.0.0.1:1",
            "--mongo",
            "mongodb://127.0.0.1:1",
            "--timeout",
            "1s");
    assertThat(blind.code()).as(blind.toString()).isEqualTo(6);
    assertThat(blind.err())
        .contains("no history could be read")
        .contains("Redis")
        .contains("MongoDB")
        .doesNotContain("No history found");
    CliProcess.Result describeTypo = cli.run("describe", "wt:dpe");
    assertThat(describeTypo.code()).as(describeTypo.toString()).isEqualTo(7);
    assertThat(describeTypo.err()).contains("not found").contains("did you mean wt:dep?");
    CliProcess.Result bad = cli.run("wait", "wt:dep", "--for", "color=red");
    assertThat(bad.code()).as(bad.toString()).isEqualTo(2);
  }

  @Test
  @DisplayName("history prune --before: --yes required off a terminal; old entries go")
  void prune() throws Exception {
    BreakerId id = BreakerId.parse("pr:dep");
    Instant old = Instant.now().minus(Duration.ofDays(10));
    try (ControlDatabase db =
        ControlDatabase.connect(ControlConfig.builder().uri(servers.mongoUri()).build())) {
      new BreakerNotes(db, Clock.fixed(old, ZoneOffset.UTC)).add(id, "tester", "old news");
      new BreakerNotes(db, Clock.systemUTC()).add(id, "tester", "fresh");

      CliProcess.Result noYes = cli.run("history", "prune", "--before", "1d");
      assertThat(noYes.code()).as(noYes.toString()).isEqualTo(2);
      assertThat(noYes.err()).contains("--yes");
      CliProcess.Result pruned = cli.run("history", "prune", "--before", "1d", "--yes");
      assertThat(pruned.code()).as(pruned.toString()).isZero();
      assertThat(pruned.out()).contains("1 note(s)");
      assertThat(new BreakerNotes(db, Clock.systemUTC()).list(id))
          .extracting(BreakerNote::text)
          .containsExactly("fresh");
    }
  }
}
