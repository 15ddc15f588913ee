package io.breakerctl.runtime.control.replay;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.model.Filters;
import io.breakerctl.runtime.control.BreakerPattern;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.ControlPlaneIT;
import io.breakerctl.runtime.control.history.HistoryForwarder;
import io.breakerctl.runtime.control.history.SyncResult;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.runtime.store.AcquireResult;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.StoreFutures;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bson.Document;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Replay: stateAt and frames from history; identities never collide")
class ReplayIT extends ControlPlaneIT {

  final Policy policy =
      Policy.builder()
          .failureThreshold(2)
          .open(Duration.ofMillis(300))
          .maxOpen(Duration.ofSeconds(5))
          .build();

  /** What {@code status} read: the Redis time of the read and the state it showed. */
  private record Read(long at, State state) {}

  private Read read(BreakerId id) {
    BreakerSnapshot s = StoreFutures.await(redis.snapshot(id, 0));
    Read r = new Read(s.redisTimeMillis(), s.effectiveState());
    settle(r.at());
    return r;
  }

  /** Waits until Redis time is past {@code at}, so the next action lands in a later millisecond. */
  private void settle(long at) {
    BreakerId any = BreakerId.parse("clock:probe");
    Poll.until(
        Duration.ofSeconds(2),
        "Redis time past " + at,
        () -> StoreFutures.await(redis.redisTimeMillis(any)) > at + 1);
  }

  private void waitUntilRedisTime(long at) {
    settle(at);
  }

  private void fail(BreakerId id, int n) {
    for (int i = 0; i < n; i++) {
      StoreFutures.await(redis.record(id, Outcome.failure("n1", ""), policy));
    }
    settle(StoreFutures.await(redis.redisTimeMillis(id)));
  }

  private void force(BreakerId id, OverrideKind kind, Duration d) {
    StoreFutures.await(
        redis.override(id, new OverrideRequest(kind, "alice", "drill", d, "corr-" + kind + d)));
    settle(StoreFutures.await(redis.redisTimeMillis(id)));
  }

  private void probe(BreakerId id, boolean ok) {
    AcquireResult a = StoreFutures.await(redis.acquire(id, "n1", policy));
    assertThat(a.lease()).as("a probe lease in %s", a.state()).isPresent();
    StoreFutures.await(
        redis.record(id, Outcome.probe("n1", a.generation(), a.leaseId(), ok), policy));
    settle(StoreFutures.await(redis.redisTimeMillis(id)));
  }

  @Test
  @DisplayName(
      "stateAt at 10 instants equals what the status read returned, with an expired override and"
          + " an ended window among them")
  void stateAtEqualsStatus() {
    BreakerId id = BreakerId.parse("replay:dep");
    List<Read> reads = new ArrayList<>();
    StoreFutures.await(redis.record(id, Outcome.successes("n1", 1), policy));
    settle(StoreFutures.await(redis.redisTimeMillis(id)));
    reads.add(read(id)); // CLOSED: keys created by counting, no transition yet
    fail(id, 2);
    reads.add(read(id)); // OPEN
    waitUntilRedisTime(StoreFutures.await(redis.snapshot(id, 0)).number("openUntil"));
    reads.add(read(id)); // HALF_OPEN computed: the window ended, no script ran
    force(id, OverrideKind.FORCED_OPEN, Duration.ofMillis(300));
    reads.add(read(id)); // FORCED_OPEN
    waitUntilRedisTime(StoreFutures.await(redis.snapshot(id, 0)).number("overrideUntil"));
    reads.add(read(id)); // the override expired without a script running
    probe(id, false);
    reads.add(read(id)); // OPEN again, window doubled
    force(id, OverrideKind.DISABLED, Duration.ZERO);
    reads.add(read(id)); // DISABLED
    force(id, OverrideKind.CLEAR, Duration.ZERO);
    reads.add(read(id)); // back to the machine state
    waitUntilRedisTime(StoreFutures.await(redis.snapshot(id, 0)).number("openUntil"));
    reads.add(read(id)); // HALF_OPEN computed
    probe(id, true);
    reads.add(read(id)); // CLOSED
    assertThat(reads).hasSize(10);
    assertThat(reads)
        .extracting(Read::state)
        .contains(State.CLOSED, State.OPEN, State.HALF_OPEN, State.FORCED_OPEN, State.DISABLED);

    SyncResult sync = new HistoryForwarder(db, redis, "fwd", clock).syncOnce();
    assertThat(sync.failures()).isEmpty();

    Replay fromMongo = new Replay(db, null);
    Replay merged = new Replay(db, redis);
    for (Read r : reads) {
      Map<BreakerId, ReplayState> at =
          fromMongo.stateAt(Instant.ofEpochMilli(r.at()), BreakerPattern.of("replay:*"));
      assertThat(at.get(id).state()).as("stateAt %s (MongoDB)", r.at()).isEqualTo(r.state());
      assertThat(
              merged.stateAt(Instant.ofEpochMilli(r.at()), BreakerPattern.of(id)).get(id).state())
          .as("stateAt %s (MongoDB + Redis tail)", r.at())
          .isEqualTo(r.state());
    }
    // before the keys existed nothing is known
    assertThat(
            fromMongo.stateAt(Instant.ofEpochMilli(reads.get(0).at() - 60_000), BreakerPattern.ALL))
        .doesNotContainKey(id);
  }

