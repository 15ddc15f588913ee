package io.breakerctl.runtime.toolkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.CallNotPermittedException;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.ControlUnavailableException;
import io.breakerctl.runtime.control.TestMongo;
import io.breakerctl.runtime.control.fallback.BusinessKeys;
import io.breakerctl.runtime.control.fallback.DeferredRequests;
import io.breakerctl.runtime.control.fallback.FallbackCatalog;
import io.breakerctl.runtime.control.fallback.FallbackSnapshots;
import io.breakerctl.runtime.control.fallback.PayloadKeys;
import io.breakerctl.runtime.control.policy.ApplyOptions;
import io.breakerctl.runtime.control.policy.PolicyControl;
import io.breakerctl.runtime.control.policy.PolicyParser;
import io.breakerctl.runtime.control.policy.PolicySet;
import io.breakerctl.runtime.fallback.ControlledFailureException;
import io.breakerctl.runtime.fallback.DeferredRequest;
import io.breakerctl.runtime.fallback.DeferredStatus;
import io.breakerctl.runtime.fallback.DeferredWork;
import io.breakerctl.runtime.fallback.FallbackResult;
import io.breakerctl.runtime.fallback.FallbackSnapshot;
import io.breakerctl.runtime.fallback.FallbackTrigger;
import io.breakerctl.runtime.fallback.Fallbacks;
import io.breakerctl.runtime.fallback.Served;
import io.breakerctl.runtime.fallback.SnapshotApproval;
import io.breakerctl.runtime.fallback.SnapshotCodec;
import io.breakerctl.runtime.fallback.SnapshotRead;
import io.breakerctl.runtime.fallback.SnapshotStatus;
import io.breakerctl.runtime.fallback.Unserved;
import io.breakerctl.runtime.internal.RegistryInternals;
import io.breakerctl.runtime.metrics.BreakerMetrics;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.FallbackPolicy;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.runtime.retry.Retry;
import io.breakerctl.runtime.retry.RetryPolicy;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Each fallback kind end to end: real redis-server, the MongoDB-wire server. */
@DisplayName("Fallbacks end to end")
class FallbackIT {

