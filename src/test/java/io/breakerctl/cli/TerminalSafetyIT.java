package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.breakerctl.runtime.control.ControlConfig;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.audit.AuditAction;
import io.breakerctl.runtime.control.audit.AuditLog;
import io.breakerctl.runtime.control.audit.AuditRecord;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.StoreFutures;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.bson.Document;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Issue 29, item 6: text planted in Redis and MongoDB by someone else than breakerctl (ESC, the
 * one-character CSI U+009B, the right-to-left override U+202E, a newline) reaches no terminal raw.
 * {@code describe}, {@code status} and {@code history} in table, JSON and YAML, on the packaged
 * jar: escaped in every format, and read back as the planted string from JSON and YAML.
 */
@DisplayName("breakerctl output cannot act on the terminal (packaged jar)")
class TerminalSafetyIT extends WithCliServers {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final YAMLMapper YAML = new YAMLMapper();

  private static final String ID = "tsafe:dep";
  private static final String CORRELATION = "corr-\u001b[2J-\u009b31m-\u202eend";
  private static final String ACTOR = "mallory\u001b]0;owned\u0007\u009b\u202e";
  private static final String REASON = "fine \u001b[31mred\u009b1m \u202elive\ntsafe:fake  CLOSED";
  private static final String NODE = "node-\u001b[5m\u009b5m\u202e1";
  private static final String AUDIT_ID = "audit-\u001b[1A\u009b1A\u202e";
  private static final String NOTE_ID = "note-\u001b[1A\u009b1A\u202e";
  private static final String NOTE = "café ✓ \u001b[8mhidden\u009b8m \u202edesrever";

  /** The child prints UTF-8 whatever the machine's locale, so a raw character would show. */
  private static final Map<String, String> UTF8 = Map.of("LC_ALL", "C.UTF-8", "LANG", "C.UTF-8");

  @BeforeAll
  static void plant() {
    BreakerId id = BreakerId.parse(ID);
    // a node whose id carries the sequences trips the breaker: its id is on the transition
    for (int i = 0; i < 50 && !"OPEN".equals(hget("state")); i++) {
      StoreFutures.await(servers.store.record(id, Outcome.failure(NODE, ""), Policy.DEFAULT));
    }
    assertThat(hget("state")).isEqualTo("OPEN");
    servers.redis.call(
        "HSET",
        "cb:{" + ID + "}",
        "override",
        "FORCED_OPEN",
        "overrideUntil",
        "0",
        "overrideActor",
        ACTOR,
        "overrideReason",
        REASON,
        "overrideAt",
        Long.toString(System.currentTimeMillis()),
        "overrideCorrelationId",
        CORRELATION);
    try (ControlDatabase db =
        ControlDatabase.connect(ControlConfig.builder().uri(servers.mongoUri()).build())) {
      new AuditLog(db)
          .record(
              new AuditRecord(
                  AUDIT_ID,
                  AuditAction.FORCE,
                  ID,
                  ACTOR,
                  REASON,
                  Instant.now(),
                  Optional.empty(),
                  Map.of("state", "CLOSED"),
                  Map.of("state", "FORCED_OPEN"),
                  Optional.empty()));
      db.collection(ControlDatabase.NOTES)
          .insertOne(
              new Document("_id", NOTE_ID)
                  .append("breakerId", ID)
                  .append("actor", ACTOR)
                  .append("at", new Date())
                  .append("text", NOTE));
    }
  }

  private static Object hget(String field) {
    return servers.redis.call("HGET", "cb:{" + ID + "}", field);
  }

  private static CliProcess.Result run(String... args) {
    CliProcess.Result r = cli.run(UTF8, args);
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(raw(r.out())).as("raw in stdout of %s:%n%s", List.of(args), r).isEmpty();
    assertThat(raw(r.err())).as("raw in stderr of %s:%n%s", List.of(args), r).isEmpty();
    return r;
  }

  /** The planted characters found raw in {@code text} (and any other C0 but newline, C1). */
  private static List<String> raw(String text) {
    List<String> found = new ArrayList<>();
    text.chars()
        .filter(
            c ->
                (c < 0x20 && c != '\n')
                    || (c >= 0x7f && c <= 0x9f)
                    || c == 0x202e
                    || (c >= 0x2066 && c <= 0x2069))
        .forEach(c -> found.add(String.format("U+%04X", c)));
    return found;
  }

  /** No line of a table starts with the row a planted newline would fake. */
  private static void noFakeRow(CliProcess.Result r) {
    assertThat(r.out().lines().filter(l -> l.startsWith("tsafe:fake"))).as(r.toString()).isEmpty();
  }

  @Nested
  @DisplayName("tables and text: shown escaped")
  class Tables {
    @Test
    @DisplayName("describe: correlation id, actor, reason and node escaped, no fake line")
    void describe() {
      CliProcess.Result r = run("describe", ID);
      assertThat(r.out())
          .contains("(correlation corr-\\x1b[2J-\\u009b31m-\\u202eend)")
          .contains("mallory\\x1b]0;owned\\x07\\u009b\\u202e")
          .contains("fine \\x1b[31mred\\u009b1m \\u202elive\\ntsafe:fake  CLOSED")
          .contains("node-\\x1b[5m\\u009b5m\\u202e1");
      noFakeRow(r);
    }

