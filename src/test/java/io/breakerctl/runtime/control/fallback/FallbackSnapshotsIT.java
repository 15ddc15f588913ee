package io.breakerctl.runtime.control.fallback;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.model.Updates;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.TestMongo;
import io.breakerctl.runtime.control.audit.AuditAction;
import io.breakerctl.runtime.control.audit.AuditLog;
import io.breakerctl.runtime.control.audit.AuditRecord;
import io.breakerctl.runtime.fallback.DeferredRequest;
import io.breakerctl.runtime.fallback.DeferredStatus;
import io.breakerctl.runtime.fallback.FallbackSnapshot;
import io.breakerctl.runtime.fallback.SnapshotApproval;
import io.breakerctl.runtime.fallback.SnapshotRead;
import io.breakerctl.runtime.fallback.SnapshotStatus;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.testing.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.bson.Document;
import org.bson.types.Binary;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Fallback snapshots and deferred requests in MongoDB")
class FallbackSnapshotsIT {

  static TestMongo mongo;
  static final BreakerId ID = BreakerId.parse("claims:members");
  static final BusinessKeys SALTED = new BusinessKeys("env-salt-for-tests-0001");
  static final PayloadKeys KEY1 = PayloadKeys.of(Map.of("k1", PayloadCipherTest.K1), "k1");
  static final PayloadKeys KEY2 =
      PayloadKeys.of(Map.of("k1", PayloadCipherTest.K1, "k2", PayloadCipherTest.K2), "k2");

  ControlDatabase db;
  MutableClock clock;

  @BeforeAll
  static void start() {
    mongo = TestMongo.start();
  }

  @AfterAll
  static void stop() {
    mongo.close();
  }

  @BeforeEach
  void connect() {
    db = ControlDatabase.connect(mongo.database());
    clock = new MutableClock(Instant.now());
  }