  @Test
  @DisplayName("stateAt from the unforwarded Redis tail alone when nothing was forwarded yet")
  void stateAtFromTheTail() {
    BreakerId id = BreakerId.parse("tail:dep");
    force(id, OverrideKind.FORCED_OPEN, Duration.ZERO);
    Read r = read(id);

    assertThat(new Replay(db, null).stateAt(Instant.ofEpochMilli(r.at()), BreakerPattern.ALL))
        .isEmpty();
    assertThat(
            new Replay(db, redis)
                .stateAt(Instant.ofEpochMilli(r.at()), BreakerPattern.ALL)
                .get(id)
                .state())
        .isEqualTo(State.FORCED_OPEN);
  }

  @Test
  @DisplayName("frames: one per transition in the range, in order, with the fleet's state after it")
  void frames() {
    BreakerId a = BreakerId.parse("frames:a");
    BreakerId b = BreakerId.parse("frames:b");
    long start = StoreFutures.await(redis.redisTimeMillis(a));
    settle(start);
    fail(a, 2);
    force(b, OverrideKind.FORCED_CLOSED, Duration.ZERO);
    force(a, OverrideKind.FORCED_OPEN, Duration.ZERO);
    force(b, OverrideKind.CLEAR, Duration.ZERO);
    long end = StoreFutures.await(redis.redisTimeMillis(a));
    new HistoryForwarder(db, redis, "fwd", clock).syncOnce();

    List<ReplayFrame> frames = new ArrayList<>();
    new Replay(db, redis)
        .frames(
            Instant.ofEpochMilli(start),
            Instant.ofEpochMilli(end),
            BreakerPattern.of("frames:*"),
            frames::add);

    assertThat(frames).extracting(f -> f.breaker().id()).containsExactly(a, b, a, b);
    assertThat(frames)
        .extracting(f -> f.breaker().state())
        .containsExactly(State.OPEN, State.FORCED_CLOSED, State.FORCED_OPEN, State.CLOSED);
    assertThat(frames.get(1).fleet())
        .containsEntry(a, State.OPEN)
        .containsEntry(b, State.FORCED_CLOSED);
    assertThat(frames.get(3).fleet())
        .containsEntry(a, State.FORCED_OPEN)
        .containsEntry(b, State.CLOSED);
    for (int i = 1; i < frames.size(); i++) {
      assertThat(frames.get(i).at()).isAfterOrEqualTo(frames.get(i - 1).at());
    }
    Set<String> refs = new HashSet<>();
    frames.forEach(f -> refs.add(f.transition().key()));
    assertThat(refs).hasSize(4);
    for (String key : refs) {
      assertThat(db.collection(ControlDatabase.HISTORY).countDocuments(Filters.eq("_id", key)))
          .isEqualTo(1);
    }
  }

  private String forceOpen(BreakerId id) {
    return StoreFutures.await(
            redis.override(
                id,
                new OverrideRequest(OverrideKind.FORCED_OPEN, "op", "drill", Duration.ZERO, "")))
        .epoch();
  }

  @Test
  @DisplayName(
      "two breakers transitioning in the same millisecond and a breaker re-created after FLUSHALL"
          + " never collide in history")
  void identitiesNeverCollide() {
    List<BreakerId> pair = List.of(BreakerId.parse("same:a"), BreakerId.parse("same:b"));
    String[] events = new String[2];
    long[] ats = new long[2];
    boolean same = false;
    for (int attempt = 0; attempt < 200 && !same; attempt++) {
      OverrideKind kind = attempt % 2 == 0 ? OverrideKind.FORCED_OPEN : OverrideKind.CLEAR;
      var fa =
          redis.override(pair.get(0), new OverrideRequest(kind, "op", "drill", Duration.ZERO, ""));
      var fb =
          redis.override(pair.get(1), new OverrideRequest(kind, "op", "drill", Duration.ZERO, ""));
      events[0] = StoreFutures.await(fa).eventId();
      events[1] = StoreFutures.await(fb).eventId();
      ats[0] = Long.parseLong(events[0].split("-")[0]);
      ats[1] = Long.parseLong(events[1].split("-")[0]);
      same = ats[0] == ats[1];
    }
    assertThat(same).as("two transitions landed in one millisecond").isTrue();
    assertThat(events[0]).as("stream ids may even be equal across breakers").isNotNull();

    BreakerId reborn = BreakerId.parse("reborn:dep");
    String first = forceOpen(reborn);
    new HistoryForwarder(db, redis, "fwd", clock).syncOnce();
    REDIS.server().flushAll();
    String second = forceOpen(reborn);
    SyncResult sync = new HistoryForwarder(db, redis, "fwd", clock).syncOnce();
    assertThat(sync.failures()).isEmpty();

    assertThat(second).isNotEqualTo(first);
    List<Document> rebornDocs = new ArrayList<>();
    db.collection(ControlDatabase.HISTORY)
        .find(Filters.eq("breakerId", reborn.toString()))
        .into(rebornDocs);
    assertThat(rebornDocs)
        .extracting(d -> d.getString("epoch"))
        .containsExactlyInAnyOrder(first, second);
    // by stream id: the event's `at` is the script's TIME, which on 6.2 may lie a millisecond
    // before the id XADD gives it
    for (int i = 0; i < pair.size(); i++) {
      Document d =
          db.collection(ControlDatabase.HISTORY)
              .find(
                  Filters.and(
                      Filters.eq("breakerId", pair.get(i).toString()),
                      Filters.eq("streamId", events[i])))
              .first();
      assertThat(d).as("%s's transition %s", pair.get(i), events[i]).isNotNull();
    }
    long total = db.collection(ControlDatabase.HISTORY).countDocuments();
    Set<String> keys = new HashSet<>();
    db.collection(ControlDatabase.HISTORY)
        .find()
        .forEach(
            d ->
                keys.add(
                    d.getString("breakerId")
                        + "|"
                        + d.getString("epoch")
                        + "|"
                        + d.getString("streamId")));
    assertThat(keys).hasSize((int) total);
  }
}
