package io.breakerctl.runtime.control.history;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.model.Filters;
import io.breakerctl.runtime.control.BreakerPattern;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.ControlPlaneIT;
import io.breakerctl.runtime.control.audit.BreakerNotes;
import io.breakerctl.runtime.control.fallback.BusinessKeys;
import io.breakerctl.runtime.control.fallback.DeferredRequests;
import io.breakerctl.runtime.control.fallback.FallbackSnapshots;
import io.breakerctl.runtime.control.fallback.PayloadKeys;
import io.breakerctl.runtime.control.replay.Replay;
import io.breakerctl.runtime.control.replay.ReplayState;
import io.breakerctl.runtime.fallback.SnapshotApproval;
import io.breakerctl.runtime.fallback.SnapshotRead;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Retention: bounded batches, each breaker's newest transition kept")
class RetentionIT extends ControlPlaneIT {

  final List<BreakerId> ids =
      List.of(BreakerId.parse("ret:a"), BreakerId.parse("ret:b"), BreakerId.parse("ret:c"));

  /** Five transitions per breaker (the last one FORCED_OPEN), two notes, forwarded. */
  private Map<BreakerId, String> history(long expectedTotal) {
    Map<BreakerId, String> newest = new HashMap<>();
    for (int i = 0; i < 5; i++) {
      OverrideKind kind = i % 2 == 0 ? OverrideKind.FORCED_OPEN : OverrideKind.CLEAR;
      for (BreakerId id : ids) {
        var r =
            StoreFutures.await(
                redis.override(id, new OverrideRequest(kind, "op", "r" + i, Duration.ZERO, "")));
        newest.put(id, id + "|" + r.epoch() + "|" + r.eventId());
      }
    }
    BreakerNotes notes = new BreakerNotes(db, clock);
    notes.add(ids.get(0), "alice", "first");
    notes.add(ids.get(1), "bob", "second");
    assertThat(new HistoryForwarder(db, redis, "fwd", clock).syncOnce().failures()).isEmpty();
    assertThat(db.collection(ControlDatabase.HISTORY).countDocuments()).isEqualTo(expectedTotal);
    return newest;
  }

  @Test
  @DisplayName(
      "prune removes snapshots expired or revoked before the cut-off and finished deferred requests"
          + " (counted), keeping servable snapshots and pending requests")
  void pruneSnapshotsAndDeferred() {
    java.time.Instant now = java.time.Instant.now();
    java.time.Clock past =
        java.time.Clock.fixed(now.minus(Duration.ofDays(100)), java.time.ZoneOffset.UTC);
    BusinessKeys salt = new BusinessKeys("retention-it-salt-0001");
    FallbackSnapshots old = new FallbackSnapshots(db, salt, PayloadKeys.none(), past);
    FallbackSnapshots fresh =
        new FallbackSnapshots(db, salt, PayloadKeys.none(), java.time.Clock.systemUTC());
    BreakerId id = ids.get(0);
    byte[] v = "v".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    for (int i = 0; i < 12; i++) { // expired 100 days ago
      old.capture(id, "expired-" + i, v, "src", Duration.ofHours(1), SnapshotApproval.AUTOMATIC);
    }
    for (int i = 0; i < 3; i++) { // revoked, captured 100 days ago, valid for a year
      old.capture(id, "revoked-" + i, v, "src", Duration.ofDays(365), SnapshotApproval.AUTOMATIC);
      old.revoke(id, "revoked-" + i, "alice", "wrong");
    }
    fresh.capture(id, "servable", v, "src", Duration.ofHours(1), SnapshotApproval.AUTOMATIC);
    old.capture(id, "long-lived", v, "src", Duration.ofDays(365), SnapshotApproval.AUTOMATIC);
    DeferredRequests oldQueue = new DeferredRequests(db, PayloadKeys.none(), past);
    String done = oldQueue.defer(id, v);
    oldQueue.attempt(done, true, "ok", 3);
    String quarantined = oldQueue.defer(id, v);
    oldQueue.quarantine(quarantined, "test");
    String pending = oldQueue.defer(id, v);
    DeferredRequests freshQueue =
        new DeferredRequests(db, PayloadKeys.none(), java.time.Clock.systemUTC());
    String recent = freshQueue.defer(id, v);
    freshQueue.attempt(recent, true, "ok", 3);

    HistoryRetention.Pruned p =
        new HistoryRetention(db, 5).prune(now.minus(HistoryRetention.DEFAULT_MAX_AGE));

    assertThat(p.snapshots()).isEqualTo(15);
    assertThat(p.deferred()).isEqualTo(2);
    assertThat(p.done()).isTrue();
    assertThat(db.collection(ControlDatabase.SNAPSHOTS).countDocuments()).isEqualTo(2);
    assertThat(fresh.serve(id, "servable").outcome()).isEqualTo(SnapshotRead.Outcome.SERVED);
    assertThat(
            db.collection(ControlDatabase.DEFERRED)
                .find()
                .map(d -> d.getString("_id"))
                .into(new java.util.ArrayList<>()))
        .containsExactlyInAnyOrder(pending, recent);
  }

