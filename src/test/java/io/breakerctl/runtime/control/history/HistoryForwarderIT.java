package io.breakerctl.runtime.control.history;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.model.Filters;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import io.breakerctl.runtime.control.ControlConfig;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.ControlPlaneIT;
import io.breakerctl.runtime.control.TransitionRef;
import io.breakerctl.runtime.control.audit.AuditAction;
import io.breakerctl.runtime.control.audit.AuditLog;
import io.breakerctl.runtime.control.audit.AuditRecord;
import io.breakerctl.runtime.control.audit.BreakerNote;
import io.breakerctl.runtime.control.audit.BreakerNotes;
import io.breakerctl.runtime.control.override.BreakerOverrides;
import io.breakerctl.runtime.control.override.OverrideAction;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.BreakerEvent;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.StoreFutures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("History forwarder, audited overrides and notes")
class HistoryForwarderIT extends ControlPlaneIT {

  private static OverrideRequest force(OverrideKind kind, String actor, String reason) {
    return new OverrideRequest(kind, actor, reason, Duration.ofMinutes(10), "");
  }

  private BreakerSnapshot snapshot(BreakerId id) {
    return StoreFutures.await(redis.snapshot(id, 10));
  }

  @Test
  @DisplayName("MongoDB down: the override applies, its audit rides in the stream, stored later")
  void auditRidesInTheStreamWhileMongoIsDown() {
    BreakerId id = BreakerId.parse("claims:members");
    MemoryBackend backend = new MemoryBackend();
    MongoServer server = new MongoServer(backend);
    server.bind("127.0.0.1", 0);
    int port = server.getLocalAddress().getPort();
    ControlConfig config =
        ControlConfig.builder()
            .uri("mongodb://127.0.0.1:" + port)
            .database("down_test")
            // the second breaker must not wait this again: long enough that one Redis script on a
            // loaded machine never comes near it
            .timeout(Duration.ofSeconds(2))
            .build();
    MongoServer restarted = null;
    try (ControlDatabase cli = ControlDatabase.connect(config)) {
      cli.ensureIndexes();
      server.shutdownNow();

      // Given MongoDB is stopped, when the CLI forces the breaker open
      BreakerOverrides overrides = new BreakerOverrides(redis, cli, clock);
      OverrideAction action =
          overrides.apply(id, force(OverrideKind.FORCED_OPEN, "alice", "incident 42"));
      // and a second breaker in the same batch does not wait for MongoDB again
      BreakerId other = BreakerId.parse("claims:billing");
      long before = System.nanoTime();
      OverrideAction second =
          overrides.apply(other, force(OverrideKind.FORCED_OPEN, "alice", "incident 42"));
      assertThat(second.auditStored()).isFalse();
      assertThat(second.auditError()).isEqualTo(action.auditError());
      assertThat(snapshot(other).effectiveState()).isEqualTo(State.FORCED_OPEN);
      assertThat(Duration.ofNanos(System.nanoTime() - before)).isLessThan(config.timeout());

      // then the override stands in Redis and the audit was not stored yet
      assertThat(action.result().changed()).isTrue();
      assertThat(action.auditStored()).isFalse();
      assertThat(action.auditError()).contains("unavailable");
      assertThat(snapshot(id).effectiveState()).isEqualTo(State.FORCED_OPEN);
      assertThat(snapshot(id).recentEvents())
          .singleElement()
          .satisfies(e -> assertThat(e.field("correlationId")).isEqualTo(action.correlationId()));

      // when MongoDB is back on the same port and the forwarder runs
      restarted = new MongoServer(backend);
      restarted.bind("127.0.0.1", port);
      // (the CLI has exited: the forwarder is another process with its own client; it runs
      // periodically, so poll its passes with a deadline)
      ControlDatabase later =
          ControlDatabase.connect(
              ControlConfig.builder()
                  .uri(config.uri())
                  .database(config.database())
                  .timeout(Duration.ofSeconds(2))
                  .build());
      HistoryForwarder forwarder = new HistoryForwarder(later, redis, "forwarder-1", clock);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
      SyncResult sync = forwarder.syncOnce();
      while (!sync.failures().isEmpty() && System.nanoTime() < deadline) {
        sync = forwarder.syncOnce();
      }

      // then the audit is stored under the CLI's correlation id, linked to the transition
      assertThat(sync.failures()).isEmpty();
      assertThat(sync.events()).isEqualTo(2);
      assertThat(sync.audits()).isEqualTo(2);
      assertThat(new AuditLog(later).find(second.correlationId())).isPresent();
      AuditRecord a = new AuditLog(later).find(action.correlationId()).orElseThrow();
      assertThat(a.action()).isEqualTo(AuditAction.FORCE);
      assertThat(a.actor()).isEqualTo("alice");
      assertThat(a.reason()).isEqualTo("incident 42");
      assertThat(a.expiresAt()).isPresent();
      assertThat(a.before()).containsEntry("state", "CLOSED");
      assertThat(a.after()).containsEntry("state", "FORCED_OPEN");
      assertThat(a.transition())
          .contains(new TransitionRef(id, action.result().epoch(), action.result().eventId()));
      assertThat(snapshot(id).fields().get("forwarded")).isEqualTo(action.result().eventId());
      later.close();
    } finally {
      if (restarted != null) {
        restarted.shutdownNow();
      }
      server.shutdownNow();
    }
  }