  @AfterEach
  void disconnect() {
    db.close();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private FallbackSnapshots snapshots(PayloadKeys keys) {
    return new FallbackSnapshots(db, SALTED, keys, clock);
  }

  @Test
  @DisplayName("approved snapshots are served until they expire; expired and revoked never")
  void expiryAndRevocation() {
    FallbackSnapshots s = snapshots(KEY1);
    s.capture(
        ID,
        "member-1",
        bytes("gold"),
        "member-service GET /members/1",
        Duration.ofMinutes(5),
        SnapshotApproval.AUTOMATIC);
    s.capture(
        ID,
        "member-2",
        bytes("silver"),
        "member-service GET /members/2",
        Duration.ofMinutes(5),
        SnapshotApproval.AUTOMATIC);

    SnapshotRead served = s.serve(ID, "member-1");
    assertThat(served.outcome()).isEqualTo(SnapshotRead.Outcome.SERVED);
    assertThat(served.payload()).hasValueSatisfying(p -> assertThat(p).isEqualTo(bytes("gold")));
    assertThat(served.snapshot().orElseThrow().approvedBy()).isEqualTo(FallbackSnapshots.AUTO);

    assertThat(s.revoke(ID, "member-2", "alice", "stale plan")).isTrue();
    assertThat(s.serve(ID, "member-2").outcome()).isEqualTo(SnapshotRead.Outcome.REVOKED);
    assertThat(s.serve(ID, "member-2").payload()).isEmpty();
    assertThat(s.approve(ID, "member-2", "bob", ""))
        .as("a revoked snapshot is not approved again")
        .isFalse();

    clock.advance(Duration.ofMinutes(5));
    assertThat(s.serve(ID, "member-1").outcome()).isEqualTo(SnapshotRead.Outcome.EXPIRED);
    assertThat(s.serve(ID, "member-1").payload()).isEmpty();
    assertThat(s.serve(ID, "member-9").outcome()).isEqualTo(SnapshotRead.Outcome.NOT_FOUND);
    assertThat(new AuditLog(db).forTarget(ID.toString()))
        .extracting(AuditRecord::action)
        .containsExactly(AuditAction.FALLBACK_REVOKE);
  }

  @Test
  @DisplayName(
      "the newest approved snapshot: approved and unexpired only, of this breaker, newest capture")
  void newestApproved() {
    BreakerId ages = BreakerId.parse("claims:ages");
    FallbackSnapshots s = snapshots(KEY1);
    assertThat(s.newestApproved(ages)).isEmpty();
    Instant first = clock.instant();
    s.capture(
        ages, "member-1", bytes("gold"), "src", Duration.ofMinutes(5), SnapshotApproval.AUTOMATIC);
    s.capture(
        BreakerId.parse("claims:other"),
        "member-1",
        bytes("gold"),
        "src",
        Duration.ofMinutes(30),
        SnapshotApproval.AUTOMATIC);
    clock.advance(Duration.ofMinutes(1));
    Instant second = clock.instant();
    s.capture(
        ages, "member-2", bytes("silver"), "src", Duration.ofMinutes(5), SnapshotApproval.OPERATOR);
    assertThat(s.newestApproved(ages).map(Instant::toEpochMilli))
        .as("a pending snapshot is not approved")
        .contains(first.toEpochMilli());
    assertThat(s.approve(ages, "member-2", "alice", "checked")).isTrue();
    assertThat(s.newestApproved(ages).map(Instant::toEpochMilli)).contains(second.toEpochMilli());
    assertThat(s.revoke(ages, "member-2", "alice", "stale")).isTrue();
    assertThat(s.newestApproved(ages).map(Instant::toEpochMilli)).contains(first.toEpochMilli());
    clock.advance(Duration.ofMinutes(4));
    assertThat(s.newestApproved(ages)).as("the first one expired").isEmpty();
  }

  @Test
  @DisplayName("an operator-approved policy: pending until approved, then served")
  void operatorApproval() {
    FallbackSnapshots s = snapshots(KEY1);
    FallbackSnapshot captured =
        s.capture(
            ID, "member-1", bytes("gold"), "src", Duration.ofMinutes(5), SnapshotApproval.OPERATOR);

    assertThat(captured.status()).isEqualTo(SnapshotStatus.PENDING);
    assertThat(s.serve(ID, "member-1").outcome()).isEqualTo(SnapshotRead.Outcome.PENDING);
    assertThat(s.approve(ID, "member-1", "alice", "checked")).isTrue();
    SnapshotRead r = s.serve(ID, "member-1");
    assertThat(r.outcome()).isEqualTo(SnapshotRead.Outcome.SERVED);
    assertThat(r.snapshot().orElseThrow().approvedBy()).isEqualTo("alice");
  }

  @Test
  @DisplayName(
      "the business key is stored only hashed; the payload only encrypted under its key id")
  void nothingInClear() {
    snapshots(KEY1)
        .capture(
            ID,
            "member-4711",
            bytes("gold-plan"),
            "src",
            Duration.ofMinutes(5),
            SnapshotApproval.AUTOMATIC);

    Document d = db.collection(ControlDatabase.SNAPSHOTS).find().first();
    String json = d.toJson();
    assertThat(json).doesNotContain("member-4711").doesNotContain("4711");
    assertThat(d.getString("keyHash")).isEqualTo(SALTED.hash("member-4711"));
    Document payload = d.get("payload", Document.class);
    assertThat(payload.getString("keyId")).isEqualTo("k1");
    assertThat(new String(payload.get("data", Binary.class).getData(), StandardCharsets.ISO_8859_1))
        .doesNotContain("gold");
  }

  @Test
  @DisplayName("tampered ciphertext is rejected, never served")
  void tampered() {
    FallbackSnapshots s = snapshots(KEY1);
    s.capture(
        ID, "member-1", bytes("gold"), "src", Duration.ofMinutes(5), SnapshotApproval.AUTOMATIC);
    Document d = db.collection(ControlDatabase.SNAPSHOTS).find().first();
    byte[] data = d.get("payload", Document.class).get("data", Binary.class).getData();
    data[data.length - 1] ^= 0x01;
    db.collection(ControlDatabase.SNAPSHOTS)
        .updateOne(eq("_id", d.get("_id")), Updates.set("payload.data", new Binary(data)));

    // read by a node without the document in its cache (the capturing one trusts its copy for
    // FallbackSnapshots.CACHE_FRESH)
    SnapshotRead r = snapshots(KEY1).serve(ID, "member-1");

    assertThat(r.outcome()).isEqualTo(SnapshotRead.Outcome.UNDECRYPTABLE);
    assertThat(r.payload()).isEmpty();
  }

  @Test
  @DisplayName(
      "a node with keys refuses a snapshot and a deferred payload stored in clear, unless it"
          + " accepts plaintext for a migration")
  void plaintextRefusedByANodeWithKeys() {
    snapshots(PayloadKeys.none())
        .capture(
            ID,
            "member-1",
            bytes("gold"),
            "src",
            Duration.ofMinutes(5),
            SnapshotApproval.AUTOMATIC);

    assertThat(snapshots(KEY1).serve(ID, "member-1").outcome())
        .isEqualTo(SnapshotRead.Outcome.UNDECRYPTABLE);
    assertThat(snapshots(KEY1.acceptingPlaintext()).serve(ID, "member-1").payload())
        .hasValueSatisfying(p -> assertThat(p).isEqualTo(bytes("gold")));

    String clear = new DeferredRequests(db, PayloadKeys.none(), clock).defer(ID, bytes("t-1"));
    java.util.List<String> unreadable = new java.util.ArrayList<>();
    assertThat(
            new DeferredRequests(db, KEY1, clock)
                .pending(ID, 10, (tracking, why) -> unreadable.add(tracking + ": " + why)))
        .isEmpty();
    assertThat(unreadable).singleElement().asString().startsWith(clear).contains("in clear");
  }

  @Test
  @DisplayName("a deferred request's result and error are stored encrypted like its payload")
  void deferredResultsEncrypted() {
    DeferredRequests q = new DeferredRequests(db, KEY1, clock);
    String t = q.defer(ID, bytes("order-7"));
    assertThat(q.attempt(t, false, "rejected order-7 for card 4111", 3)).isTrue();

    org.bson.Document raw =
        db.collection(ControlDatabase.DEFERRED)
            .find(com.mongodb.client.model.Filters.eq("_id", t))
            .first();
    assertThat(raw.get("result")).isInstanceOf(org.bson.Document.class);
    assertThat(raw.toJson()).doesNotContain("4111").doesNotContain("order-7");
    assertThat(q.find(t).orElseThrow().result()).isEqualTo("rejected order-7 for card 4111");
    assertThat(new FallbackCatalog(db).deferred(t).orElseThrow().result()).isEqualTo("(encrypted)");
  }

  @Test
  @DisplayName("a payload written under key 1 reads after rotating to key 2; new writes use key 2")
  void rotation() {
    snapshots(KEY1)
        .capture(
            ID,
            "member-1",
            bytes("gold"),
            "src",
            Duration.ofMinutes(5),
            SnapshotApproval.AUTOMATIC);

    FallbackSnapshots rotated = snapshots(KEY2);
    SnapshotRead r = rotated.serve(ID, "member-1");
    FallbackSnapshot fresh =
        rotated.capture(
            ID,
            "member-2",
            bytes("silver"),
            "src",
            Duration.ofMinutes(5),
            SnapshotApproval.AUTOMATIC);

    assertThat(r.outcome()).isEqualTo(SnapshotRead.Outcome.SERVED);
    assertThat(r.payload()).hasValueSatisfying(p -> assertThat(p).isEqualTo(bytes("gold")));
    assertThat(r.snapshot().orElseThrow().keyId()).isEqualTo("k1");
    assertThat(fresh.keyId()).isEqualTo("k2");
    assertThat(rotated.serve(ID, "member-2").payload())
        .hasValueSatisfying(p -> assertThat(p).isEqualTo(bytes("silver")));
  }

  @Test
  @DisplayName("deferred requests: encrypted payload, status, attempts and result; one finisher")
  void deferred() {
    DeferredRequests q = new DeferredRequests(db, KEY2, clock);
    String t1 = q.defer(ID, bytes("POST /claims {\"amount\":12}"));
    String t2 = q.defer(ID, bytes("POST /claims {\"amount\":13}"));

    Document stored = db.collection(ControlDatabase.DEFERRED).find(eq("_id", t1)).first();
    assertThat(stored.get("payload", Document.class).getString("keyId")).isEqualTo("k2");
    assertThat(stored.toJson()).doesNotContain("amount");
    assertThat(q.pending(ID, 10)).extracting(DeferredRequest::trackingId).containsExactly(t1, t2);
    assertThat(q.find(t1).orElseThrow().payload()).isEqualTo(bytes("POST /claims {\"amount\":12}"));

    assertThat(q.attempt(t1, true, "201 Created", 3)).isTrue();
    assertThat(q.attempt(t1, true, "201 Created", 3)).as("finished once").isFalse();
    assertThat(q.find(t1).orElseThrow().status()).isEqualTo(DeferredStatus.DONE);
    for (int i = 0; i < 3; i++) {
      assertThat(q.attempt(t2, false, "503 from member-service", 3)).isTrue();
    }
    DeferredRequest failed = q.find(t2).orElseThrow();
    assertThat(failed.status()).isEqualTo(DeferredStatus.FAILED);
    assertThat(failed.attempts()).isEqualTo(3);
    assertThat(failed.result()).isEqualTo("503 from member-service");
    assertThat(q.pending(ID, 10)).isEmpty();
  }
}
