package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.breakerctl.runtime.control.ControlConfig;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.audit.AuditLog;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Issue 31, item 4: {@code force} plans from one read of the breakers it selected and the run keeps
 * an override the same actor holds with the same reason on the override script's own answer. The
 * dry run names every decision; the run writes nothing and audits nothing for a kept breaker, and
 * sets the others.
 */
@DisplayName("force: the plan from one read, the kept override on the script's answer")
class ForcePlanIT extends WithCliServers {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The items of a json answer, by id. */
  private static Map<String, JsonNode> items(CliProcess.Result r) throws Exception {
    Map<String, JsonNode> out = new HashMap<>();
    for (JsonNode item : JSON.readTree(r.out()).path("items")) {
      out.put(item.path("id").asText(), item);
    }
    return out;
  }

  private static CliProcess.Result force(String... args) {
    return servers.cli.inProcess(args);
  }

  private static Object hget(String id, String field) {
    return servers.redis.call("HGET", "cb:{" + id + "}", field);
  }

  private static Object events(String id) {
    return servers.redis.call("XLEN", "cb:{" + id + "}:ev");
  }

  private static int audits(String id) {
    try (ControlDatabase db =
        ControlDatabase.connect(ControlConfig.builder().uri(servers.mongoUri()).build())) {
      return new AuditLog(db).forTarget(id).size();
    }
  }

  @Test
  @DisplayName("dry run: unchanged, would update, would set; the run keeps the held one as it is")
  void keepsTheHeldOverride() throws Exception {
    String held = "plan:held";
    String other = "plan:other";
    String fresh = "plan:fresh";
    CliProcess.Result set =
        force(
            "force", "open", held, "--new", "--for", "1h", "--reason", "R", "--yes", "-o", "json");
    assertThat(set.code()).as(set.toString()).isZero();
    String heldUntil = items(set).get(held).path("until").asText();
    assertThat(
            force(
                    "force",
                    "open",
                    other,
                    "--new",
                    "--for",
                    "1h",
                    "--reason",
                    "S",
                    "--yes",
                    "-o",
                    "json")
                .code())
        .isZero();
    assertThat(force("force", "closed", fresh, "--new", "--reason", "S", "--yes").code()).isZero();
    assertThat(force("force", "clear", fresh, "--reason", "S", "--yes").code()).isZero();
    Object generation = hget(held, "generation");
    Object stream = events(held);
    Object corr = hget(held, "overrideCorrelationId");
    int audited = audits(held);
    assertThat(audited).as("the force that set it").isEqualTo(1);

    CliProcess.Result dry =
        force("force", "open", "plan:*", "--for", "2h", "--reason", "R", "--dry-run", "-o", "json");

    assertThat(dry.code()).as(dry.toString()).isZero();
    Map<String, JsonNode> plan = items(dry);
    assertThat(plan.get(held).path("outcome").asText()).isEqualTo("UNCHANGED");
    assertThat(plan.get(held).path("until").asText()).as("the held expiry").isEqualTo(heldUntil);
    assertThat(plan.get(other).path("outcome").asText()).isEqualTo("WOULD_UPDATE");
    assertThat(plan.get(fresh).path("outcome").asText()).isEqualTo("WOULD_SET");
    assertThat(plan.values()).allMatch(i -> i.path("dryRun").asBoolean());
    assertThat(hget(other, "overrideReason")).as("the dry run wrote nothing").isEqualTo("S");
    assertThat(hget(fresh, "override")).isNull();

    CliProcess.Result run =
        force("force", "open", "plan:*", "--for", "2h", "--reason", "R", "--yes", "-o", "json");

    assertThat(run.code()).as(run.toString()).isZero();
    Map<String, JsonNode> done = items(run);
    JsonNode kept = done.get(held);
    assertThat(kept.path("result").asText()).isEqualTo("unchanged");
    assertThat(kept.path("outcome").asText()).isEqualTo("UNCHANGED");
    assertThat(kept.path("previous").asText() + " " + kept.path("state").asText())
        .isEqualTo("FORCED_OPEN FORCED_OPEN");
    assertThat(kept.path("until").asText()).as("its expiry kept").isEqualTo(heldUntil);
    assertThat(kept.path("correlationId").asText()).isEmpty();
    assertThat(hget(held, "generation")).as("nothing written").isEqualTo(generation);
    assertThat(hget(held, "overrideCorrelationId")).isEqualTo(corr);
    assertThat(events(held)).as("no event").isEqualTo(stream);
    assertThat(audits(held)).as("nothing audited").isEqualTo(audited);
    for (String id : List.of(other, fresh)) {
      assertThat(done.get(id).path("result").asText()).as(id).isEqualTo("applied");
      assertThat(hget(id, "overrideReason")).as(id).isEqualTo("R");
    }
  }

  @Test
  @DisplayName(
      "dry run of a clear: would clear the override, not overridden elsewhere (alone: exit 3)")
  void clearPlan() throws Exception {
    String forced = "clearplan:forced";
    String plain = "clearplan:plain";
    assertThat(force("force", "open", forced, "--new", "--reason", "R", "--yes").code()).isZero();
    assertThat(force("force", "open", plain, "--new", "--reason", "R", "--yes").code()).isZero();
    assertThat(force("force", "clear", plain, "--reason", "R", "--yes").code()).isZero();

    CliProcess.Result dry =
        force("force", "clear", "clearplan:*", "--reason", "over", "--dry-run", "-o", "json");

    assertThat(dry.code()).as(dry.toString()).isZero();
    Map<String, JsonNode> plan = items(dry);
    assertThat(plan.get(forced).path("outcome").asText()).isEqualTo("WOULD_CLEAR");
    assertThat(plan.get(forced).path("state").asText()).isEqualTo("(machine state)");
    assertThat(plan.get(plain).path("outcome").asText()).isEqualTo("NOT_OVERRIDDEN");
    assertThat(hget(forced, "override")).isEqualTo("FORCED_OPEN");

    CliProcess.Result none =
        force("force", "clear", plain, "--reason", "over", "--dry-run", "-o", "json");
    assertThat(none.code()).as(none.toString()).isEqualTo(ExitCode.CONFLICT);
    assertThat(none.err()).contains("not overridden");
  }
}
