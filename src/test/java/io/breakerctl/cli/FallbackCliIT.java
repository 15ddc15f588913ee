package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.breakerctl.runtime.control.ControlConfig;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.fallback.BusinessKeys;
import io.breakerctl.runtime.control.fallback.DeferredRequests;
import io.breakerctl.runtime.control.fallback.FallbackSnapshots;
import io.breakerctl.runtime.control.fallback.PayloadKeys;
import io.breakerctl.runtime.fallback.SnapshotApproval;
import io.breakerctl.runtime.fallback.SnapshotRead;
import io.breakerctl.runtime.model.BreakerId;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@code fallback list|show|approve|revoke|deferred} as a user runs them: the packaged jar against
 * the MongoDB-wire server (issue 14, item 7).
 */
@DisplayName("breakerctl fallback (packaged jar)")
class FallbackCliIT extends WithCliServers {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SALT = "fallback-salt-of-this-test";
  private static final byte[] KEY =
      "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8);

  private static ControlDatabase db() {
    return ControlDatabase.connect(ControlConfig.builder().uri(servers.mongoUri()).build());
  }

  /** Captures member-42's answer for an operator's approval. */
  private static void capture(BreakerId id, PayloadKeys keys, String json) {
    try (ControlDatabase db = db()) {
      new FallbackSnapshots(db, new BusinessKeys(SALT), keys, Clock.systemUTC())
          .capture(
              id,
              "member-42",
              json.getBytes(StandardCharsets.UTF_8),
              "members-api GET /members/42",
              Duration.ofHours(1),
              SnapshotApproval.OPERATOR);
    }
  }

  @Test
  @DisplayName(
      "metadata without the payload; --payload only with the key; approve, revoke audited; a"
          + " fresh capture shown as the pending candidate beside the approved one")
  void snapshots() throws Exception {
    BreakerId id = BreakerId.parse("fb:members");
    PayloadKeys keys = PayloadKeys.of(Map.of("k1", KEY), "k1");
    capture(id, keys, "{\"plan\":\"gold\"}");
    Map<String, String> salt = Map.of("BREAKERCTL_FALLBACK_SALT", SALT);

    CliProcess.Result list = cli.run("fallback", "list", "fb:*", "-o", "json");
    assertThat(list.code()).as(list.toString()).isZero();
    JsonNode item = JSON.readTree(list.out()).path("items").get(0);
    assertThat(item.path("status").asText()).isEqualTo("PENDING");
    assertThat(item.path("keyId").asText()).isEqualTo("k1");
    assertThat(item.has("payload")).isFalse();
    assertThat(list.out()).doesNotContain("gold").doesNotContain("member-42");

    CliProcess.Result refused =
        cli.run(salt, "fallback", "show", "fb:members", "member-42", "--payload");
    assertThat(refused.code()).as(refused.toString()).isEqualTo(4);
    assertThat(refused.out()).doesNotContain("gold");
    assertThat(refused.err()).contains("not allowed to decrypt").contains("k1");

    CliProcess.Result approve =
        cli.run(
            salt, "fallback", "approve", "fb:members", "member-42", "--reason", "checked", "--yes");
    assertThat(approve.code()).as(approve.toString()).isZero();
    assertThat(approve.out()).contains("PENDING -> APPROVED");
    try (ControlDatabase db = db()) {
      SnapshotRead served =
          new FallbackSnapshots(db, new BusinessKeys(SALT), keys, Clock.systemUTC())
              .serve(id, "member-42");
      assertThat(served.outcome()).isEqualTo(SnapshotRead.Outcome.SERVED);
      assertThat(served.snapshot().orElseThrow().approvedBy()).isNotEmpty();
    }

    Map<String, String> withKey =
        Map.of(
            "BREAKERCTL_FALLBACK_KEYS",
            "k1=" + Base64.getEncoder().encodeToString(KEY),
            "BREAKERCTL_FALLBACK_KEY_ID",
            "k1");
    CliProcess.Result show =
        cli.run(
            withKey,
            "fallback",
            "show",
            "fb:members",
            "--key-hash",
            item.path("keyHash").asText(),
            "--payload");
    assertThat(show.code()).as(show.toString()).isZero();
    assertThat(show.out()).contains("APPROVED").contains("{\"plan\":\"gold\"}");

    // a fresh capture left for an operator: the pending candidate beside the approved one
    assertThat(
            JSON.readTree(cli.run("fallback", "list", "fb:*", "-o", "json").out())
                .path("items")
                .get(0)
                .path("candidateCapturedAt")
                .asText())
        .as("no candidate yet")
        .isEmpty();
    capture(id, keys, "{\"plan\":\"platinum\"}");
    CliProcess.Result withCandidate = cli.run("fallback", "list", "fb:*", "-o", "json");
    JsonNode both = JSON.readTree(withCandidate.out()).path("items").get(0);
    assertThat(both.path("status").asText()).isEqualTo("APPROVED");
    assertThat(both.path("candidateCapturedAt").asText())
        .as("the candidate's capture time beside the approved snapshot")
        .matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
    CliProcess.Result table = cli.run("fallback", "list", "fb:*");
    assertThat(table.code()).as(table.toString()).isZero();
    assertThat(table.out()).contains("CANDIDATE").contains("APPROVED");
    CliProcess.Result showBoth = cli.run(salt, "fallback", "show", "fb:members", "member-42");
    assertThat(showBoth.code()).as(showBoth.toString()).isZero();
    assertThat(showBoth.out())
        .contains("APPROVED")
        .containsPattern("Candidate: +PENDING, captured \\d{4}-")
        .doesNotContain("platinum");

    CliProcess.Result revoke =
        cli.run(
            salt, "fallback", "revoke", "fb:members", "member-42", "--reason", "stale", "--yes");
    assertThat(revoke.code()).as(revoke.toString()).isZero();
    assertThat(revoke.out()).contains("APPROVED -> REVOKED");
  }

  @Test
  @DisplayName("deferred requests: status by tracking id, never the payload; unknown id 7")
  void deferred() throws Exception {
    String tracking;
    try (ControlDatabase db = db()) {
      tracking =
          new DeferredRequests(db, PayloadKeys.none(), Clock.systemUTC())
              .defer(BreakerId.parse("fb:orders"), "secret-order".getBytes(StandardCharsets.UTF_8));
    }
    CliProcess.Result one = cli.run("fallback", "deferred", tracking, "-o", "json");
    assertThat(one.code()).as(one.toString()).isZero();
    JsonNode d = JSON.readTree(one.out()).path("items").get(0);
    assertThat(d.path("status").asText()).isEqualTo("PENDING");
    assertThat(d.path("breakerId").asText()).isEqualTo("fb:orders");
    assertThat(one.out()).doesNotContain("secret-order");

    CliProcess.Result unknown = cli.run("fallback", "deferred", "no-such-id");
    assertThat(unknown.code()).as(unknown.toString()).isEqualTo(7);
  }
}