    @Test
    @DisplayName("status and status -o wide: escaped, one row")
    void status() {
      run("status", "tsafe:*");
      CliProcess.Result wide = run("status", "tsafe:*", "-o", "wide");
      assertThat(wide.out())
          .contains("mallory\\x1b]0;owned\\x07\\u009b\\u202e")
          .contains("fine \\x1b[31mred\\u009b1m \\u202elive\\ntsafe:fake");
      noFakeRow(wide);
      assertThat(wide.out().lines().filter(l -> l.startsWith(ID))).hasSize(1);
    }

    @Test
    @DisplayName("history: note, audit and transition escaped; Unicode text itself left alone")
    void history() {
      CliProcess.Result r = run("history", ID, "-o", "wide");
      assertThat(r.out())
          .contains("café ✓ \\x1b[8mhidden\\u009b8m \\u202edesrever")
          .contains("node-\\x1b[5m\\u009b5m\\u202e1")
          .contains("mallory\\x1b]0;owned\\x07\\u009b\\u202e")
          .contains("fine \\x1b[31mred\\u009b1m \\u202elive\\ntsafe:fake");
      noFakeRow(r);
      run("history", ID);
      CliProcess.Result names = run("history", ID, "-o", "name");
      assertThat(names.out()).contains("note|note-\\x1b[1A\\u009b1A\\u202e");
    }
  }

  @Nested
  @DisplayName("JSON and YAML: escaped, and read back as planted")
  class MachineFormats {
    private JsonNode read(String format, String... args) throws Exception {
      List<String> all = new ArrayList<>(List.of(args));
      all.addAll(List.of("-o", format));
      CliProcess.Result r = run(all.toArray(new String[0]));
      assertThat(r.out()).doesNotContain("\u001b").doesNotContain("\u009b");
      return format.equals("yaml") ? YAML.readTree(r.out()) : JSON.readTree(r.out());
    }

    @Test
    @DisplayName("describe -o json and -o yaml")
    void describe() throws Exception {
      for (String format : List.of("json", "yaml")) {
        JsonNode d = read(format, "describe", ID);
        assertThat(d.path("override").path("correlationId").asText()).isEqualTo(CORRELATION);
        assertThat(d.path("override").path("actor").asText()).isEqualTo(ACTOR);
        assertThat(d.path("override").path("reason").asText()).isEqualTo(REASON);
        List<String> nodes = new ArrayList<>();
        d.path("events").forEach(e -> nodes.add(e.path("fields").path("node").asText()));
        assertThat(nodes).as(format).contains(NODE);
      }
    }

    @Test
    @DisplayName("status -o json and -o yaml")
    void status() throws Exception {
      for (String format : List.of("json", "yaml")) {
        JsonNode item = read(format, "status", "tsafe:*").path("items").path(0);
        assertThat(item.path("override").path("correlationId").asText()).isEqualTo(CORRELATION);
        assertThat(item.path("override").path("actor").asText()).isEqualTo(ACTOR);
        assertThat(item.path("override").path("reason").asText()).isEqualTo(REASON);
      }
    }

    @Test
    @DisplayName("history -o json, -o yaml and -o jsonl")
    void history() throws Exception {
      for (String format : List.of("json", "yaml")) {
        JsonNode items = read(format, "history", ID).path("items");
        assertEntries(items, format);
      }
      CliProcess.Result jsonl = run("history", ID, "-o", "jsonl");
      List<JsonNode> lines = new ArrayList<>();
      for (String line : jsonl.out().lines().toList()) {
        lines.add(JSON.readTree(line));
      }
      assertEntries(JSON.valueToTree(lines), "jsonl");
    }

    private void assertEntries(JsonNode items, String format) {
      JsonNode note = null;
      JsonNode audit = null;
      JsonNode transition = null;
      for (JsonNode e : items) {
        switch (e.path("kind").asText()) {
          case "NOTE" -> note = e;
          case "AUDIT" -> audit = e;
          case "TRANSITION" -> transition = e;
          default -> {}
        }
      }
      assertThat(note).as(format + ": " + items).isNotNull();
      assertThat(note.path("reason").asText()).isEqualTo(NOTE);
      assertThat(note.path("correlationId").asText()).isEqualTo(NOTE_ID);
      assertThat(note.path("actor").asText()).isEqualTo(ACTOR);
      assertThat(audit).as(format + ": " + items).isNotNull();
      assertThat(audit.path("correlationId").asText()).isEqualTo(AUDIT_ID);
      assertThat(audit.path("reason").asText()).isEqualTo(REASON);
      assertThat(transition).as(format + ": " + items).isNotNull();
      assertThat(transition.path("node").asText()).isEqualTo(NODE);
    }
  }
}