  @Test
  @DisplayName(
      "racing operators with skewed clocks: the audit orders the changes as Redis applied them")
  void racingOverridesAreAuditedInTheOrderRedisAppliedThem() throws Exception {
    BreakerId id = BreakerId.parse("claims:racing");
    int operators = 8;
    int rounds = 5;
    java.util.concurrent.CyclicBarrier go = new java.util.concurrent.CyclicBarrier(operators);
    List<Thread> threads = new java.util.ArrayList<>();
    for (int t = 0; t < operators; t++) {
      int n = t;
      // each operator's machine is off by up to +-4 s: its clock must not order the audit
      java.time.Clock skewed =
          java.time.Clock.offset(java.time.Clock.systemUTC(), Duration.ofMillis((n - 4) * 1_000L));
      Thread th =
          new Thread(
              () -> {
                BreakerOverrides mine = new BreakerOverrides(redis, db, skewed);
                for (int r = 0; r < rounds; r++) {
                  try {
                    go.await(10, java.util.concurrent.TimeUnit.SECONDS);
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                  OverrideKind kind =
                      (n + r) % 2 == 0 ? OverrideKind.FORCED_OPEN : OverrideKind.FORCED_CLOSED;
                  mine.apply(id, force(kind, "op-" + n, "race " + r));
                }
              });
      th.start();
      threads.add(th);
    }
    for (Thread th : threads) {
      th.join(60_000);
    }
    List<AuditRecord> audit = new AuditLog(db).forTarget(id.toString());
    assertThat(audit).as("every change audited").isNotEmpty();
    List<BreakerEvent> events =
        StoreFutures.await(redis.eventsAfter(id, "", 1000)).stream()
            .filter(e -> !e.field("correlationId").isEmpty())
            .toList();
    // each record carries the Redis time of its own transition
    for (AuditRecord a : audit) {
      BreakerEvent e =
          events.stream()
              .filter(x -> x.field("correlationId").equals(a.correlationId()))
              .findFirst()
              .orElseThrow();
      assertThat(a.at())
          .as("audit %s", a.correlationId())
          .isEqualTo(TransitionRef.redisTime(e.streamId()).orElseThrow());
    }
    AuditRecord last =
        audit.stream()
            .max(
                java.util.Comparator.comparing(AuditRecord::at)
                    .thenComparing(a -> a.transition().map(t -> t.streamId()).orElse("")))
            .orElseThrow();
    assertThat(last.after().get("override"))
        .as("the latest audited change is the state Redis holds")
        .isEqualTo(snapshot(id).effectiveState().name());
  }

  @Test
  @DisplayName(
      "an override's audit and transition the CLI stored are not duplicated; a pass stores"
          + " nothing more")
  void forwarderIsIdempotent() {
    BreakerId id = BreakerId.parse("claims:members");
    BreakerOverrides overrides = new BreakerOverrides(redis, db, clock);
    OverrideAction set = overrides.apply(id, force(OverrideKind.FORCED_OPEN, "alice", "drill"));
    OverrideAction clear =
        overrides.apply(
            id, new OverrideRequest(OverrideKind.CLEAR, "bob", "drill over", Duration.ZERO, ""));
    assertThat(set.auditStored()).isTrue();
    assertThat(clear.auditStored()).isTrue();

    HistoryForwarder forwarder = new HistoryForwarder(db, redis, "forwarder-1", clock);
    SyncResult first = forwarder.syncOnce();
    SyncResult second = forwarder.syncOnce();

    // each override stored its own transition before it returned (durable when force returns)
    assertThat(first.events()).isZero();
    assertThat(first.audits()).isZero();
    assertThat(second.events()).isZero();
    assertThat(second.audits()).isZero();
    assertThat(db.collection(ControlDatabase.AUDIT).countDocuments()).isEqualTo(2);
    assertThat(new AuditLog(db).forTarget(id.toString()))
        .extracting(AuditRecord::action, AuditRecord::actor)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(AuditAction.FORCE, "alice"),
            org.assertj.core.groups.Tuple.tuple(AuditAction.CLEAR, "bob"));
    assertThat(new AuditLog(db).find(clear.correlationId()).orElseThrow().transition())
        .contains(new TransitionRef(id, clear.result().epoch(), clear.result().eventId()));
    assertThat(
            db.collection(ControlDatabase.HISTORY)
                .countDocuments(Filters.eq("breakerId", id.toString())))
        .isEqualTo(2);
    assertThat(
            db.collection(ControlDatabase.CURSORS)
                .find(Filters.eq("_id", id + "|" + clear.result().epoch()))
                .first()
                .getString("lastStreamId"))
        .isEqualTo(clear.result().eventId());
  }

