package io.breakerctl.runtime;

import static io.breakerctl.runtime.store.StoreFutures.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.control.ControlConfig;
import io.breakerctl.runtime.internal.RegistryInternals;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.store.AcquireResult;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.RecordResult;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import io.breakerctl.testing.RedisServerProcess;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * History has a declared destination (issue 41): without a control plane a breaker keeps a bounded
 * tail and its idle keys expire; with one, a stopped forwarder holds the keys only for the history
 * hold, after which the events still unforwarded are counted and the keys expire when idle.
 */
@DisplayName("History destination: bounded tail, idle expiry, the hold bound")
public class HistoryDestinationIT {

  @RegisterExtension
  static final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);

  static final Duration IDLE = Duration.ofSeconds(2);
  static final Duration GENEROUS = Duration.ofSeconds(10);
  static final Policy FLAPPING =
      Policy.builder().failureThreshold(1).open(Duration.ofMillis(1)).build();

  @Test
  @DisplayName(
      "without a control plane: 4,000 trips and closes keep a tail of 100 events, nothing held, every key gone after the idle TTL")
  void noControlPlane() {
    BreakerId id = BreakerId.parse("expiry-none:dep");
    BreakerRegistry node =
        BreakerRegistry.builder()
            .redisUri(redis.uri())
            .nodeId("n1")
            .idleTtl(IDLE)
            .commandTimeout(GENEROUS) // the test drives the store: no 50 ms bound on a busy box
            .build();
    try {
      RedisFleetStore store = RegistryInternals.store(node);
      for (int i = 1; i <= 4000; i++) {
        tripAndClose(store, id);
        if (i % 500 == 0) {
          assertThat(xlen(id)).as("stream length after %d cycles", i).isLessThanOrEqualTo(100);
        }
      }
      Map<String, String> h = hash(id);
      assertThat(xlen(id)).isEqualTo(100);
      assertThat(h).doesNotContainKeys("eventsDropped", "history", "unfwdSince", "eventsExpired");
      assertThat(h.get("streamLength")).isEqualTo("100");
      assertThat(h.get("state")).isEqualTo("CLOSED");
      assertThat(ttls(id))
          .as("every key expires within the idle TTL; no :unfwd marker")
          .doesNotContainKey("cb:{" + id + "}:unfwd")
          .allSatisfy((k, ttl) -> assertThat(ttl).isBetween(1L, IDLE.toMillis()));
    } finally {
      node.close();
    }
    Poll.until(Duration.ofSeconds(30), "every key of the breaker gone", () -> ttls(id).isEmpty());
  }

  @Test
  @DisplayName(
      "a control plane whose forwarder is stopped (MongoDB down): unforwarded events hold the keys"
          + " for the hold, then are counted and the keys expire when idle")
  void stoppedForwarder() throws Exception {
    Duration hold = Duration.ofSeconds(4);
    BreakerId touched = BreakerId.parse("expiry-held:touched");
    BreakerId untouched = BreakerId.parse("expiry-held:untouched");
    BreakerRegistry node =
        BreakerRegistry.builder()
            .redisUri(redis.uri())
            .nodeId("n1")
            .idleTtl(IDLE)
            .commandTimeout(GENEROUS)
            .historyHold(hold)
            .controlPlane(
                ControlConfig.builder()
                    .uri("mongodb://127.0.0.1:" + closedPort())
                    .timeout(Duration.ofSeconds(1))
                    .build())
            .build();
    try {
      RedisFleetStore store = RegistryInternals.store(node);
      for (BreakerId id : List.of(touched, untouched)) {
        for (int i = 0; i < 3; i++) {
          tripAndClose(store, id);
        }
        Map<String, String> h = hash(id);
        assertThat(h)
            .as("the node declared the destination and its hold")
            .containsEntry("history", "forward")
            .containsEntry("historyHold", "4000")
            .containsEntry("unfwdCount", "9");
        long heldUntil = Long.parseLong(h.get("heldUntil"));
        assertThat(heldUntil).isGreaterThan(redisTime());
        assertThat(ttls(id))
            .as("held: every key (the marker too) lives past the hold")
            .containsKey("cb:{" + id + "}:unfwd")
            .allSatisfy((k, ttl) -> assertThat(ttl).isGreaterThan(heldUntil - redisTime()));
      }
      long heldUntil = Long.parseLong(hash(touched).get("heldUntil"));
      Poll.until(Duration.ofSeconds(30), "the hold ends", () -> redisTime() > heldUntil);

      RecordResult r = await(store.record(touched, Outcome.successes("n1", 1), FLAPPING));
      assertThat(r.state()).isEqualTo(State.CLOSED);
      Map<String, String> h = hash(touched);
      assertThat(h)
          .as("given up: counted, cursor past them, no marker, no hold")
          .containsEntry("eventsExpired", "9")
          .containsEntry("forwarded", h.get("lastEvent"))
          .doesNotContainKeys("unfwdSince", "unfwdCount", "heldUntil");
      assertThat(ttls(touched))
          .doesNotContainKey("cb:{" + touched + "}:unfwd")
          .allSatisfy((k, ttl) -> assertThat(ttl).isBetween(1L, IDLE.toMillis()));
    } finally {
      node.close();
    }
    Poll.until(
        Duration.ofSeconds(30),
        "the keys of both breakers expire (the untouched one by the expiry set while held)",
        () -> ttls(touched).isEmpty() && ttls(untouched).isEmpty());
  }

  /** A loopback port nothing listens on: MongoDB down. */
  static int closedPort() throws java.io.IOException {
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** Trips {@code id} (threshold 1) and closes it with a probe: three events. */
  public static void tripAndClose(RedisFleetStore store, BreakerId id) {
    RecordResult trip = await(store.record(id, Outcome.failure("n1", ""), FLAPPING));
    assertThat(trip.state()).isEqualTo(State.OPEN);
    AcquireResult probe = await(store.acquire(id, "n1", FLAPPING));
    for (int i = 0; !probe.allowed() && i < 1000; i++) {
      probe = await(store.acquire(id, "n1", FLAPPING)); // the 1 ms open window
    }
    assertThat(probe.reason().name()).isEqualTo("PROBE");
    RecordResult closed =
        await(
            store.record(
                id,
                Outcome.probe("n1", probe.generation(), probe.lease().orElseThrow(), true),
                FLAPPING));
    assertThat(closed.state()).isEqualTo(State.CLOSED);
  }

  static RedisServerProcess server() {
    return redis.server();
  }

  static long xlen(BreakerId id) {
    return (Long) server().call("XLEN", "cb:{" + id + "}:ev");
  }

  static long redisTime() {
    List<?> t = (List<?>) server().call("TIME");
    return Long.parseLong(t.get(0).toString()) * 1000 + Long.parseLong(t.get(1).toString()) / 1000;
  }

  @SuppressWarnings("unchecked")
  static Map<String, String> hash(BreakerId id) {
    List<Object> flat = (List<Object>) server().call("HGETALL", "cb:{" + id + "}");
    Map<String, String> out = new TreeMap<>();
    for (int i = 0; i + 1 < flat.size(); i += 2) {
      out.put(flat.get(i).toString(), flat.get(i + 1).toString());
    }
    return out;
  }

  /** Every key of the breaker with its PTTL (ms; -1 none). */
  @SuppressWarnings("unchecked")
  static Map<String, Long> ttls(BreakerId id) {
    Map<String, Long> out = new TreeMap<>();
    String cursor = "0";
    do {
      List<Object> r =
          (List<Object>)
              server().call("SCAN", cursor, "MATCH", "cb:{" + id + "}*", "COUNT", "1000");
      cursor = r.get(0).toString();
      for (Object k : (List<Object>) r.get(1)) {
        long ttl = (Long) server().call("PTTL", k.toString());
        if (ttl != -2) {
          out.put(k.toString(), ttl);
        }
      }
    } while (!cursor.equals("0"));
    return out;
  }
}
