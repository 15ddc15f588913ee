package io.breakerctl.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.breakerctl.runtime.model.BackoffHint;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.BreakerEvent;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.ChildJvm;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import io.breakerctl.testing.StartSignal;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One node's {@code Retry-After} backs the whole fleet off (issue 33, item 3), on a real
 * redis-server with nodes in three JVMs (two here, two in each of two children, HYBRID): a
 * dependency that answers one node's call with 429 and {@code Retry-After}, and every other call
 * with 200. The nodes report each answer with {@link Permission#onResult}; the policy says {@code
 * rateLimited: BACKOFF}.
 *
 * <p>What is asserted holds on any machine under any load, times being Redis's (the dependency
 * stamps each arrival with the wall clock, the same clock as Redis {@code TIME} on one host): the
 * one 429 opened the breaker once (BACKOFF_REQUESTED, the event naming the hint and its source) for
 * the hint, not {@code openSeconds}, or for {@code maxOpenSeconds} when the hint is above it; the
 * window ended exactly there (OPEN_WINDOW_ENDED at that {@code until}); a node that had rejected a
 * call (it knew the window) sent none to the dependency before the window's end; every node
 * rejected; between the window's end and the close exactly one call reached the dependency, the
 * probe, and it closed the breaker.
 */
@DisplayName("One node's Retry-After backs the whole fleet off, for the hint, capped by maxOpen")
class RetryAfterFleetIT {

