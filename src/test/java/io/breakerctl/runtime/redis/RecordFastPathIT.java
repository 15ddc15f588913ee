package io.breakerctl.runtime.redis;

import static io.breakerctl.runtime.store.StoreFutures.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.breakerctl.runtime.model.BackoffHint;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.AcquireResult;
import io.breakerctl.runtime.store.NodeHeartbeat;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.PolicyEncoding;
import io.breakerctl.runtime.store.RecordResult;
import io.breakerctl.testing.RedisExtension;
import io.breakerctl.testing.RedisServerProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * record.lua's fast path (ahead of the prelude) against the full path alone: every call is sent to
 * two breakers, one through the script as shipped and one through the same script with its fast
 * path cut off, and the answers and the hashes must agree. Each step also says whether the shipped
 * script may take the fast path (no {@code HGETALL} ran: the full path always loads the hash),
 * which pins every fall-through: no keys yet, a trip, a stale generation, a lease, a heartbeat, a
 * bucket change (fast, also over the whole window), a trip right after one, a due TTL refresh.
 */
@DisplayName("record.lua fast path: the same answers and hashes as the full path")
class RecordFastPathIT {

  @RegisterExtension static final RedisExtension redis = RedisExtension.manual();

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};
  private static final String IDLE_TTL = Long.toString(Duration.ofHours(24).toMillis());
  private static final Duration LONG_WINDOW = Duration.ofSeconds(600);

  private static List<StoreTarget> targets;

  @BeforeAll
  static void start() {
    targets = StoreTarget.startAll(redis, false);
  }

  static Stream<StoreTarget> targets() {
    return targets.stream();
  }

  /** The shipped body, and the full path alone (prelude + what follows the marker). */
  private static final String SHIPPED = BreakerScript.RECORD.body();

  private static final String FULL_ONLY;

  static {
    String own = BreakerScript.source("record.lua");
    int at = own.indexOf(BreakerScript.PRELUDE_MARKER);
    if (at < 0) {
      throw new IllegalStateException("record.lua has no fast path ahead of the prelude");
    }
    FULL_ONLY =
        BreakerScript.source("prelude.lua")
            + "\n"
            + own.substring(at + BreakerScript.PRELUDE_MARKER.length());
  }

  /**
   * Two breakers fed the same calls: {@code a} by the shipped script, {@code b} by the full path.
   */
  private static final class Pair {
    final StoreTarget t;
    final RedisServerProcess server;
    final BreakerId a;
    final BreakerId b;
    String idleTtl = IDLE_TTL;

    Pair(StoreTarget t, String name) {
      this.t = t;
      this.a = StoreTarget.freshId(name + "-fast");
      this.b = StoreTarget.freshId(name + "-full");
      this.server = t.nodeFor(a);
    }

    /**
     * Records {@code o} on both and compares. {@code fast}: TRUE the shipped script must take the
     * fast path (unless the bucket moved during the step), FALSE it must not, null either.
     */
    /** TRUE expectations hold even when the bucket moves (the fast path takes moves too). */
    boolean strict;

    /** Whether a bucket boundary ever fell between the two calls of a step. */
    boolean diverged;

    RecordResult record(Outcome o, Policy p, String heartbeat, Boolean fast) {
      String bucketBefore = field(a, "winBucket");
      boolean apartBefore = !java.util.Objects.equals(bucketBefore, field(b, "winBucket"));
      server.call("CONFIG", "RESETSTAT");
      RecordResult ra = eval(SHIPPED, a, o, p, heartbeat);
      long hgetall = server.commandStats().getOrDefault("hgetall", new long[2])[0];
      RecordResult rb = eval(FULL_ONLY, b, o, p, heartbeat);
      boolean tookFast = hgetall == 0;
      if (fast != null && fast && strict) {
        assertThat(tookFast).as("fast path taken for %s (bucket moves included)", o).isTrue();
      } else if (fast != null && fast && !tookFast) {
        assertThat(field(a, "winBucket"))
            .as("the fast path was not taken, and the bucket did not move")
            .isNotEqualTo(bucketBefore);
      } else if (fast != null) {
        assertThat(tookFast).as("fast path taken for %s", o).isEqualTo(fast);
      }
      Map<String, String> ha = normalized(a);
      Map<String, String> hb = normalized(b);
      diverged |=
          apartBefore || !java.util.Objects.equals(ha.get("winBucket"), hb.get("winBucket"));
      boolean apart = diverged;
      if (apart) {
        // a bucket boundary fell between the two calls (now or at an earlier step: the rings then
        // hold other buckets for good), so only what does not depend on the window must agree
        assertThat(comparable(ra).subList(3, 10))
            .as("answers for %s", o)
            .isEqualTo(comparable(rb).subList(3, 10));
      } else {
        assertThat(comparable(ra)).as("answers for %s", o).isEqualTo(comparable(rb));
      }
      if (apart) {
        for (Map<String, String> h : List.of(ha, hb)) {
          h.keySet()
              .removeIf(f -> f.matches("winBucket|curFailures|curCalls|winFailures|winCalls|w\\d"));
        }
      }
      assertThat(ha).as("hash after %s", o).isEqualTo(hb);
      assertThat(ttlKind(a)).as("key expiry after %s", o).isEqualTo(ttlKind(b));
      assertThat(heartbeats(a)).as("heartbeats after %s", o).isEqualTo(heartbeats(b));
      return ra;
    }

    RecordResult record(Outcome o, Policy p, Boolean fast) {
      return record(o, p, null, fast);
    }

    private RecordResult eval(String body, BreakerId id, Outcome o, Policy p, String heartbeat) {
      String[] keys = t.store.keys().scriptKeys(id);
      List<String> cmd = new ArrayList<>(List.of("EVAL", body, Integer.toString(keys.length)));
      cmd.addAll(List.of(keys));
      cmd.add(o.node());
      cmd.add(idleTtl);
      cmd.add(PolicyEncoding.toArg(p));
      cmd.add(Long.toString(o.failures()));
      cmd.add(Long.toString(o.successes()));
      cmd.add(o.durationMillis() < 0 ? "" : Long.toString(o.durationMillis()));
      cmd.add(o.generation());
      cmd.add(o.leaseId());
      cmd.add(heartbeat == null ? "" : heartbeat);
      if (o.hint() != null) {
        cmd.add(Long.toString(o.hint().millis()));
        cmd.add(o.hint().source().name());
      }
      @SuppressWarnings("unchecked")
      List<Object> reply = (List<Object>) server.call(cmd.toArray(new String[0]));
      return ScriptAnswers.record(reply);
    }

    private String field(BreakerId id, String name) {
      return (String) server.call("HGET", t.store.keys().hash(id), name);
    }

    /** The hash without what differs between two breakers by time or identity. */
    private Map<String, String> normalized(BreakerId id) {
      @SuppressWarnings("unchecked")
      List<Object> flat = (List<Object>) server.call("HGETALL", t.store.keys().hash(id));
      Map<String, String> m = new TreeMap<>();
      for (int i = 0; i < flat.size(); i += 2) {
        m.put((String) flat.get(i), (String) flat.get(i + 1));
      }
      for (String f :
          List.of(
              "epoch",
              "lastTransitionAt",
              "openUntil",
              "openedAt",
              "hintUntil",
              "lastEvent",
              "forwarded",
              "nodesPrunedAt")) {
        m.computeIfPresent(f, (k, v) -> "<set>");
      }
      m.computeIfPresent("ttlAt", (k, v) -> v.equals("-1") ? "-1" : "<time>");
      return m;
    }

    private String ttlKind(BreakerId id) {
      return ttlKind(t.store.keys().hash(id));
    }

    private String ttlKind(String key) {
      long ttl = (Long) server.call("PTTL", key);
      return ttl == -1 ? "persisted" : ttl == -2 ? "absent" : "expires";
    }

    /** The heartbeat keys: members, each node's JSON without "at", and both keys' expiry kind. */
    private List<Object> heartbeats(BreakerId id) {
      BreakerKeys k = t.store.keys();
      Map<String, Object> info = new TreeMap<>();
      @SuppressWarnings("unchecked")
      List<Object> flat = (List<Object>) server.call("HGETALL", k.nodeInfo(id));
      for (int i = 0; i < flat.size(); i += 2) {
        try {
          Map<String, Object> json = JSON.readValue((String) flat.get(i + 1), MAP);
          assertThat(json)
              .as("heartbeat of %s carries the Redis time", flat.get(i))
              .containsKey("at");
          json.remove("at");
          info.put((String) flat.get(i), json);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
      @SuppressWarnings("unchecked")
      List<Object> members = (List<Object>) server.call("ZRANGE", k.nodes(id), "0", "-1");
      return List.of(
          new java.util.TreeSet<>(members.stream().map(String::valueOf).toList()), // scores differ
          info,
          ttlKind(k.nodes(id)),
          ttlKind(k.nodeInfo(id)));
    }
  }

  /** What two breakers fed the same calls must answer alike (ids and times differ). */
  private static List<Object> comparable(RecordResult r) {
    return List.of(
        r.state(),
        r.windowFailures(),
        r.windowCalls(),
        r.transitioned(),
        r.generation(),
        r.eventId().isEmpty(),
        r.epoch().isEmpty(),
        r.accepted(),
        r.reason(),
        r.openUntilMillis() == 0);
  }

  /** record.lua as shipped, called with {@code argv} as it is (no Java type checks it). */
  private static Object rawRecord(Pair x, BreakerId id, String... argv) {
    String[] keys = x.t.store.keys().scriptKeys(id);
    List<String> cmd = new ArrayList<>(List.of("EVAL", SHIPPED, Integer.toString(keys.length)));
    cmd.addAll(List.of(keys));
    cmd.addAll(List.of(argv));
    return x.server.call(cmd.toArray(new String[0]));
  }

  private static Policy.Builder policy() {
    return Policy.builder().window(LONG_WINDOW);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  @DisplayName(
      "counting below the threshold: failures, a success batch, a mixed result, slow calls")
  void counting(StoreTarget t) {
    Pair x = new Pair(t, "count");
    Policy p = policy().failureThreshold(1000).slowCallMillis(100).build();

    x.record(Outcome.successes("n1", 3), p, false); // no keys yet
    x.record(Outcome.failure("n1", ""), p, true);
    x.record(Outcome.failure("n1", "0"), p, true);
    x.record(Outcome.successes("n1", 7), p, true);
    x.record(new Outcome("n1", 2, 5, -1, "", ""), p, true);
    x.record(Outcome.success("n1", "", 50), p, true);
    RecordResult slow = x.record(Outcome.success("n1", "", 150), p, true);
    x.record(new Outcome("n1", 0, 0, -1, "", ""), p, true);

    assertThat(slow.windowFailures()).isEqualTo(5);
    assertThat(slow.windowCalls()).isEqualTo(21);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  @DisplayName("a trip by count or by rate falls through; OPEN is never counted on the fast path")
  void trips(StoreTarget t) {
    Pair count = new Pair(t, "trip");
    Policy three = policy().failureThreshold(3).build();
    count.record(Outcome.failure("n1", ""), three, false);
    count.record(Outcome.failure("n1", ""), three, true);
    assertThat(count.record(Outcome.failure("n1", ""), three, false).state()).isEqualTo(State.OPEN);
    count.record(Outcome.failure("n1", ""), three, false);
    count.record(Outcome.successes("n1", 4), three, false);

    Pair rate = new Pair(t, "rate");
    Policy half =
        policy().failureThreshold(1000).failureRateThreshold(50.0).minimumCalls(10).build();
    rate.record(Outcome.successes("n1", 5), half, false);
    for (int i = 0; i < 4; i++) {
      rate.record(Outcome.failure("n1", ""), half, true);
    }
    assertThat(rate.record(Outcome.failure("n1", ""), half, false).state()).isEqualTo(State.OPEN);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  @DisplayName("a warmed policy wins over the caller's on the fast path too; disabled never trips")
  void warmedPolicy(StoreTarget t) {
    Pair x = new Pair(t, "warmed");
    Policy caller = policy().failureThreshold(1000).build();
    Policy warmed = policy().failureThreshold(3).slowCallMillis(100).build();
    await(t.store.warm(x.a, "pol", 1, warmed, "it"));
    await(t.store.warm(x.b, "pol", 1, warmed, "it"));

    x.record(Outcome.successes("n1", 2), caller, false); // warm wrote no window yet
    x.record(Outcome.success("n1", "", 150), caller, true);
    x.record(Outcome.failure("n1", ""), caller, true);
    assertThat(x.record(Outcome.failure("n1", ""), caller, false).state()).isEqualTo(State.OPEN);

    Pair off = new Pair(t, "disabled");
    Policy disabled = policy().failureThreshold(1).enabled(false).build();
    off.record(Outcome.failure("n1", ""), disabled, false);
    for (int i = 0; i < 3; i++) {
      assertThat(off.record(Outcome.failure("n1", ""), disabled, true).state())
          .isEqualTo(State.CLOSED);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  @DisplayName(
      "after a close: stale generation, lease and heartbeat fall through; keys stay persisted")
  void afterClose(StoreTarget t) {
    Pair x = new Pair(t, "closed");
    Policy p = policy().failureThreshold(2).open(Duration.ofMillis(100)).halfOpenPermits(1).build();
    x.record(Outcome.failure("n1", ""), p, false);
    x.record(Outcome.failure("n1", ""), p, false);
    for (BreakerId id : List.of(x.a, x.b)) {
      Poll.until(
          Duration.ofSeconds(5),
          "open window of " + id + " to end",
          () -> await(t.store.snapshot(id, 0)).effectiveState() == State.HALF_OPEN);
    }
    AcquireResult la = await(t.store.acquire(x.a, "n1", p));
    AcquireResult lb = await(t.store.acquire(x.b, "n1", p));
    assertThat(List.of(la.leaseId(), lb.leaseId())).doesNotContain("");
    assertThat(la.leaseId()).isEqualTo(lb.leaseId());
    RecordResult closed =
        x.record(Outcome.probe("n1", la.generation(), la.leaseId(), true), p, false);
    assertThat(closed.state()).isEqualTo(State.CLOSED);

    x.record(Outcome.success("n1", closed.generation(), 5), p, true);
    RecordResult stale = x.record(Outcome.failure("n1", la.generation()), p, false);
    assertThat(stale.reason().code()).isEqualTo("STALE_GENERATION");
    x.record(Outcome.probe("n1", closed.generation(), "77", false), p, false);
    x.record(
        Outcome.successes("n1", 3),
        p,
        new NodeHeartbeat("n1", State.CLOSED, "", 0, false, 0).toJson(),
        false);
    x.record(Outcome.failure("n1", closed.generation()), p, true);
    // no history destination: the events hold nothing, the closed breaker's keys expire when idle
    assertThat(x.ttlKind(x.a)).isEqualTo("expires");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  @DisplayName(
      "a flush with the node's heartbeat takes the fast path unless pruning is due or the"
          + " heartbeat is not the runtime's; a broken one writes nothing")
  void heartbeats(StoreTarget t) {
    Pair x = new Pair(t, "beat");
    Policy p = policy().failureThreshold(1000).build();
    String beat = new NodeHeartbeat("n1", State.CLOSED, "pol", 3, false, 0).toJson();

    x.record(Outcome.successes("n1", 1), p, false); // no keys yet
    x.record(Outcome.successes("n1", 3), p, beat, false); // nodes never pruned
    x.record(Outcome.successes("n1", 2), p, beat, true);
    x.record(
        Outcome.successes("n2", 4),
        p,
        new NodeHeartbeat("n2", State.CLOSED, "pol", 2, true, 0).toJson(),
        true); // a new node: its keys get the hash's expiry
    x.record(Outcome.successes("n1", 0), p, beat, true);
    x.record(Outcome.successes("n1", 1), p, "{\"state\":\"CLOSED\",\"at\":5}", false);
    x.record(Outcome.successes("n1", 1), p, "{}", false);
    x.record(Outcome.successes("n1", 1), p, " " + beat + " ", false);

    Object before = x.server.call("HGETALL", t.store.keys().hash(x.a));
    for (String broken : List.of("{\"state\":", "[1,2}", "\"x\"")) {
      for (BreakerId id : List.of(x.a, x.b)) {
        assertThatThrownBy(
                () ->
                    rawRecord(
                        x,
                        id,
                        "n1",
                        IDLE_TTL,
                        PolicyEncoding.toArg(p),
                        "0",
                        "1",
                        "",
                        "",
                        "",
                        broken))
            .as("heartbeat %s", broken)
            .isInstanceOf(RuntimeException.class)
            .hasMessageContaining("heartbeat is not a JSON object");
      }
    }
    assertThat(x.server.call("HGETALL", t.store.keys().hash(x.a))).isEqualTo(before);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  @DisplayName(
      "an outcome with a back-off hint takes the full path; a hint that is negative, above a day"
          + " or not a number, or a bad source, is an error that writes nothing")
  void backoffHints(StoreTarget t) {
    Pair x = new Pair(t, "hint");
    Policy p = policy().failureThreshold(1000).build();
    x.record(Outcome.successes("n1", 1), p, false); // no keys yet
    x.record(Outcome.successes("n1", 1), p, true);
    Object before = x.server.call("HGETALL", t.store.keys().hash(x.a));
    Map<String, String> bad =
        Map.of(
            "-5", "RETRY_AFTER",
            "86400001", "RETRY_AFTER",
            "99999999999999999999", "RETRY_AFTER",
            "7s", "RETRY_AFTER",
            "1.5", "RETRY_AFTER",
            "7000", "retry after",
            "7001", "");
    for (Map.Entry<String, String> h : bad.entrySet()) {
      for (BreakerId id : List.of(x.a, x.b)) {
        String[] argv = {
          "n1",
          IDLE_TTL,
          PolicyEncoding.toArg(p),
          "1",
          "0",
          "",
          "",
          "",
          "",
          h.getKey(),
          h.getValue()
        };
        assertThatThrownBy(() -> rawRecord(x, id, argv))
            .as("hint %s from %s", h.getKey(), h.getValue())
            .isInstanceOf(RuntimeException.class)
            .hasMessageContaining(h.getValue().equals("RETRY_AFTER") ? "hint must be" : "source")
            .hasMessageContaining(
                h.getValue().equals("RETRY_AFTER") ? "'" + h.getKey() + "'" : h.getValue());
      }
    }
    assertThat(x.server.call("HGETALL", t.store.keys().hash(x.a))).isEqualTo(before);
    RecordResult opened =
        x.record(
            Outcome.backoff("n1", "", "", new BackoffHint(7000, BackoffHint.Source.RETRY_AFTER)),
            p,
            false);
    assertThat(opened.state()).isEqualTo(State.OPEN);
    assertThat(opened.transitioned()).isTrue();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  @DisplayName(
      "a bucket change takes the fast path (the ring read, expired buckets off the totals), a trip"
          + " after one and a due TTL refresh fall through")
  void bucketAndTtl(StoreTarget t) throws InterruptedException {
    Pair bucket = new Pair(t, "bucket");
    bucket.strict = true;
    Policy oneSecond =
        Policy.builder().failureThreshold(1000).window(Duration.ofSeconds(1)).build();
    long firstSent = System.nanoTime();
    bucket.record(Outcome.failure("n1", ""), oneSecond, false);
    Thread.sleep(250);
    RecordResult moved = bucket.record(Outcome.failure("n1", ""), oneSecond, true);
    // both failures are in the 1 s window when they came within it (a stall of the loaded machine
    // can put more time between them; the paths' agreement is checked either way)
    if (withinWindow(firstSent, oneSecond)) {
      assertThat(moved.windowFailures()).isEqualTo(2);
    }
    // one bucket (100 ms) or more at a time: the ring fills, the oldest buckets leave the window
    for (int i = 0; i < 12; i++) {
      Thread.sleep(i % 3 == 0 ? 260 : 120);
      bucket.record(
          i % 2 == 0 ? Outcome.failure("n1", "") : Outcome.successes("n1", 3), oneSecond, true);
    }
    // the whole window went by: every bucket leaves it
    Thread.sleep(1_200);
    RecordResult fresh = bucket.record(Outcome.successes("n1", 2), oneSecond, true);
    assertThat(fresh.windowFailures()).isZero();
    assertThat(fresh.windowCalls()).isEqualTo(2);
    Thread.sleep(150);
    assertThat(bucket.record(Outcome.failure("n1", ""), oneSecond, true).windowFailures())
        .isEqualTo(1);

    Pair trip = new Pair(t, "bucket-trip");
    Policy two = Policy.builder().failureThreshold(2).window(Duration.ofSeconds(1)).build();
    long tripSent = System.nanoTime();
    trip.record(Outcome.failure("n1", ""), two, false);
    Thread.sleep(150);
    RecordResult tripped = trip.record(Outcome.failure("n1", ""), two, false);
    if (withinWindow(tripSent, two)) {
      assertThat(tripped.transitioned()).isTrue();
      assertThat(tripped.state()).isEqualTo(State.OPEN);
    }

    Pair ttl = new Pair(t, "ttl");
    ttl.idleTtl = "8000"; // refreshed at most every second
    Policy p = policy().failureThreshold(1000).build();
    ttl.record(Outcome.failure("n1", ""), p, false);
    ttl.record(Outcome.failure("n1", ""), p, null);
    Thread.sleep(1100);
    ttl.record(Outcome.failure("n1", ""), p, false);
    assertThat(ttl.ttlKind(ttl.a)).isEqualTo("expires");
  }

  /**
   * Whether the calls since {@code sentNanos} (wall time, an upper bound of the Redis time between
   * them) fit the window less one of its ten buckets, so their counts are certain.
   */
  private static boolean withinWindow(long sentNanos, Policy p) {
    return System.nanoTime() - sentNanos < p.window().toNanos() * 9 / 10;
  }
}
