package io.breakerctl.runtime.control.timeline;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.control.BreakerPattern;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.ControlPlaneIT;
import io.breakerctl.runtime.control.ControlUnavailableException;
import io.breakerctl.runtime.control.RestartableMongo;
import io.breakerctl.runtime.control.audit.AuditLog;
import io.breakerctl.runtime.control.audit.BreakerNotes;
import io.breakerctl.runtime.control.history.HistoryForwarder;
import io.breakerctl.runtime.control.history.SyncResult;
import io.breakerctl.runtime.control.policy.ApplyOptions;
import io.breakerctl.runtime.control.policy.PolicyControl;
import io.breakerctl.runtime.control.policy.PolicyParser;
import io.breakerctl.runtime.control.replay.Replay;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.BreakerKeys;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.OverrideResult;
import io.breakerctl.runtime.store.StoreFutures;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.bson.Document;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The timeline: merged sources, stable paging, partial answers, gaps")
class TimelineIT extends ControlPlaneIT {

  private OverrideResult toggle(BreakerId id, int i) {
    OverrideKind kind = i % 2 == 0 ? OverrideKind.FORCED_OPEN : OverrideKind.CLEAR;
    return StoreFutures.await(
        redis.override(
            id,
            new OverrideRequest(kind, "alice", "step " + i, Duration.ZERO, "c-" + id + "-" + i)));
  }

  private static TimelineQuery all(String pattern, int limit) {
    return TimelineQuery.builder(BreakerPattern.of(pattern)).limit(limit).build();
  }

  @Test
  @DisplayName("pages neither skip nor repeat while the forwarder moves the tail into MongoDB")
  void stablePages() {
    List<BreakerId> ids =
        List.of(BreakerId.parse("tl:a"), BreakerId.parse("tl:b"), BreakerId.parse("tl:c"));
    new PolicyControl(db, redis, clock)
        .applyAll(
            PolicyParser.parse(
                "tl.yaml",
                "apiVersion: breakerctl/v1\nkind: Policy\nmetadata:\n  id: 'tl:*'\nspec:\n  failureThreshold: 3\n"),
            ApplyOptions.by("bob", "tighten"));
    BreakerNotes notes = new BreakerNotes(db, clock);
    for (int i = 0; i < 10; i++) {
      for (BreakerId id : ids) {
        toggle(id, i);
      }
      if (i == 4) {
        notes.add(ids.get(0), "carol", "member-service p99 at 4 s");
      }
    }
    Timeline timeline = new Timeline(db, redis);
    HistoryForwarder forwarder = new HistoryForwarder(db, redis, "fwd", clock);

    List<TimelineEntry> paged = new ArrayList<>();
    TimelinePage page = timeline.page(all("tl:*", 4));
    int forwarded = 0;
    while (true) {
      assertThat(page.partial()).isFalse();
      paged.addAll(page.entries());
      // the forwarder writes between pages: one breaker's tail moves to MongoDB each time
      forwarder.syncBreaker(ids.get(forwarded++ % ids.size()));
      if (!page.more()) {
        break;
      }
      page = timeline.page(all("tl:*", 4).after(page.cursor().orElseThrow()));
    }

    List<TimelineEntry> whole = timeline.page(all("tl:*", 1000)).entries();
    assertThat(paged).extracting(TimelineEntry::id).doesNotHaveDuplicates();
    assertThat(paged)
        .extracting(TimelineEntry::id)
        .containsExactlyElementsOf(whole.stream().map(TimelineEntry::id).toList());
    assertThat(whole).filteredOn(e -> e.kind() == TimelineKind.TRANSITION).hasSize(30);
    assertThat(whole)
        .filteredOn(e -> e.kind() == TimelineKind.NOTE)
        .singleElement()
        .satisfies(n -> assertThat(n.actor()).isEqualTo("carol"));
    assertThat(whole)
        .filteredOn(e -> e.kind() == TimelineKind.POLICY_VERSION)
        .singleElement()
        .satisfies(v -> assertThat(v.policyVersion()).isEqualTo(1));
    assertThat(whole)
        .filteredOn(e -> e.kind() == TimelineKind.AUDIT)
        .extracting(TimelineEntry::cause)
        .containsExactly("APPLY");
    assertThat(paged).filteredOn(e -> e.source() == TimelineSource.REDIS).isNotEmpty();
    assertThat(whole).allMatch(e -> e.source() == TimelineSource.MONGODB);
    for (int i = 1; i < whole.size(); i++) {
      assertThat(whole.get(i).key()).isGreaterThan(whole.get(i - 1).key());
    }
    TimelineEntry first =
        whole.stream().filter(e -> e.kind() == TimelineKind.TRANSITION).findFirst().orElseThrow();
    assertThat(first.from()).contains(State.CLOSED);
    assertThat(first.to()).contains(State.FORCED_OPEN);
    assertThat(first.cause()).isEqualTo("OVERRIDE_SET");
    assertThat(first.actor()).isEqualTo("alice");
    assertThat(first.reason()).isEqualTo("step 0");
    assertThat(first.correlationId()).startsWith("c-tl:");
    assertThat(first.epoch()).isNotEmpty();

    // filters: one breaker, one state, one kind, one actor
    assertThat(
            timeline
                .page(
                    TimelineQuery.builder(BreakerPattern.of(ids.get(1)))
                        .state(State.FORCED_OPEN)
                        .build())
                .entries())
        .hasSize(5)
        .allMatch(e -> e.target().equals("tl:b"));
    assertThat(
            timeline
                .page(
                    TimelineQuery.builder(BreakerPattern.of("tl:*"))
                        .kind(TimelineKind.NOTE)
                        .build())
                .entries())
        .hasSize(1);
    assertThat(
            timeline
                .page(TimelineQuery.builder(BreakerPattern.of("tl:*")).actor("bob").build())
                .entries())
        .extracting(TimelineEntry::kind)
        .containsExactlyInAnyOrder(TimelineKind.POLICY_VERSION, TimelineKind.AUDIT);
  }