  @Test
  @DisplayName("prune(before) removes old history, audit and notes in batches, keeping each newest")
  void pruneBefore() {
    Map<BreakerId, String> newest = history(15);
    Instant later = Instant.now().plusSeconds(60);
    Map<BreakerId, ReplayState> before =
        new Replay(db, null).stateAt(later, BreakerPattern.of("ret:*"));
    HistoryRetention retention = new HistoryRetention(db, 2);

    HistoryRetention.Pruned one = retention.pruneBatch(later);
    assertThat(one.history()).isEqualTo(2);
    assertThat(one.notes()).isEqualTo(2);
    assertThat(one.done()).isFalse();
    assertThat(db.collection(ControlDatabase.HISTORY).countDocuments()).isEqualTo(13);

    HistoryRetention.Pruned rest = retention.prune(later);
    assertThat(rest.done()).isTrue();
    assertThat(rest.history()).isEqualTo(10);
    for (BreakerId id : ids) {
      assertThat(
              db.collection(ControlDatabase.HISTORY)
                  .find(Filters.eq("breakerId", id.toString()))
                  .map(d -> d.getString("_id"))
                  .into(new java.util.ArrayList<>()))
          .as("%s keeps its newest transition", id)
          .containsExactly(newest.get(id));
    }
    assertThat(db.collection(ControlDatabase.AUDIT).countDocuments()).isZero();
    assertThat(db.collection(ControlDatabase.NOTES).countDocuments()).isZero();
    Map<BreakerId, ReplayState> after =
        new Replay(db, null).stateAt(later, BreakerPattern.of("ret:*"));
    assertThat(after).hasSize(3);
    for (BreakerId id : ids) {
      assertThat(after.get(id).state())
          .isEqualTo(before.get(id).state())
          .isEqualTo(State.FORCED_OPEN);
    }
    // nothing older than an earlier cut-off: nothing removed
    assertThat(retention.prune(Instant.now().minus(Duration.ofDays(1))).history()).isZero();
  }

  @Test
  @DisplayName("the forwarder prunes what is older than its retention (90 days by default)")
  void forwarderPrunes() {
    history(15);
    MutableClock in91Days = new MutableClock(Instant.now().plus(Duration.ofDays(91)));
    MutableClock in89Days = new MutableClock(Instant.now().plus(Duration.ofDays(89)));

    new HistoryForwarder(db, redis, "fwd", in89Days).syncOnce();
    assertThat(db.collection(ControlDatabase.HISTORY).countDocuments()).isEqualTo(15);

    SyncResult sync = new HistoryForwarder(db, redis, "fwd", in91Days).syncOnce();
    assertThat(sync.failures()).isEmpty();
    assertThat(db.collection(ControlDatabase.HISTORY).countDocuments()).isEqualTo(3);
    assertThat(db.collection(ControlDatabase.NOTES).countDocuments()).isZero();

    history(18);
    new HistoryForwarder(db, redis, "fwd", in89Days, Duration.ofDays(88)).syncOnce();
    assertThat(db.collection(ControlDatabase.HISTORY).countDocuments()).isEqualTo(3);
  }
}