  @RegisterExtension
  static final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);

  private static final List<String> CHILD_JVM = List.of("-XX:TieredStopAtLevel=1");

  /** One arrival at the dependency: its node, how it was admitted, and when (wall ms). */
  record Arrival(String node, String reason, long rejectionsSeen, long atMillis, int status) {}

  /**
   * The dependency: 200 to every call, except one 429 with {@code Retry-After} to the first call of
   * {@code target} once armed.
   */
  static final class Dependency implements AutoCloseable {
    final List<Arrival> arrivals = new CopyOnWriteArrayList<>();
    final AtomicBoolean armed = new AtomicBoolean();
    final HttpServer server;

    Dependency(String target, String retryAfter) throws Exception {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      server.setExecutor(Executors.newFixedThreadPool(4));
      server.createContext(
          "/",
          ex -> {
            long at = System.currentTimeMillis();
            String node = ex.getRequestHeaders().getFirst("X-Node");
            int status = 200;
            if (target.equals(node) && armed.compareAndSet(true, false)) {
              ex.getResponseHeaders().add("Retry-After", retryAfter);
              status = 429;
            }
            arrivals.add(
                new Arrival(
                    node,
                    ex.getRequestHeaders().getFirst("X-Reason"),
                    Long.parseLong(ex.getRequestHeaders().getFirst("X-Rejections")),
                    at,
                    status));
            ex.sendResponseHeaders(status, -1);
            ex.close();
          });
      server.start();
    }

    String url() {
      return "http://127.0.0.1:" + server.getAddress().getPort() + "/";
    }

    long callsFrom(String node) {
      return arrivals.stream().filter(a -> a.node().equals(node)).count();
    }

    @Override
    public void close() {
      server.stop(0);
    }
  }

  @Test
  @DisplayName(
      "Retry-After: 7 to one node: every node rejects for 7 s (openSeconds 60), then one probe")
  void theHintIsTheWindow() throws Exception {
    Verdict v = run(BreakerId.parse("retry-after:hinted"), "7", 60_000, 120_000);
    assertThat(v.opened.field("hintMillis")).as("the hint asked").isEqualTo("7000");
    assertThat(v.opened.field("openMillis")).as("the window: the hint").isEqualTo("7000");
  }

  @Test
  @DisplayName("Retry-After: 3600 with maxOpenSeconds 4: the cap holds, then one probe")
  void maxOpenCapsTheHint() throws Exception {
    Verdict v = run(BreakerId.parse("retry-after:capped"), "3600", 2_000, 4_000);
    assertThat(v.opened.field("hintMillis")).as("the hint asked").isEqualTo("3600000");
    assertThat(v.opened.field("openMillis")).as("the window: maxOpenSeconds").isEqualTo("4000");
  }

  /** The hint's event and the window it set. */
  record Verdict(BreakerEvent opened, long until) {}

  private Verdict run(BreakerId id, String retryAfter, long openMillis, long maxOpenMillis)
      throws Exception {
    String target = "child-a-" + id.dependency() + "-0";
    Path go = StartSignal.newFile("retry-after-go");
    Path stop = Path.of(go + ".stop");
    stop.toFile().deleteOnExit();
    List<ChildJvm> children = new ArrayList<>();
    List<String> nodes = new ArrayList<>();
    Map<String, Long> rejections = new HashMap<>();
    try (Dependency dep = new Dependency(target, retryAfter)) {
      for (String c : List.of("child-a-", "child-b-")) {
        String prefix = c + id.dependency() + "-";
        ChildJvm child =
            redis.manage(
                ChildJvm.start(
                    CHILD_JVM,
                    RetryAfterFleetMain.class,
                    redis.uri(),
                    id.toString(),
                    "2",
                    prefix,
                    "@" + go,
                    "120000",
                    dep.url(),
                    stop.toString(),
                    Long.toString(openMillis),
                    Long.toString(maxOpenMillis)));
        Poll.until(Duration.ofSeconds(60), c + " READY", () -> child.stdout().contains("READY"));
        children.add(child);
        nodes.add(prefix + "0");
        nodes.add(prefix + "1");
      }
      String prefix = "parent-" + id.dependency() + "-";
      try (RetryAfterFleet here =
          new RetryAfterFleet(redis.uri(), id, 2, prefix, openMillis, maxOpenMillis)) {
        nodes.addAll(here.nodes);
        long startAt = System.currentTimeMillis() + 300;
        StartSignal.write(go, startAt);
        Fleet.sleep(startAt - System.currentTimeMillis());
        here.start(dep.url(), stop, startAt + 120_000);
        Poll.until(
            Duration.ofSeconds(60),
            "every node called the healthy dependency",
            () -> nodes.stream().allMatch(n -> dep.callsFrom(n) >= 3));
        dep.armed.set(true);
        Poll.until(
            Duration.ofSeconds(60),
            "the probe after the hint's window closed the breaker",
            () -> closedAfterHint(events(id)).isPresent());
        Files.writeString(stop, "stop");
        parse(here.rejectionsLine(), rejections);
      }
      for (ChildJvm child : children) {
        assertThat(child.waitFor(Duration.ofSeconds(60)))
            .as("child stderr %s", child.stderr())
            .isZero();
        String line =
            child.stdout().stream()
                .filter(l -> l.startsWith("rejections="))
                .findFirst()
                .orElseThrow();
        parse(line.substring("rejections=".length()), rejections);
      }
      return judge(id, dep, target, rejections, nodes);
    } finally {
      Files.deleteIfExists(go);
      Files.deleteIfExists(stop);
    }
  }

  /** {@code node:count,...} into {@code into}. */
  private static void parse(String line, Map<String, Long> into) {
    for (String kv : line.split(",")) {
      into.put(kv.split(":")[0], Long.parseLong(kv.split(":")[1]));
    }
  }

  private Verdict judge(
      BreakerId id,
      Dependency dep,
      String target,
      Map<String, Long> rejections,
      List<String> nodes) {
    List<BreakerEvent> events = events(id);
    System.out.printf(
        "%s events %s%n",
        id,
        events.stream()
            .map(e -> e.from() + ">" + e.to() + " " + e.cause() + " at " + e.atMillis())
            .toList());
    List<Arrival> limited = dep.arrivals.stream().filter(a -> a.status() == 429).toList();
    assertThat(limited).as("one 429, to %s", target).hasSize(1);
    assertThat(limited.get(0).node()).isEqualTo(target);
    List<BreakerEvent> opened =
        events.stream().filter(e -> e.cause() == TransitionCause.BACKOFF_REQUESTED).toList();
    assertThat(opened).as("the one 429 opened the breaker once").hasSize(1);
    BreakerEvent o = opened.get(0);
    assertThat(o.from()).isEqualTo(State.CLOSED);
    assertThat(o.field("hintSource")).isEqualTo("RETRY_AFTER");
    long until = Long.parseLong(o.field("until"));
    assertThat(until - o.atMillis()).isEqualTo(Long.parseLong(o.field("openMillis")));
    assertThat(
            events.stream()
                .filter(e -> e.atMillis() >= o.atMillis() && e != o)
                .map(e -> e.from() + ">" + e.to() + " " + e.cause())
                .limit(2)
                .toList())
        .as("then the window ended and the probe closed it, nothing between")
        .containsExactly("OPEN>HALF_OPEN OPEN_WINDOW_ENDED", "HALF_OPEN>CLOSED PROBES_SUCCEEDED");
    BreakerEvent ended =
        events.stream()
            .filter(e -> e.cause() == TransitionCause.OPEN_WINDOW_ENDED)
            .findFirst()
            .orElseThrow();
    assertThat(Long.parseLong(ended.field("until")))
        .as("the window ended at the hint's end")
        .isEqualTo(until);
    long closedAt = closedAfterHint(events).orElseThrow().atMillis();
    BreakerSnapshot s;
    try (RedisFleetStore store =
        RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build())) {
      s = StoreFutures.await(store.snapshot(id, 0));
    }
    BreakerSnapshot atTheHint =
        new BreakerSnapshot(id, s.fields(), List.of(), List.of(), List.of(), o.atMillis());
    assertThat(atTheHint.backoffHint())
        .as("the hint in force as describe and the exporter read it, during the window")
        .contains(
            new BackoffHint.InForce(
                new BackoffHint(
                    Long.parseLong(o.field("hintMillis")), BackoffHint.Source.RETRY_AFTER),
                until));
    assertThat(s.backoffHint()).as("and no longer once the window ended").isEmpty();

    assertThat(
            dep.arrivals.stream()
                .filter(a -> a.rejectionsSeen() > 0 && a.atMillis() < until)
                .filter(a -> a.atMillis() >= o.atMillis())
                .toList())
        .as("calls a node sent after it had rejected one, before the window's end (Redis time)")
        .isEmpty();
    List<Arrival> afterWindow =
        dep.arrivals.stream()
            .filter(a -> a.atMillis() >= until && a.atMillis() <= closedAt)
            .toList();
    assertThat(afterWindow.stream().filter(a -> !"CLOSED".equals(a.reason())).toList())
        .as("calls between the window's end and the close: exactly one probe")
        .hasSize(1)
        .allSatisfy(a -> assertThat(a.reason()).isEqualTo("PROBE"));
    assertThat(afterWindow.stream().filter(a -> "CLOSED".equals(a.reason())))
        .as("any other: admitted before its node knew of the window")
        .allSatisfy(a -> assertThat(a.rejectionsSeen()).isZero());

    assertThat(rejections.keySet()).containsExactlyInAnyOrderElementsOf(nodes);
    assertThat(rejections)
        .as("OPEN rejections per node (every node, in every JVM, rejected)")
        .allSatisfy((n, count) -> assertThat(count).as(n).isPositive());
    return new Verdict(o, until);
  }

  /** The close after the hint's window, once the probe's success closed the breaker. */
  private static Optional<BreakerEvent> closedAfterHint(List<BreakerEvent> events) {
    Optional<BreakerEvent> hint =
        events.stream().filter(e -> e.cause() == TransitionCause.BACKOFF_REQUESTED).findFirst();
    return hint.flatMap(
        h ->
            events.stream()
                .filter(e -> e.atMillis() >= h.atMillis())
                .filter(e -> e.cause() == TransitionCause.PROBES_SUCCEEDED)
                .findFirst());
  }

  private static List<BreakerEvent> events(BreakerId id) {
    try (RedisFleetStore store =
        RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build())) {
      return StoreFutures.await(store.eventsAfter(id, "", 1000));
    }
  }
}
