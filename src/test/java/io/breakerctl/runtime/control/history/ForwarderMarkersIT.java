package io.breakerctl.runtime.control.history;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.Updates;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.ControlPlaneIT;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.redis.BreakerScript;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.OverrideResult;
import io.breakerctl.runtime.store.StoreFutures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The unforwarded markers the scripts keep, and a forwarder whose passes read only the breakers
 * they mark (with a full sweep first and now and then for events that carry none).
 */
@DisplayName("History forwarder: unforwarded markers")
class ForwarderMarkersIT extends ControlPlaneIT {

  private OverrideResult force(BreakerId id, OverrideKind kind) {
    return StoreFutures.await(
        redis.override(id, new OverrideRequest(kind, "op", "drill", Duration.ZERO, "")));
  }

  private List<String> markers() {
    List<String> out = new ArrayList<>();
    for (Object k : (List<?>) REDIS.server().call("KEYS", "cb:{*}:unfwd")) {
      out.add(String.valueOf(k));
    }
    out.sort(null);
    return out;
  }

  private String field(BreakerId id, String f) {
    return String.valueOf(REDIS.server().call("HGET", redis.keys().hash(id), f));
  }

  @Test
  @DisplayName("a marker exists exactly while events await; a pass visits only the marked")
  void passesFollowTheMarkers() {
    List<BreakerId> ids = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      BreakerId id = BreakerId.parse("svc" + i + ":dep");
      ids.add(id);
      OverrideResult r = force(id, OverrideKind.FORCED_OPEN);
      assertThat(REDIS.server().call("GET", redis.keys().unforwarded(id))).isEqualTo(r.eventId());
    }
    assertThat(markers()).hasSize(20);

    HistoryForwarder forwarder = new HistoryForwarder(db, redis, "fwd", clock);
    SyncResult first = forwarder.syncOnce(); // the first pass sweeps every breaker
    assertThat(first.breakers()).isEqualTo(20);
    assertThat(first.events()).isEqualTo(20);
    assertThat(markers()).isEmpty();
    assertThat(field(ids.get(0), "forwarded")).isEqualTo(field(ids.get(0), "lastEvent"));

    // when three breakers change
    for (int i : new int[] {3, 7, 11}) {
      force(ids.get(i), OverrideKind.CLEAR);
    }
    assertThat(markers())
        .containsExactly(
            redis.keys().unforwarded(ids.get(11)),
            redis.keys().unforwarded(ids.get(3)),
            redis.keys().unforwarded(ids.get(7)));