  @Test
  @DisplayName(
      "with MongoDB down the page comes from Redis alone, with Redis down from MongoDB alone; both partial")
  void partialAnswers() {
    BreakerId id = BreakerId.parse("tl:partial");
    try (RestartableMongo down = new RestartableMongo();
        ControlDatabase local =
            ControlDatabase.connect(down.config("partial", Duration.ofMillis(500)))) {
      for (int i = 0; i < 4; i++) {
        toggle(id, i);
      }
      assertThat(new HistoryForwarder(local, redis, "fwd", clock).syncOnce().events()).isEqualTo(4);
      toggle(id, 4); // not forwarded

      TimelinePage both = new Timeline(local, redis).page(all("tl:*", 100));
      assertThat(both.partial()).isFalse();
      assertThat(both.entries()).hasSize(5);
      assertThat(both.entries()).filteredOn(e -> e.source() == TimelineSource.MONGODB).hasSize(4);

      down.stop();
      TimelinePage redisOnly = new Timeline(local, redis).page(all("tl:*", 100));
      assertThat(redisOnly.partial()).isTrue();
      assertThat(redisOnly.problems()).singleElement().asString().contains("MongoDB unavailable");
      assertThat(redisOnly.entries())
          .extracting(TimelineEntry::id)
          .containsExactlyElementsOf(both.entries().stream().map(TimelineEntry::id).toList());
      assertThat(redisOnly.entries()).allMatch(e -> e.source() == TimelineSource.REDIS);
      down.start();
      // the client finds the restarted MongoDB on its own (a pooled connection to the stopped one
      // fails first): wait until it answers, so the next page is about Redis being down only (a
      // busy-core run read both as down)
      Poll.until(Duration.ofSeconds(30), "MongoDB answers again", () -> answers(local));

      REDIS.server().kill();
      try {
        TimelinePage mongoOnly = new Timeline(local, redis).page(all("tl:*", 100));
        assertThat(mongoOnly.partial()).isTrue();
        assertThat(mongoOnly.problems()).singleElement().asString().contains("Redis unavailable");
        assertThat(mongoOnly.entries())
            .hasSize(4)
            .allMatch(e -> e.source() == TimelineSource.MONGODB);
      } finally {
        REDIS.server().restart();
      }
    }
  }