  @Test
  @DisplayName("two forwarders on separate clients at once: every event stored exactly once")
  void concurrentForwarders() throws Exception {
    int breakers = 6;
    int rounds = 5;
    // straight through the scripts (as a node or an older CLI would): the events wait in the
    // streams for the forwarders (a CLI force stores its own at once)
    for (int b = 0; b < breakers; b++) {
      BreakerId id = BreakerId.parse("svc" + b + ":dep");
      for (int r = 0; r < rounds; r++) {
        StoreFutures.await(redis.override(id, force(OverrideKind.FORCED_OPEN, "op", "r" + r)));
        StoreFutures.await(
            redis.override(
                id, new OverrideRequest(OverrideKind.CLEAR, "op", "r" + r, Duration.ZERO, "")));
      }
    }
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (ControlDatabase a = ControlDatabase.connect(db.config());
        ControlDatabase b = ControlDatabase.connect(db.config())) {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<SyncResult>> results = new ArrayList<>();
      for (ControlDatabase c : List.of(a, b)) {
        HistoryForwarder f = new HistoryForwarder(c, redis, "fwd", clock);
        results.add(
            pool.submit(
                () -> {
                  start.await();
                  return f.syncOnce();
                }));
      }
      start.countDown();
      int stored = 0;
      for (Future<SyncResult> f : results) {
        SyncResult r = f.get(30, TimeUnit.SECONDS);
        assertThat(r.failures()).isEmpty();
        stored += r.events();
      }
      assertThat(stored).isEqualTo(breakers * rounds * 2);
    } finally {
      pool.shutdownNow();
    }
    assertThat(db.collection(ControlDatabase.HISTORY).countDocuments())
        .isEqualTo(breakers * rounds * 2);
    assertThat(db.collection(ControlDatabase.AUDIT).countDocuments())
        .isEqualTo(breakers * rounds * 2);
    assertThat(new HistoryForwarder(db, redis, "fwd", clock).syncOnce().events()).isZero();
  }

  @Test
  @DisplayName("notes on a breaker are kept in order and audited")
  void notes() {
    BreakerId id = BreakerId.parse("claims:members");
    BreakerNotes notes = new BreakerNotes(db, clock);

    BreakerNote first = notes.add(id, "alice", "member-service p99 at 4 s since 10:02");
    BreakerNote second = notes.add(id, "bob", "rolled back member-service 2.3.1");

    assertThat(notes.list(id)).extracting(BreakerNote::id).containsExactly(first.id(), second.id());
    assertThat(notes.list(id).get(1).text()).isEqualTo("rolled back member-service 2.3.1");
    assertThat(notes.list(BreakerId.parse("other:dep"))).isEmpty();
    assertThat(new AuditLog(db).find(first.id()).orElseThrow().action())
        .isEqualTo(AuditAction.NOTE);
  }
}