  @RegisterExtension
  static final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);

  private static final AtomicInteger SEQ = new AtomicInteger();
  private static final BusinessKeys SALT = new BusinessKeys("fallback-it-salt-0001");
  private static final PayloadKeys KEYS =
      PayloadKeys.of(
          Map.of("k1", "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII)),
          "k1");
  private static final SnapshotCodec<String> TEXT = SnapshotCodec.utf8();

  static TestMongo mongo;
  ControlDatabase db;
  final List<AutoCloseable> closing = new ArrayList<>();

  @BeforeAll
  static void startMongo() {
    mongo = TestMongo.start();
  }

  @AfterAll
  static void stopMongo() {
    mongo.close();
  }

  @BeforeEach
  void connect() {
    db = ControlDatabase.connect(mongo.database());
    db.ensureIndexes();
  }

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : closing) {
      c.close();
    }
    db.close();
  }

  private BreakerRegistry node(String name, FallbackPolicy fallback) {
    return node(redis, name, fallback);
  }

  /** A HYBRID node on {@code redis} whose breakers' policy names {@code fallback}. */
  static BreakerRegistry node(RedisExtension redis, String name, FallbackPolicy fallback) {
    return redis.manage(
        BreakerRegistry.builder()
            .redisUri(redis.uri())
            .nodeId(name)
            .mode(Mode.HYBRID)
            .commandTimeout(Duration.ofSeconds(1))
            .defaults(Policy.builder().fallbackPolicy(fallback).build())
            .build());
  }

  private static BreakerId id(String what) {
    return BreakerId.parse("fallback:" + what + "-" + SEQ.incrementAndGet());
  }

  private static void override(BreakerRegistry r, BreakerId id, OverrideKind kind) {
    RegistryInternals.store(r)
        .override(id, new OverrideRequest(kind, "test", "fallback test", Duration.ofMinutes(5), ""))
        .join();
  }

  private static void awaitState(CircuitBreaker cb, State s) {
    Poll.until(Duration.ofSeconds(5), cb.id() + " " + s, () -> cb.view().state() == s);
  }

  private <T extends AutoCloseable> T closeLater(T c) {
    closing.add(c);
    return c;
  }

  @Test
  @DisplayName("a captured snapshot is served stale with its source and age; an expired one never")
  void cachedSnapshots() throws Exception {
    BreakerRegistry r = node("cache-node", FallbackPolicy.CACHED);
    BreakerId id = id("cached");
    CircuitBreaker cb = r.breaker(id);
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    closeLater(BreakerMetrics.bind(r, cb, meters));
    FallbackSnapshots snapshots = new FallbackSnapshots(db, SALT, KEYS, Clock.systemUTC());
    Fallbacks<String> members =
        closeLater(
            Fallbacks.<String>builder(cb)
                .cached(snapshots, TEXT, Duration.ofMinutes(5), SnapshotApproval.AUTOMATIC)
                .source("member-service GET /members")
                .build());

    FallbackResult<String> fresh = members.call("member-1", () -> "gold");
    assertThat(fresh.served()).isEqualTo(Served.DEPENDENCY);
    assertThat(fresh.stale()).isFalse();
    Poll.until(
        Duration.ofSeconds(5),
        "the snapshot is captured",
        () -> snapshots.serve(id, "member-1").outcome() == SnapshotRead.Outcome.SERVED);
    Instant captured = snapshots.serve(id, "member-1").snapshot().orElseThrow().capturedAt();
    Thread.sleep(50); // an age that shows

    override(r, id, OverrideKind.FORCED_OPEN);
    awaitState(cb, State.FORCED_OPEN);
    FallbackResult<String> stale = members.call("member-1", () -> "never called");

    assertThat(stale.value()).isEqualTo("gold");
    assertThat(stale.served()).isEqualTo(Served.CACHED);
    assertThat(stale.stale()).isTrue();
    assertThat(stale.degraded()).isTrue();
    assertThat(stale.trigger()).isEqualTo(FallbackTrigger.REJECTED);
    assertThat(stale.source()).isEqualTo("member-service GET /members");
    assertThat(stale.capturedAt()).contains(captured);
    assertThat(stale.age().orElseThrow()).isGreaterThanOrEqualTo(Duration.ofMillis(50));
    assertThat(meters.get(BreakerMetrics.FALLBACKS).tag("kind", "cached").counter().count())
        .isEqualTo(1);
    assertThat(meters.get(BreakerMetrics.FALLBACK_AGE).timer().count()).isEqualTo(1);
    assertThat(meters.get(BreakerMetrics.RESPONSES).tag("degraded", "true").counter().count())
        .isEqualTo(1);
    assertThat(meters.get(BreakerMetrics.RESPONSES).tag("degraded", "false").counter().count())
        .isEqualTo(1);

    assertThatThrownBy(() -> members.call("member-2", () -> "never called"))
        .isInstanceOfSatisfying(
            ControlledFailureException.class,
            e -> assertThat(e.getMessage()).contains(id.toString(), "NOT_FOUND"));

    snapshots.capture(
        id,
        "member-3",
        TEXT.encode("silver"),
        "test",
        Duration.ofMillis(200),
        SnapshotApproval.AUTOMATIC);
    Poll.until(
        Duration.ofSeconds(5),
        "the short snapshot expires",
        () -> snapshots.serve(id, "member-3").outcome() == SnapshotRead.Outcome.EXPIRED);
    assertThatThrownBy(() -> members.call("member-3", () -> "never called"))
        .isInstanceOfSatisfying(
            ControlledFailureException.class,
            e -> {
              assertThat(e.getMessage()).contains(id.toString(), "FORCED_OPEN", "EXPIRED");
              assertThat(e.breaker()).isEqualTo(id);
              assertThat(e.state()).isEqualTo(State.FORCED_OPEN);
              assertThat(e.getCause()).isInstanceOf(CallNotPermittedException.class);
            });
  }

  @Test
  @DisplayName(
      "an approved snapshot survives a fresh capture (the candidate beside it) and is served when"
          + " the breaker opens; approving the candidate puts it in its place")
  void approvalsStick() throws Exception {
    BreakerRegistry r = node("approval-node", FallbackPolicy.CACHED);
    BreakerId id = id("approved");
    CircuitBreaker cb = r.breaker(id);
    FallbackSnapshots snapshots =
        new FallbackSnapshots(db, SALT, KEYS, Clock.systemUTC()).withHotCopies(r.hotSnapshots());
    FallbackCatalog catalog = new FallbackCatalog(db);
    String hash = SALT.hash("member-1");
    Fallbacks<String> members =
        closeLater(
            Fallbacks.<String>builder(cb)
                .cached(snapshots, TEXT, Duration.ofMinutes(5), SnapshotApproval.OPERATOR)
                .build());

    members.call("member-1", () -> "gold");
    Poll.until(
        Duration.ofSeconds(5),
        "the first capture waits for approval",
        () ->
            catalog
                .snapshot(id, hash)
                .map(s -> s.status() == SnapshotStatus.PENDING)
                .orElse(false));
    assertThat(snapshots.approve(id, "member-1", "alice", "checked")).isTrue();
    members.call("member-1", () -> "platinum"); // a fresh answer while closed
    Poll.until(
        Duration.ofSeconds(5),
        "the fresh answer is captured as the candidate",
        () -> catalog.snapshot(id, hash).orElseThrow().candidate().isPresent());
    FallbackSnapshot beside = catalog.snapshot(id, hash).orElseThrow();
    assertThat(beside.status()).isEqualTo(SnapshotStatus.APPROVED);
    assertThat(beside.approvedBy()).isEqualTo("alice");

    override(r, id, OverrideKind.FORCED_OPEN);
    awaitState(cb, State.FORCED_OPEN);
    FallbackResult<String> served = members.call("member-1", () -> "never called");
    assertThat(served.served()).isEqualTo(Served.CACHED);
    assertThat(served.value()).isEqualTo("gold");
    // another node (no node cache) reads the same through Redis
    assertThat(
            new FallbackSnapshots(db, SALT, KEYS, Clock.systemUTC())
                .withHotCopies(r.hotSnapshots())
                .serve(id, "member-1")
                .payload())
        .hasValueSatisfying(p -> assertThat(TEXT.decode(p)).isEqualTo("gold"));

    assertThat(snapshots.approve(id, "member-1", "bob", "the newer one")).isTrue();
    assertThat(members.call("member-1", () -> "never called").value()).isEqualTo("platinum");
    FallbackSnapshot promoted = catalog.snapshot(id, hash).orElseThrow();
    assertThat(promoted.candidate()).isEmpty();
    assertThat(promoted.approvedBy()).isEqualTo("bob");
    assertThat(snapshots.approve(id, "member-1", "bob", "nothing pending")).isFalse();
  }

  @Test
  @DisplayName(
      "every corrupt snapshot is a counted controlled failure with a reason and no payload content")
  void corruptSnapshotsAreControlledFailures() throws Exception {
    BreakerRegistry r = node("corrupt-node", FallbackPolicy.CACHED);
    BreakerId id = id("corrupt");
    CircuitBreaker cb = r.breaker(id);
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    closeLater(BreakerMetrics.bind(r, cb, meters));
    FallbackSnapshots writer = new FallbackSnapshots(db, SALT, KEYS, Clock.systemUTC());
    for (String k : List.of("undecodable", "lower-case", "no-captured-at", "tampered")) {
      writer.capture(
          id,
          k,
          TEXT.encode("secret-" + k),
          "test",
          Duration.ofMinutes(5),
          SnapshotApproval.AUTOMATIC);
    }
    var docs = db.collection(ControlDatabase.SNAPSHOTS);
    var byHash =
        (java.util.function.Function<String, org.bson.conversions.Bson>)
            k -> com.mongodb.client.model.Filters.eq("keyHash", SALT.hash(k));
    docs.updateOne(
        byHash.apply("lower-case"), com.mongodb.client.model.Updates.set("status", "approved"));
    docs.updateOne(
        byHash.apply("no-captured-at"), com.mongodb.client.model.Updates.unset("capturedAt"));
    org.bson.Document tampered = docs.find(byHash.apply("tampered")).first();
    byte[] data =
        tampered
            .get("payload", org.bson.Document.class)
            .get("data", org.bson.types.Binary.class)
            .getData();
    data[0] ^= 0x01;
    docs.updateOne(
        byHash.apply("tampered"),
        com.mongodb.client.model.Updates.set("payload.data", new org.bson.types.Binary(data)));
    // a codec whose error quotes the payload, as codecs do
    SnapshotCodec<String> quoting =
        new SnapshotCodec<>() {
          @Override
          public byte[] encode(String value) {
            return TEXT.encode(value);
          }

          @Override
          public String decode(byte[] bytes) {
            String text = TEXT.decode(bytes);
            if (text.equals("secret-undecodable")) {
              throw new IllegalArgumentException("cannot parse '" + text + "'");
            }
            return text;
          }
        };
    // a node that has none of them in its cache reads them from MongoDB
    Fallbacks<String> reader =
        closeLater(
            Fallbacks.<String>builder(cb)
                .cached(
                    new FallbackSnapshots(db, SALT, KEYS, Clock.systemUTC()),
                    quoting,
                    Duration.ofMinutes(5),
                    SnapshotApproval.AUTOMATIC)
                .build());
    override(r, id, OverrideKind.FORCED_OPEN);
    awaitState(cb, State.FORCED_OPEN);

    Map<String, Unserved> expected =
        Map.of(
            "undecodable", Unserved.UNDECODABLE,
            "lower-case", Unserved.MALFORMED,
            "no-captured-at", Unserved.MALFORMED,
            "tampered", Unserved.UNDECRYPTABLE);
    for (var e : expected.entrySet()) {
      assertThatThrownBy(() -> reader.call(e.getKey(), () -> "never called"))
          .as(e.getKey())
          .isInstanceOfSatisfying(
              ControlledFailureException.class,
              x -> {
                assertThat(x.unserved()).contains(e.getValue());
                assertThat(x.getMessage()).contains(id.toString()).doesNotContain("secret-");
                for (Throwable t = x; t != null; t = t.getCause()) {
                  assertThat(t.getMessage()).doesNotContain("secret-");
                }
              });
    }
    assertThatThrownBy(() -> reader.call("lower-case", () -> "never called"))
        .hasMessageContaining("MALFORMED: field 'status'");
    assertThatThrownBy(() -> reader.call("no-captured-at", () -> "never called"))
        .hasMessageContaining("MALFORMED: field 'capturedAt'");
    for (var reason : List.of("undecodable", "malformed", "undecryptable")) {
      assertThat(
              meters
                  .get(BreakerMetrics.FALLBACK_UNAVAILABLE)
                  .tags("kind", "cached", "reason", reason)
                  .counter()
                  .count())
          .as(reason)
          .isEqualTo(reason.equals("malformed") ? 4 : 1);
    }
    // each controlled failure is a degraded answer: 6 of them, no fresh answer
    assertThat(meters.get(BreakerMetrics.RESPONSES).tag("degraded", "true").counter().count())
        .isEqualTo(6);
  }

  @Test
  @DisplayName(
      "a fallback registered for a NONE policy is said out loud: at build, at the first"
          + " rejection, in the node's heartbeat")
  void aFallbackThatCannotServeIsSaidOutLoud() throws Exception {
    java.util.logging.Logger jul = java.util.logging.Logger.getLogger(Fallbacks.class.getName());
    List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.logging.Handler h =
        new java.util.logging.Handler() {
          @Override
          public void publish(java.util.logging.LogRecord r) {
            if (r.getLevel() == java.util.logging.Level.WARNING && r.getParameters() != null) {
              lines.add(java.text.MessageFormat.format(r.getMessage(), r.getParameters()));
            }
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    java.util.logging.Level was = jul.getLevel();
    jul.addHandler(h);
    jul.setLevel(java.util.logging.Level.ALL);
    try {
      BreakerRegistry none =
          redis.manage(
              BreakerRegistry.builder()
                  .redisUri(redis.uri())
                  .nodeId("none-node")
                  .mode(Mode.HYBRID)
                  .flushInterval(Duration.ofMillis(200))
                  .defaults(Policy.DEFAULT)
                  .build());
      CircuitBreaker cb = none.breaker(id("idle-default"));
      Fallbacks<String> idle =
          closeLater(Fallbacks.<String>builder(cb).staticDefault(() -> "basic plan").build());
      assertThat(idle.registered()).containsExactly(FallbackPolicy.STATIC_DEFAULT);
      assertThat(lines)
          .as("one warning at build")
          .singleElement()
          .asString()
          .contains(cb.id().toString(), "STATIC_DEFAULT fallback registered", "NONE");
      override(none, cb.id(), OverrideKind.FORCED_OPEN);
      awaitState(cb, State.FORCED_OPEN);
      for (int i = 0; i < 3; i++) {
        assertThatThrownBy(() -> idle.call(null, () -> "never called"))
            .as("the rejection passes through: the policy says NONE")
            .isInstanceOf(RuntimeException.class);
      }
      assertThat(lines).as("and one at the first rejection, not per rejection").hasSize(2);
      assertThat(lines.get(1)).contains(cb.id().toString(), "rejected a call", "logged once");
      try (io.breakerctl.runtime.redis.RedisFleetStore store =
          io.breakerctl.runtime.redis.RedisFleetStore.connect(
              io.breakerctl.runtime.redis.StoreConfig.builder().uri(redis.uri()).build())) {
        Poll.until(
            Duration.ofSeconds(10),
            "the node reports its idle fallback",
            () ->
                StoreFutures.await(store.snapshot(cb.id(), 0)).nodes().stream()
                    .anyMatch(n -> n.idleFallbacks().equals("STATIC_DEFAULT")));
      }
    } finally {
      jul.removeHandler(h);
      jul.setLevel(was);
    }
  }

  @Test
  @DisplayName("a static default answers a rejection; a controlled failure names breaker and state")
  void staticDefaultAndControlledFailure() throws Exception {
    BreakerRegistry defaults = node("default-node", FallbackPolicy.STATIC_DEFAULT);
    CircuitBreaker cb = defaults.breaker(id("static"));
    Fallbacks<String> withDefault =
        closeLater(Fallbacks.<String>builder(cb).staticDefault(() -> "basic plan").build());
    override(defaults, cb.id(), OverrideKind.FORCED_OPEN);
    awaitState(cb, State.FORCED_OPEN);

    FallbackResult<String> r = withDefault.call(null, () -> "never called");
    assertThat(r.value()).isEqualTo("basic plan");
    assertThat(r.served()).isEqualTo(Served.STATIC_DEFAULT);
    assertThat(r.degraded()).isTrue();

    CircuitBreaker retried = defaults.breaker(id("retried"));
    OutcomeCounter counter = new OutcomeCounter();
    retried.observe(counter);
    retried.call(() -> "a first attempt lends the budget a retry");
    Fallbacks<String> afterRetries =
        closeLater(
            Fallbacks.<String>builder(retried)
                .onFailure(true)
                .retry(
                    Retry.of(retried, RetryPolicy.builder().maxAttempts(2).budgetRatio(1).build()))
                .staticDefault(() -> "basic plan")
                .build());
    AtomicInteger attempts = new AtomicInteger();
    FallbackResult<String> failed =
        afterRetries.call(
            null,
            () -> {
              attempts.incrementAndGet();
              throw new java.net.ConnectException("refused");
            });
    assertThat(failed.served()).isEqualTo(Served.STATIC_DEFAULT);
    assertThat(failed.trigger()).isEqualTo(FallbackTrigger.FAILED);
    assertThat(attempts).hasValue(2);
    assertThat(counter.retries.sum()).isEqualTo(1);

    BreakerRegistry controlled = node("controlled-node", FallbackPolicy.CONTROLLED_FAILURE);
    CircuitBreaker failing = controlled.breaker(id("controlled"));
    Fallbacks<String> precise =
        closeLater(Fallbacks.<String>builder(failing).onFailure(true).build());
    assertThatThrownBy(
            () ->
                precise.call(
                    null,
                    () -> {
                      throw new java.net.ConnectException("refused");
                    }))
        .isInstanceOfSatisfying(
            ControlledFailureException.class,
            e -> {
              assertThat(e.trigger()).isEqualTo(FallbackTrigger.FAILED);
              assertThat(e.reason()).isEqualTo("failure");
              assertThat(e.getMessage()).contains(failing.id().toString(), "CLOSED");
            });
    override(controlled, failing.id(), OverrideKind.FORCED_OPEN);
    awaitState(failing, State.FORCED_OPEN);
    assertThatThrownBy(() -> precise.call(null, () -> "never called"))
        .isInstanceOfSatisfying(
            ControlledFailureException.class,
            e -> {
              assertThat(e.trigger()).isEqualTo(FallbackTrigger.REJECTED);
              assertThat(e.state()).isEqualTo(State.FORCED_OPEN);
              assertThat(e.reason()).isEqualTo("FORCED_OPEN");
              assertThat(e.getMessage())
                  .isEqualTo(
                      "breaker "
                          + failing.id()
                          + " is FORCED_OPEN (FORCED_OPEN): call not permitted");
              assertThat(e.getStackTrace()).isEmpty();
            });
  }

  @Test
  @DisplayName(
      "the policy names the static default: a running node serves the newly named one; an"
          + " unregistered name is a controlled failure naming breaker and name")
  void staticDefaultNamedInThePolicy() throws Exception {
    BreakerRegistry r = node("named-default-node", FallbackPolicy.NONE);
    BreakerId id = id("named");
    CircuitBreaker cb = r.breaker(id);
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    closeLater(BreakerMetrics.bind(r, cb, meters));
    Fallbacks<String> plans =
        closeLater(
            Fallbacks.<String>builder(cb)
                .staticDefault("a", () -> "plan a")
                .staticDefault("b", () -> "plan b")
                .staticDefault(() -> "unnamed plan")
                .build());
    PolicyControl control = new PolicyControl(db, RegistryInternals.store(r), Clock.systemUTC());
    override(r, id, OverrideKind.FORCED_OPEN);
    awaitState(cb, State.FORCED_OPEN);

    apply(control, id, "a");
    Poll.until(
        Duration.ofSeconds(5),
        "the node adopts the policy naming a",
        () -> cb.view().policy().staticDefault().equals(java.util.Optional.of("a")));
    FallbackResult<String> a = plans.call(null, () -> "never called");
    assertThat(a.value()).isEqualTo("plan a");
    assertThat(a.served()).isEqualTo(Served.STATIC_DEFAULT);
    assertThat(a.source()).isEqualTo("a");

    apply(control, id, "b");
    Poll.until(
        Duration.ofSeconds(5), "the running node serves b", () -> "plan b".equals(served(plans)));
    assertThat(plans.call(null, () -> "never called").source()).isEqualTo("b");

    apply(control, id, null);
    Poll.until(
        Duration.ofSeconds(5),
        "none named: the unnamed default",
        () -> "unnamed plan".equals(served(plans)));

    apply(control, id, "premium");
    Poll.until(
        Duration.ofSeconds(5),
        "the node adopts the policy naming premium",
        () -> cb.view().policy().staticDefault().equals(java.util.Optional.of("premium")));
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(() -> plans.call(null, () -> "never called"))
          .isInstanceOfSatisfying(
              ControlledFailureException.class,
              e -> {
                assertThat(e.breaker()).isEqualTo(id);
                assertThat(e.state()).isEqualTo(State.FORCED_OPEN);
                assertThat(e.getMessage())
                    .contains(
                        id.toString(),
                        "static default 'premium' is not registered on this node",
                        "registered: a, b");
              });
    }
    assertThat(
            meters
                .get(BreakerMetrics.FALLBACK_UNAVAILABLE)
                .tag("kind", "static_default")
                .counter()
                .count())
        .isEqualTo(2);
    Fallbacks<String> noneRegistered = closeLater(Fallbacks.<String>builder(cb).build());
    assertThatThrownBy(() -> noneRegistered.call(null, () -> "never called"))
        .isInstanceOfSatisfying(
            ControlledFailureException.class,
            e -> assertThat(e.getMessage()).contains("'premium'", "none by name"));
  }

  private static String served(Fallbacks<String> f) {
    try {
      return f.call(null, () -> "never called").value();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  @DisplayName(
      "a write is never answered by a default: after a policy switch to STATIC_DEFAULT a submit is"
          + " a counted controlled failure, the deferred request is not lost; onFailure skips writes")
  void writesAreNeverDefaulted() throws Exception {
    BreakerRegistry r = node("write-node", FallbackPolicy.DEFERRED);
    BreakerId id = id("writes");
    CircuitBreaker cb = r.breaker(id);
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    closeLater(BreakerMetrics.bind(r, cb, meters));
    AtomicInteger runs = new AtomicInteger();
    Fallbacks<String> transfers =
        closeLater(
            Fallbacks.<String>builder(cb)
                .staticDefault(() -> "OK")
                .onFailure(true)
                .deferred(
                    new DeferredRequests(db, KEYS, Clock.systemUTC()),
                    payload -> {
                      runs.incrementAndGet();
                      throw new IllegalStateException("payment gateway 503 after debit");
                    })
                .build());
    // a failed write while closed: the failure, not OK
    assertThatThrownBy(() -> transfers.submit(null, "t-0".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("503");
    PolicyControl control = new PolicyControl(db, RegistryInternals.store(r), Clock.systemUTC());
    override(r, id, OverrideKind.FORCED_OPEN);
    awaitState(cb, State.FORCED_OPEN);
    FallbackResult<String> deferredOne =
        transfers.submit(null, "t-1".getBytes(StandardCharsets.UTF_8));
    assertThat(deferredOne.served()).isEqualTo(Served.DEFERRED);

    apply(control, id, null); // fallbackPolicy: STATIC_DEFAULT
    Poll.until(
        Duration.ofSeconds(5),
        "the node adopts STATIC_DEFAULT",
        () -> cb.view().policy().fallbackPolicy() == FallbackPolicy.STATIC_DEFAULT);
    assertThatThrownBy(() -> transfers.submit(null, "t-2".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOfSatisfying(
            ControlledFailureException.class,
            e -> {
              assertThat(e.unserved()).contains(Unserved.NOT_ACCEPTED);
              assertThat(e.getMessage()).contains("does not accept a STATIC_DEFAULT answer");
            });
    // a read at the same breaker still gets the default
    assertThat(transfers.call(null, () -> "never called").value()).isEqualTo("OK");
    assertThat(transfers.deferred(deferredOne.trackingId()).orElseThrow().status())
        .isEqualTo(DeferredStatus.PENDING);
    assertThat(
            meters
                .get(BreakerMetrics.FALLBACK_UNAVAILABLE)
                .tags("kind", "static_default", "reason", "not_accepted")
                .counter()
                .count())
        .isEqualTo(1);
    assertThat(runs).hasValue(1); // the first write, run once
  }

  private static void apply(PolicyControl control, BreakerId id, String staticDefault) {
    String yaml =
        "apiVersion: breakerctl/v1\nkind: Policy\nmetadata:\n  id: "
            + id
            + "\nspec:\n  fallbackPolicy: STATIC_DEFAULT\n"
            + (staticDefault == null ? "" : "  staticDefault: " + staticDefault + "\n");
    PolicySet set = PolicyParser.parse("named.yaml", yaml);
    assertThat(set.problems()).isEmpty();
    control.applyAll(set, ApplyOptions.by("fallback-it", "name the default"));
  }

  /**
   * A deferred request as {@code node} reads it from MongoDB. A node's control-plane guard fails
   * reads at once while it holds MongoDB down (the driver's monitor lost its connection: on a
   * machine with both cores busy its heartbeat can miss the timeout), until its background ping
   * sees MongoDB answer; the read is asked again then, as a caller would, for up to 20 s. What the
   * test asserts (each request run once, DONE once) is read only from an answer.
   */
  private static DeferredRequest read(Fallbacks<String> node, String trackingId) {
    DeferredRequest[] out = new DeferredRequest[1];
    Poll.until(
        Duration.ofSeconds(20),
        "MongoDB answering the read of " + trackingId,
        () -> {
          try {
            out[0] = node.deferred(trackingId).orElseThrow();
            return true;
          } catch (ControlUnavailableException down) {
            return false;
          }
        });
    return out[0];
  }

  @Test
  @DisplayName(
      "deferred requests run once across 3 nodes after recovery and read back by tracking id")
  void deferredExactlyOnceAcrossThreeNodes() throws Exception {
    BreakerId id = id("deferred");
    Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    DeferredWork<String> work =
        payload -> {
          String order = new String(payload, StandardCharsets.UTF_8);
          runs.computeIfAbsent(order, k -> new AtomicInteger()).incrementAndGet();
          Thread.sleep(5); // work that takes a moment, so replayers overlap
          return "booked " + order;
        };
    List<Fallbacks<String>> nodes = new ArrayList<>();
    List<CircuitBreaker> breakers = new ArrayList<>();
    BreakerRegistry first = null;
    for (int i = 0; i < 3; i++) {
      BreakerRegistry r = node("deferred-node-" + i, FallbackPolicy.DEFERRED);
      first = first == null ? r : first;
      CircuitBreaker cb = r.breaker(id);
      breakers.add(cb);
      ControlDatabase own = closeLater(ControlDatabase.connect(db.config()));
      nodes.add(
          closeLater(
              Fallbacks.<String>builder(cb)
                  .deferred(new DeferredRequests(own, KEYS, Clock.systemUTC()), work)
                  .owner("deferred-node-" + i)
                  .replayInterval(Duration.ofMillis(50))
                  .build()));
    }
    CountingObserver counted = new CountingObserver();
    breakers.forEach(cb -> cb.observe(counted));
    override(first, id, OverrideKind.FORCED_OPEN);
    breakers.forEach(cb -> awaitState(cb, State.FORCED_OPEN));

    List<String> tracking = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      FallbackResult<String> r =
          nodes.get(i % 3).submit(null, ("order-" + i).getBytes(StandardCharsets.UTF_8));
      assertThat(r.served()).isEqualTo(Served.DEFERRED);
      assertThat(r.value()).isNull();
      tracking.add(r.trackingId());
    }
    assertThat(runs).isEmpty();
    assertThat(nodes.get(1).deferred(tracking.get(0)).orElseThrow().status())
        .isEqualTo(DeferredStatus.PENDING);

    override(first, id, OverrideKind.CLEAR);
    Poll.until(
        Duration.ofSeconds(20),
        "every deferred request done",
        () ->
            tracking.stream().allMatch(t -> read(nodes.get(0), t).status() == DeferredStatus.DONE));

    for (int i = 0; i < 30; i++) {
      DeferredRequest d = read(nodes.get((i + 1) % 3), tracking.get(i));
      assertThat(d.result()).isEqualTo("booked order-" + i);
      assertThat(d.attempts()).isEqualTo(1);
      assertThat(runs.get("order-" + i)).as("runs of order-" + i).hasValue(1);
    }
    assertThat(counted.stored.get()).isEqualTo(30);
    assertThat(counted.done.get()).isEqualTo(30);
    System.out.printf("deferred: 30 requests completed once each across 3 nodes%n");
  }

  @Test
  @DisplayName(
      "a poisoned deferred request among three is quarantined (FAILED with its reason, counted);"
          + " the two others are replayed under FORCED_CLOSED with their tracking ids as keys")
  void poisonedDeferredRequestIsQuarantined() throws Exception {
    BreakerRegistry r = node("poison-node", FallbackPolicy.DEFERRED);
    BreakerId id = id("poison");
    CircuitBreaker cb = r.breaker(id);
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    closeLater(BreakerMetrics.bind(r, cb, meters));
    List<String> keys = new java.util.concurrent.CopyOnWriteArrayList<>();
    Fallbacks<String> transfers =
        closeLater(
            Fallbacks.<String>builder(cb)
                .deferred(
                    new DeferredRequests(db, KEYS, Clock.systemUTC()),
                    DeferredWork.keyed(
                        (payload, key) -> {
                          keys.add(key);
                          return "sent " + new String(payload, StandardCharsets.UTF_8);
                        }))
                .replayInterval(Duration.ofMillis(100))
                .build());
    override(r, id, OverrideKind.FORCED_OPEN);
    awaitState(cb, State.FORCED_OPEN);
    List<String> tracking = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      tracking.add(
          transfers.submit(null, ("transfer-" + i).getBytes(StandardCharsets.UTF_8)).trackingId());
    }
    // the oldest one's ciphertext altered
    var docs = db.collection(ControlDatabase.DEFERRED);
    var oldest = com.mongodb.client.model.Filters.eq("_id", tracking.get(0));
    byte[] data =
        docs.find(oldest)
            .first()
            .get("payload", org.bson.Document.class)
            .get("data", org.bson.types.Binary.class)
            .getData();
    data[0] ^= 0x01;
    docs.updateOne(
        oldest,
        com.mongodb.client.model.Updates.set("payload.data", new org.bson.types.Binary(data)));

    override(r, id, OverrideKind.FORCED_CLOSED); // calls flow: deferred requests replay
    Poll.until(
        Duration.ofSeconds(10),
        "the two good requests are done",
        () ->
            tracking.subList(1, 3).stream()
                .allMatch(
                    t -> transfers.deferred(t).orElseThrow().status() == DeferredStatus.DONE));
    Poll.until(
        Duration.ofSeconds(5),
        "the poisoned one is quarantined",
        () -> "FAILED".equals(docs.find(oldest).first().getString("status")));
    org.bson.Document bad = docs.find(oldest).first();
    assertThat(bad.getString("result"))
        .startsWith("quarantined: ")
        .contains("does not decrypt")
        .doesNotContain("transfer-");
    assertThat(bad.getInteger("attempts")).isZero();
    DeferredRequest asked = transfers.deferred(tracking.get(0)).orElseThrow();
    assertThat(asked.status()).isEqualTo(DeferredStatus.FAILED);
    assertThat(asked.result()).startsWith("quarantined: ");
    assertThat(keys).containsExactlyInAnyOrderElementsOf(tracking.subList(1, 3));
    for (String t : tracking.subList(1, 3)) {
      assertThat(transfers.deferred(t).orElseThrow().attempts()).isEqualTo(1);
    }
    assertThat(
            meters
                .get(BreakerMetrics.DEFERRED_FINISHED)
                .tag("result", "quarantined")
                .counter()
                .count())
        .isEqualTo(1);
    assertThat(meters.get(BreakerMetrics.DEFERRED_FINISHED).tag("result", "done").counter().count())
        .isEqualTo(2);
  }

  @Test
  @DisplayName(
      "a replayer frozen after the side effect: another runs the request again under the same"
          + " tracking id, and the record says 2 attempts")
  void secondExecutionIsRecorded() throws Exception {
    BreakerRegistry r = node("halt-node", FallbackPolicy.DEFERRED);
    BreakerId id = id("halt");
    CircuitBreaker cb = r.breaker(id);
    List<String> ledger = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.concurrent.CountDownLatch never = new java.util.concurrent.CountDownLatch(1);
    DeferredWork<String> work =
        DeferredWork.keyed(
            (payload, key) -> {
              ledger.add(key); // the side effect
              if (ledger.size() == 1) {
                never.await(); // the first runner freezes before it records the end
              }
              return "sent";
            });
    List<Fallbacks<String>> replayers = new ArrayList<>();
    for (String owner : List.of("node-a", "node-b")) {
      replayers.add(
          closeLater(
              Fallbacks.<String>builder(cb)
                  .deferred(new DeferredRequests(db, KEYS, Clock.systemUTC()), work)
                  .owner(owner)
                  .lease(Duration.ofMillis(800))
                  .replayInterval(Duration.ofMillis(100))
                  .build()));
    }
    override(r, id, OverrideKind.FORCED_OPEN);
    awaitState(cb, State.FORCED_OPEN);
    String t =
        replayers.get(0).submit(null, "transfer".getBytes(StandardCharsets.UTF_8)).trackingId();
    override(r, id, OverrideKind.CLEAR);
    try {
      Poll.until(
          Duration.ofSeconds(10),
          "the request is done by the second runner",
          () -> replayers.get(1).deferred(t).orElseThrow().status() == DeferredStatus.DONE);
      assertThat(ledger).containsExactly(t, t);
      assertThat(replayers.get(1).deferred(t).orElseThrow().attempts()).isEqualTo(2);
    } finally {
      never.countDown();
    }
  }

  @Test
  @DisplayName(
      "the deferred-pending gauge is the fleet's count from the control plane, uncapped: 150, then"
          + " 0")
  void deferredPendingGaugeIsFleetWide() throws Exception {
    BreakerId id = id("pending");
    List<Fallbacks<String>> nodes = new ArrayList<>();
    List<SimpleMeterRegistry> gauges = new ArrayList<>();
    BreakerRegistry first = null;
    for (int i = 0; i < 2; i++) {
      BreakerRegistry r = node("pending-node-" + i, FallbackPolicy.DEFERRED);
      first = first == null ? r : first;
      CircuitBreaker cb = r.breaker(id);
      SimpleMeterRegistry meters = new SimpleMeterRegistry();
      closeLater(BreakerMetrics.bind(r, cb, meters));
      gauges.add(meters);
      if (i == 0) {
        override(r, id, OverrideKind.FORCED_OPEN);
      }
      awaitState(cb, State.FORCED_OPEN);
      nodes.add(
          closeLater(
              Fallbacks.<String>builder(cb)
                  .deferred(new DeferredRequests(db, KEYS, Clock.systemUTC()), payload -> "done")
                  .owner("pending-node-" + i)
                  .replayInterval(Duration.ofMillis(100))
                  .pendingCountInterval(Duration.ofMillis(200))
                  .build()));
    }
    for (int i = 0; i < 150; i++) {
      FallbackResult<String> r =
          nodes.get(i % 2).submit(null, ("p-" + i).getBytes(StandardCharsets.UTF_8));
      assertThat(r.served()).isEqualTo(Served.DEFERRED);
    }
    for (SimpleMeterRegistry meters : gauges) {
      Poll.until(
          Duration.ofSeconds(5),
          "each node's gauge shows the fleet's 150 (75 stored by each node)",
          () -> pending(meters) == 150);
    }

    override(first, id, OverrideKind.CLEAR);
    for (SimpleMeterRegistry meters : gauges) {
      Poll.until(Duration.ofSeconds(20), "the gauge drops to 0", () -> pending(meters) == 0);
    }
  }

  private static double pending(SimpleMeterRegistry meters) {
    return meters.get(BreakerMetrics.DEFERRED_PENDING).gauge().value();
  }

  /** Counts deferred requests stored and finished, over all nodes. */
  private static final class CountingObserver implements io.breakerctl.runtime.CallObserver {
    final AtomicInteger stored = new AtomicInteger();
    final AtomicInteger done = new AtomicInteger();

    @Override
    public void deferredStored() {
      stored.incrementAndGet();
    }

    @Override
    public void deferredFinished(boolean ok) {
      if (ok) {
        done.incrementAndGet();
      }
    }
  }
}