  @Test
  @DisplayName(
      "a malformed stream entry: MALFORMED from Redis and MongoDB, forwarded marked, never replayed")
  void malformedEntry() {
    BreakerId id = BreakerId.parse("tl:malformed");
    BreakerId other = BreakerId.parse("tl:well-formed");
    toggle(id, 0);
    toggle(other, 0);
    // an entry the scripts did not write (a hand XADD), between two transitions
    String stream = BreakerKeys.withPrefix(BreakerKeys.DEFAULT_PREFIX).events(id);
    Object malformed =
        REDIS
            .server()
            .call(
                "XADD",
                stream,
                "*",
                "from",
                "FORCED_OPEN",
                "to",
                "BOGUS",
                "cause",
                "OVERRIDE_SET",
                "at",
                "yesterday");
    toggle(id, 1);

    Timeline timeline = new Timeline(db, redis);
    TimelinePage fromRedis = timeline.page(all("tl:*", 100));
    assertThat(fromRedis.partial()).isFalse();
    assertThat(fromRedis.entries()).hasSize(4);
    TimelineEntry bad =
        fromRedis.entries().stream().filter(TimelineEntry::malformed).findFirst().orElseThrow();
    assertThat(bad.cause()).isEqualTo("MALFORMED");
    assertThat(bad.from()).isEmpty();
    assertThat(bad.to()).isEmpty();
    assertThat(bad.counts())
        .containsEntry("to", "BOGUS")
        .containsEntry("at", "yesterday")
        .containsEntry("problem", "to=BOGUS is not a state; at=yesterday is not a time in ms");
    assertThat(bad.at()).isBetween(Instant.now().minusSeconds(60), Instant.now());
    assertThat(fromRedis.entries()).filteredOn(e -> !e.malformed()).hasSize(3);

    // the forwarder moves it on (the stream is not stuck behind it), marked, with no audit
    SyncResult sync = new HistoryForwarder(db, redis, "fwd", clock).syncOnce();
    assertThat(sync.events()).isEqualTo(4);
    Document stored = db.collection(ControlDatabase.HISTORY).find(eq("to", "BOGUS")).first();
    assertThat(stored).isNotNull();
    assertThat(stored.getString("malformed")).contains("to=BOGUS is not a state");
    assertThat(new AuditLog(db).forTarget(id.toString())).hasSize(2);

    TimelinePage fromMongo = timeline.page(all("tl:*", 100));
    assertThat(fromMongo.entries()).allMatch(e -> e.source() == TimelineSource.MONGODB);
    assertThat(fromMongo.entries()).filteredOn(TimelineEntry::malformed).hasSize(1);
    assertThat(fromMongo.entries())
        .extracting(TimelineEntry::id)
        .containsExactlyElementsOf(fromRedis.entries().stream().map(TimelineEntry::id).toList());

    List<String> replayed = new ArrayList<>();
    // every step replay takes, through its public frames (a range holding them all)
    new Replay(db, redis)
        .frames(
            Instant.EPOCH,
            Instant.now().plusSeconds(60),
            BreakerPattern.of("tl:*"),
            frame -> replayed.add(frame.transition().key()));
    assertThat(replayed).hasSize(3).doesNotContain(bad.id());
    // the server's event audit at its close holds every entry to the transition table: this one
    // was put there on purpose (the forwarder may have trimmed it already)
    REDIS.server().call("XDEL", stream, String.valueOf(malformed));
  }

  @Test
  @DisplayName(
      "events a stream's cap dropped before forwarding show as a gap entry (breaker, epoch, count)")
  void gapEntry() {
    BreakerId id = BreakerId.parse("tl:capped");
    int total = 10_012; // the cap is 10,000 events
    String epoch = "";
    for (int start = 0; start < total; start += 500) {
      List<CompletableFuture<OverrideResult>> batch = new ArrayList<>();
      for (int i = start; i < Math.min(total, start + 500); i++) {
        OverrideKind kind = i % 2 == 0 ? OverrideKind.FORCED_OPEN : OverrideKind.CLEAR;
        batch.add(redis.override(id, new OverrideRequest(kind, "load", "cap", Duration.ZERO, "")));
      }
      for (CompletableFuture<OverrideResult> f : batch) {
        epoch = StoreFutures.await(f).epoch();
      }
    }
    String e = epoch;

    TimelinePage fromRedis =
        new Timeline(null, redis)
            .page(TimelineQuery.builder(BreakerPattern.of(id)).kind(TimelineKind.GAP).build());
    assertThat(fromRedis.partial()).isTrue();
    assertThat(fromRedis.entries())
        .singleElement()
        .satisfies(
            g -> {
              assertThat(g.epoch()).isEqualTo(e);
              assertThat(g.counts()).containsEntry("dropped", "12");
            });

    SyncResult sync = new HistoryForwarder(db, redis, "fwd", clock).syncOnce();
    assertThat(sync.failures()).isEmpty();
    assertThat(sync.events()).isEqualTo(10_000);
    TimelinePage fromMongo =
        new Timeline(db, null)
            .page(TimelineQuery.builder(BreakerPattern.of("tl:*")).kind(TimelineKind.GAP).build());
    assertThat(fromMongo.entries())
        .singleElement()
        .satisfies(
            g -> {
              assertThat(g.id()).isEqualTo("gap|tl:capped|" + e);
              assertThat(g.counts()).containsEntry("dropped", "12");
              assertThat(g.source()).isEqualTo(TimelineSource.MONGODB);
            });
    assertThat(new HashSet<>(List.of(fromRedis.entries().get(0).id())))
        .contains(fromMongo.entries().get(0).id());
  }

  private static boolean answers(ControlDatabase db) {
    try {
      db.probe();
      return true;
    } catch (ControlUnavailableException e) {
      return false;
    }
  }
}
