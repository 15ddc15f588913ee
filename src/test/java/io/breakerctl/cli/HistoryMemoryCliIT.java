package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.HistoryDestinationIT;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.StoreFutures;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Memory that is said (issue 41, item 3): with a control plane whose forwarder is stopped, {@code
 * describe}, {@code status} and {@code doctor} say where the history goes and what holds the keys,
 * doctor fails while events wait with no forwarder holding the lease, and the events given up when
 * the hold ends are counted in describe and doctor.
 */
@DisplayName("describe, status and doctor say where history goes and what holds the keys")
class HistoryMemoryCliIT {
  @TempDir Path home;
  private CliServers servers;

  @BeforeEach
  void start() {
    servers = CliServers.start(home);
  }

  @AfterEach
  void stop() {
    servers.close();
  }

  private CliProcess.Result cli(String... args) {
    return servers.cli.inProcess(args);
  }

  @Test
  @DisplayName(
      "a stopped forwarder: waiting events shown with their age, doctor fails without a lease,"
          + " the events given up after the hold are counted")
  void stoppedForwarder() {
    BreakerId held = BreakerId.parse("memory-held:dep");
    BreakerId none = BreakerId.parse("memory-none:dep");
    Duration hold = Duration.ofSeconds(4);
    try (RedisFleetStore plain =
            RedisFleetStore.connect(
                StoreConfig.builder()
                    .uri(servers.redis.uri())
                    .idleTtl(Duration.ofMinutes(5))
                    .build());
        RedisFleetStore forwarding =
            RedisFleetStore.connect(
                    StoreConfig.builder()
                        .uri(servers.redis.uri())
                        .idleTtl(Duration.ofMinutes(5))
                        .build())
                .forwardsHistory(hold)) {
      HistoryDestinationIT.tripAndClose(plain, none);
      for (int i = 0; i < 3; i++) {
        HistoryDestinationIT.tripAndClose(forwarding, held);
      }

      CliProcess.Result waiting = cli("describe", held.toString());
      assertThat(waiting.code()).as(waiting.toString()).isZero();
      assertThat(waiting.out())
          .contains("History:       waiting for the forwarder: 9 events since")
          .contains("Stream:        9 events")
          .contains("Keys held:     UNFORWARDED since");
      CliProcess.Result notKept = cli("describe", none.toString(), "-o", "json");
      assertThat(notKept.out())
          .contains("\"destination\" : \"not-kept\"")
          .contains("\"streamLength\" : 3")
          .contains("\"held\" : null");

      CliProcess.Result wide = cli("status", "-o", "wide");
      assertThat(wide.code()).as(wide.toString()).isZero();
      assertThat(wide.out())
          .containsPattern("memory-held:dep .* waiting 9 \\S+ +UNFORWARDED")
          .containsPattern("memory-none:dep .* not-kept +-")
          .contains("History: 0 forwarded, 1 not kept, 1 waiting (9 events, oldest")
          .contains("streams 12 events; keys held: 1 UNFORWARDED");

      Poll.until(
          Duration.ofSeconds(10),
          "doctor fails: events wait past the grace, no forwarder holds the lease",
          () -> {
            CliProcess.Result d = cli("doctor", "--forwarder-grace", "1s");
            return d.code() == 1
                && d.out().matches("(?s).*fail +history +.*no history forwarder holds the lease.*");
          });
      StoreFutures.await(forwarding.holdForwarderLease("fw-node", Duration.ofMinutes(1)));
      CliProcess.Result leased = cli("doctor", "--forwarder-grace", "1s");
      assertThat(leased.out())
          .containsPattern("warn +history +.*although fw-node holds the forwarder lease");

      long heldUntil =
          Long.parseLong(
              String.valueOf(servers.redis.call("HGET", "cb:{" + held + "}", "heldUntil")));
      Poll.until(
          Duration.ofSeconds(30),
          "the hold ends",
          () -> {
            List<?> t = (List<?>) servers.redis.call("TIME");
            return Long.parseLong(t.get(0).toString()) * 1000 > heldUntil;
          });
      CliProcess.Result expiring = cli("describe", held.toString());
      assertThat(expiring.out()).contains("History:       waiting past the hold: 9 events");
      StoreFutures.await(
          forwarding.record(held, Outcome.successes("n1", 1), Policy.DEFAULT)); // the next write
    }

    CliProcess.Result described = cli("describe", held.toString());
    assertThat(described.out())
        .contains("History:       forwarded to the control plane")
        .contains("Expired unforwarded: 9 events (given up when their hold ended, last")
        .contains("Keys held:     no (they expire after the idle TTL without use)");
    CliProcess.Result doctor = cli("doctor");
    assertThat(doctor.code()).as(doctor.toString()).isZero();
    assertThat(doctor.out())
        .containsPattern("warn +history +1 forwarded, 1 not kept, 0 waiting; .*")
        .contains("expired unforwarded: 9 events of 1 breaker(s)");
    CliProcess.Result status = cli("status");
    assertThat(status.err()).contains("warning: 9 event(s) of 1 breaker(s) expired unforwarded");

    // the forwarder, back: the events given up are a gap in the breaker's timeline
    CliProcess.Result sync = cli("history", "sync");
    assertThat(sync.code()).as(sync.toString()).isZero();
    CliProcess.Result timeline = cli("history", held.toString(), "-o", "json");
    assertThat(timeline.code()).as(timeline.toString()).isZero();
    assertThat(timeline.out()).contains("\"GAP\"").contains("\"dropped\" : \"9\"");
  }
}
