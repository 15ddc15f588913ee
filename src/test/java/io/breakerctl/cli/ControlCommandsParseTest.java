package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.breakerctl.BreakerCtl;
import io.breakerctl.cli.CliParseTest.Run;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The parse layer of policy, history, replay, note, wait and fallback: bad input is exit 2 naming
 * the problem, before anything is connected (no server runs here; a connection attempt would be
 * exit 6).
 */
@DisplayName("policy, history, replay, wait, fallback: parsing and offline checks")
class ControlCommandsParseTest {

  @Nested
  @DisplayName("bad input: 2 before connecting")
  class BadInput {
    private void usage(String expected, String... args) {
      Run r = CliParseTest.execute(args);
      assertThat(r.code()).as("%s", r).isEqualTo(2);
      assertThat(r.err()).contains(expected).doesNotContain("Exception");
      assertThat(r.out()).isEmpty();
    }

    @Test
    void replayNeedsOneMode() {
      usage("give either --at TIME, or --from TIME", "replay", "rep:*");
      usage("give either --at TIME, or --from TIME", "replay", "--at", "now", "--from", "1h");
      usage("--to goes with --from", "replay", "--at", "now", "--to", "now");
      usage("--at must be an RFC 3339 time", "replay", "--at", "yesterday-ish");
      usage("--speed must be 0 or more", "replay", "--from", "1h", "--speed", "-1");
    }

    @Test
    void historyAndWait() {
      usage("--follow streams: use -o jsonl", "history", "--follow", "-o", "json");
      usage("breaker pattern 'Bad Id'", "history", "Bad Id");
      usage("--for must be state=STATE", "wait", "a:b", "--for", "color=red");
      usage("unknown state 'PURPLE'", "wait", "a:b", "--for", "state=purple");
    }

    @Test
    void policyAndFallback() {
      usage("give either --from V --to V, or -f FILE", "policy", "diff", "a:b");
      usage("--from and --to go together", "policy", "diff", "a:b", "--from", "1");
      usage("policy id must be", "policy", "get", "Nope");
      usage(
          "--for must be more than 0",
          "policy",
          "apply",
          "-f",
          "x.yaml",
          "--reason",
          "r",
          "--for",
          "0s");
      usage("give the business KEY or --key-hash HASH", "fallback", "show", "a:b");
      usage("BREAKERCTL_FALLBACK_SALT is not set", "fallback", "show", "a:b", "member-1");
      usage("--key-hash must be 64 hex digits", "fallback", "show", "a:b", "--key-hash", "zz");
    }
  }

  @Test
  @DisplayName("wait --timeout is the root's --timeout: the wait's deadline")
  void waitTimeout() {
    CommandLine cl = CliParseTest.cli();
    cl.parseArgs("wait", "a:b", "--for", "state=CLOSED", "--timeout", "90s");
    BreakerCtl root = cl.getCommand();
    assertThat(root.flags().timeout()).isEqualTo(Duration.ofSeconds(90));
  }

  @Test
  @DisplayName("policy validate is offline: every problem with file, document, field, value")
  void validateOffline(@TempDir Path dir) throws Exception {
    Files.writeString(
        dir.resolve("ok.yaml"),
        "apiVersion: breakerctl/v1\nkind: Policy\nmetadata:\n  id: a:b\nspec:\n"
            + "  failureThreshold: 3\n");
    Run ok = CliParseTest.execute("policy", "validate", dir.resolve("ok.yaml").toString());
    assertThat(ok.code()).as("%s", ok).isZero();
    assertThat(ok.out()).contains("ok.yaml: document 1: a:b");

    Files.writeString(
        dir.resolve("bad.yaml"),
        "apiVersion: breakerctl/v1\nkind: Policy\nmetadata:\n  id: a:c\nspec:\n"
            + "  failureThreshold: -2\n  openSeconds: soon\n");
    Run bad = CliParseTest.execute("policy", "validate", dir.toString(), "-o", "json");
    assertThat(bad.code()).as("%s", bad).isEqualTo(2);
    assertThat(bad.err())
        .contains("bad.yaml: document 1: line 6: spec.failureThreshold must be >= 1 but was -2")
        .contains("bad.yaml: document 1: line 7: spec.openSeconds");
    assertThat(bad.out()).contains("\"valid\" : false").contains("\"kind\" : \"PolicyValidation\"");
  }

  @Nested
  @DisplayName("times")
  class TimesParse {
    private final Clock clock = Clock.fixed(Instant.parse("2026-12-01T12:00:00Z"), ZoneOffset.UTC);

    @Test
    void rfc3339NowAndAgo() {
      assertThat(Times.parse("--at", "2026-12-01T10:15:30Z", clock))
          .isEqualTo(Instant.parse("2026-12-01T10:15:30Z"));
      assertThat(Times.parse("--at", "2026-12-01T11:15:30.250+01:00", clock))
          .isEqualTo(Instant.parse("2026-12-01T10:15:30.250Z"));
      assertThat(Times.parse("--at", "now", clock)).isEqualTo(clock.instant());
      assertThat(Times.parse("--since", "90m", clock))
          .isEqualTo(Instant.parse("2026-12-01T10:30:00Z"));
      assertThat(Times.parse("--since", "2d", clock))
          .isEqualTo(Instant.parse("2026-11-29T12:00:00Z"));
    }

    @Test
    void badTimesNameTheOption() {
      assertThatThrownBy(() -> Times.parse("--until", "2026-13-01T00:00:00Z", clock))
          .isInstanceOf(CliException.class)
          .hasMessageContaining("--until must be an RFC 3339 time")
          .hasMessageContaining("'2026-13-01T00:00:00Z'");
      assertThatThrownBy(() -> Times.parse("--since", "an hour", clock))
          .hasMessageContaining("--since");
    }
  }
}