    // then the next pass visits those three only, and the one after none
    SyncResult second = forwarder.syncOnce();
    assertThat(second.failures()).isEmpty();
    assertThat(second.breakers()).isEqualTo(3);
    assertThat(second.events()).isEqualTo(3);
    assertThat(markers()).isEmpty();
    SyncResult third = forwarder.syncOnce();
    assertThat(third.breakers()).isZero();
    assertThat(third.events()).isZero();
    assertThat(db.collection(ControlDatabase.HISTORY).countDocuments()).isEqualTo(23);
  }

  @Test
  @DisplayName("an event written without a marker (an older client) is found by the full sweep")
  void unmarkedEventsReachTheFullSweep() {
    BreakerId marked = BreakerId.parse("claims:members");
    force(marked, OverrideKind.FORCED_OPEN);
    HistoryForwarder forwarder = new HistoryForwarder(db, redis, "fwd", clock);
    assertThat(forwarder.syncOnce().events()).isEqualTo(1);

    // an override through the script with the five keys a client before the marker passes
    BreakerId old = BreakerId.parse("claims:billing");
    String[] k = redis.keys().scriptKeys(old);
    REDIS
        .server()
        .call(
            "EVAL",
            BreakerScript.OVERRIDE.body(),
            "5",
            k[0],
            k[1],
            k[2],
            k[3],
            k[4],
            "op",
            "600000",
            "",
            "FORCED_OPEN",
            "old client",
            "0",
            "");
    assertThat(markers()).isEmpty();

    assertThat(forwarder.syncOnce().events()).as("a marker pass does not see it").isZero();
    SyncResult full = forwarder.syncAll();
    assertThat(full.events()).isEqualTo(1);
    assertThat(full.breakers()).isEqualTo(2);
    assertThat(new HistoryForwarder(db, redis, "fwd", clock).syncOnce().events())
        .as("nor does anything remain for a new forwarder's first (full) pass")
        .isZero();
  }

  @Test
  @DisplayName("MongoDB ahead of Redis (a forwarder stopped before its ack): the pass acks")
  void cursorAheadOfRedisIsAcked() {
    BreakerId id = BreakerId.parse("claims:members");
    OverrideResult r = force(id, OverrideKind.FORCED_OPEN);
    // the cursor document says the event is stored; Redis was never told
    db.collection(ControlDatabase.CURSORS)
        .updateOne(
            Filters.eq("_id", id + "|" + r.epoch()),
            Updates.set("lastStreamId", r.eventId()),
            new UpdateOptions().upsert(true));

    SyncResult sync = new HistoryForwarder(db, redis, "fwd", clock).syncOnce();

    assertThat(sync.failures()).isEmpty();
    assertThat(field(id, "forwarded")).isEqualTo(r.eventId());
    assertThat(markers()).isEmpty();
  }

  @Test
  @DisplayName("a marker without its breaker's keys is dropped, not read for ever")
  void strayMarkerIsDropped() {
    BreakerId id = BreakerId.parse("claims:members");
    force(id, OverrideKind.FORCED_OPEN);
    HistoryForwarder forwarder = new HistoryForwarder(db, redis, "fwd", clock);
    forwarder.syncOnce();
    REDIS.server().call("SET", redis.keys().unforwarded(BreakerId.parse("gone:away")), "1-0");

    SyncResult sync = forwarder.syncOnce();

    assertThat(sync.failures()).isEmpty();
    assertThat(sync.breakers()).isEqualTo(1);
    assertThat(markers()).isEmpty();
    assertThat(forwarder.syncOnce().breakers()).isZero();
  }

  @Test
  @DisplayName(
      "a stream evicted with events the forwarder had not stored: counted, a gap, nothing held")
  void evictedStreamLeavesACountAndAGap() {
    BreakerId id = BreakerId.parse("claims:evicted");
    OverrideResult r = force(id, OverrideKind.FORCED_OPEN);
    String stream = redis.keys().events(id);
    // a maxmemory Redis evicts the stream alone: volatile-lru takes only keys with a TTL, and the
    // forced breaker's other keys are persisted while the override lives
    long used =
        Long.parseLong(
            String.valueOf(REDIS.server().call("INFO", "memory"))
                .lines()
                .filter(l -> l.startsWith("used_memory:"))
                .findFirst()
                .orElseThrow()
                .substring("used_memory:".length())
                .trim());
    REDIS.server().call("PEXPIRE", stream, "3600000");
    try {
      REDIS.server().call("CONFIG", "SET", "maxmemory", Long.toString(used + 256 * 1024));
      REDIS.server().call("CONFIG", "SET", "maxmemory-policy", "volatile-lru");
      String value = "x".repeat(1024);
      for (int i = 0; i < 2_000 && (Long) REDIS.server().call("EXISTS", stream) == 1; i++) {
        try {
          REDIS.server().call("SET", "cache:" + i, value);
        } catch (RuntimeException e) {
          assertThat(e.getMessage()).contains("OOM");
        }
      }
    } finally {
      REDIS.server().call("CONFIG", "SET", "maxmemory", "0");
      REDIS.server().call("CONFIG", "SET", "maxmemory-policy", "noeviction");
    }
    assertThat(REDIS.server().call("EXISTS", stream)).as("the stream was evicted").isEqualTo(0L);
    assertThat(markers()).containsExactly(redis.keys().unforwarded(id));

    SyncResult sync = new HistoryForwarder(db, redis, "fwd", clock).syncOnce();

    assertThat(sync.failures()).isEmpty();
    assertThat(field(id, "eventsDropped")).as("the lost event, counted").isEqualTo("1");
    assertThat(field(id, "forwarded")).isEqualTo(r.eventId());
    assertThat(markers()).as("nothing held for events that are gone").isEmpty();
    org.bson.Document gap =
        db.collection(ControlDatabase.GAPS).find(Filters.eq("_id", id + "|" + r.epoch())).first();
    assertThat(gap).as("a gap the timeline shows").isNotNull();
    assertThat(((Number) gap.get("dropped")).longValue()).isEqualTo(1);
    assertThat(field(id, "override")).as("the override itself stays").isEqualTo("FORCED_OPEN");
  }
}
