package io.breakerctl.sandbox;

import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.CallNotPermittedException;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.CircuitEvent;
import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;
import io.breakerctl.runtime.redis.BreakerEvent;
import io.breakerctl.runtime.redis.RedisBreakerStore;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;

/**
 * A small simulated fleet for {@code breakerctl demo}, driven by the real runtime: three HYBRID
 * nodes (each its own {@link BreakerRegistry} with its own Redis connections, pub/sub subscription,
 * short flush and refresh intervals) call five breakers from their own threads. The payments
 * dependency is down until {@code checkout:payments} has tripped fleet-wide; it recovers while the
 * breaker is open, the open window (1 s) ends, exactly one node wins the one probe lease, and its
 * success closes the breaker for the whole fleet. The other breakers stay closed with traffic and
 * heartbeats.
 *
 * <p>The policy is warmed into Redis through {@link RedisBreakerStore#warm} (what {@code breakerctl
 * policy apply} does) and adopted by every node; the trip and probe events are read back from the
 * breaker's stream. Every registry is closed before {@link #run} returns.
 */
public final class DemoFleet {

  /** The policy id the demo warms into every breaker. */
  public static final String POLICY_ID = "*:*";

  /** The breaker that trips and recovers. */
  public static final BreakerId TRIPPING = BreakerId.parse("checkout:payments");

  /** The breaker that sees a few failures, below the threshold. */
  public static final BreakerId WOBBLING = BreakerId.parse("claims:members");

  /** Every breaker the demo drives. */
  public static final List<BreakerId> BREAKERS =
      List.of(
          TRIPPING,
          BreakerId.parse("checkout:inventory"),
          WOBBLING,
          BreakerId.parse("claims:documents:eu"),
          BreakerId.parse("search:catalog"));

  /** The demo nodes. */
  public static final List<String> NODES = List.of("node-a", "node-b", "node-c");

  /** Threshold 5, open 1 s: the trip and the recovery both fit in a few seconds. */
  public static final Policy POLICY =
      Policy.builder()
          .failureThreshold(5)
          .window(Duration.ofSeconds(30))
          .open(Duration.ofSeconds(1))
          .maxOpen(Duration.ofSeconds(8))
          .halfOpenPermits(1)
          .probeLease(Duration.ofSeconds(5))
          .build();

  /** Pause of each node between two rounds of calls. */
  static final long ROUND_PAUSE_MILLIS = 40;

  /** How long the recovered payments service takes to answer (the probe is in flight this long). */
  static final long PAYMENTS_LATENCY_MILLIS = 60;

  private static final String ACTOR = "breakerctl-demo";

  /**
   * What the run observed.
   *
   * @param tripFailures failures in the shared window when the breaker tripped (the stream event)
   * @param reachedWhileDown calls that reached payments while it was down (all of them failed)
   * @param rejectedWhileOpen calls the nodes rejected locally while the breaker was open
   * @param probes probes the nodes ran (PROBE_SUCCEEDED and PROBE_FAILED events)
   * @param prober the node that held the probe lease
   * @param busyRejections calls rejected with PROBES_BUSY while the probe ran
   */
  public record Summary(
      long tripFailures,
      long reachedWhileDown,
      long rejectedWhileOpen,
      long probes,
      String prober,
      long busyRejections) {}

  /** The payments service: down until {@link #recover()}, then slow-ish but healthy. */
  static final class Payments {
    private final AtomicBoolean healthy = new AtomicBoolean();
    final AtomicLong reachedWhileDown = new AtomicLong();
    final AtomicLong reachedWhileHealthy = new AtomicLong();

    String charge() {
      if (!healthy.get()) {
        reachedWhileDown.incrementAndGet();
        throw new IllegalStateException("payments: 503 Service Unavailable");
      }
      reachedWhileHealthy.incrementAndGet();
      pause(PAYMENTS_LATENCY_MILLIS);
      return "charged";
    }

    void recover() {
      healthy.set(true);
    }
  }

  /** One node: its registry, its breakers and what its listeners saw. */
  private static final class Node {
    final String id;
    final BreakerRegistry registry;
    final Map<BreakerId, CircuitBreaker> breakers = new ConcurrentHashMap<>();
    final Map<String, LongAdder> rejections = new ConcurrentHashMap<>();
    final LongAdder probes = new LongAdder();
    final LongAdder paymentFailures = new LongAdder();

    Node(String id, BreakerRegistry registry) {
      this.id = id;
      this.registry = registry;
    }

    CircuitBreaker breaker(BreakerId id) {
      return breakers.get(id);
    }

    long rejected(String reason) {
      LongAdder a = rejections.get(reason);
      return a == null ? 0 : a.sum();
    }
  }

  private final String redisUri;
  private final RedisBreakerStore store;
  private final PrintWriter out;

  /**
   * A demo whose nodes connect to {@code redisUri}; {@code store} (the same Redis) warms the policy
   * and reads the breaker's stream. Narrates to {@code out}.
   */
  public DemoFleet(String redisUri, RedisBreakerStore store, PrintWriter out) {
    this.redisUri = redisUri;
    this.store = store;
    this.out = out;
  }

  /**
   * Runs the scenario once; returns when {@link #TRIPPING} is closed again and every node is
   * closed.
   *
   * @param bound the longest each phase (trip, recovery) may take before the demo gives up
   * @return what the run observed
   * @throws IllegalStateException when a step does not behave as the runtime promises
   */
  public Summary run(Duration bound) {
    for (BreakerId id : BREAKERS) {
      RedisBreakerStore.await(store.warm(id, POLICY_ID, 1, POLICY, ACTOR));
    }
    say(
        "warmed policy "
            + POLICY_ID
            + " v1 (threshold 5, open 1s) into "
            + BREAKERS.size()
            + " breakers");
    String marker = lastEventId(TRIPPING);
    Payments payments = new Payments();
    List<Node> nodes = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    AtomicBoolean running = new AtomicBoolean(true);
    try {
      for (String nodeId : NODES) {
        nodes.add(join(nodeId));
      }
      await(
          bound,
          "every node adopts " + POLICY_ID + " v1",
          () ->
              nodes.stream()
                  .allMatch(
                      n ->
                          n.breakers.values().stream()
                              .allMatch(b -> b.view().policyVersion() >= 1)));
      say(
          NODES.size()
              + " HYBRID nodes joined (own registry and connections each), adopted "
              + POLICY_ID
              + " v1");

      // earlier demo runs may have left failures in the 30 s window: stay below the threshold
      long earlier = RedisBreakerStore.await(store.state(WOBBLING)).number("winFailures");
      long wobbles = Math.max(0, Math.min(2, POLICY.failureThreshold() - 1 - earlier));
      for (int i = 0; i < wobbles; i++) {
        try {
          nodes
              .get(i)
              .breaker(WOBBLING)
              .call(
                  () -> {
                    throw new IllegalStateException("members: timeout");
                  });
        } catch (IllegalStateException expected) {
          // the failure the breaker counts
        }
      }
      say(
          WOBBLING
              + ": "
              + wobbles
              + " failures"
              + (earlier > 0 ? " (" + (earlier + wobbles) + " in its window)" : "")
              + ", below the threshold: stays CLOSED");

      for (int i = 0; i < nodes.size(); i++) {
        Node n = nodes.get(i);
        long offset = i * ROUND_PAUSE_MILLIS / nodes.size();
        Thread t = new Thread(() -> traffic(n, payments, running, offset), "demo-" + n.id);
        t.setDaemon(true);
        t.start();
        threads.add(t);
      }
      say("payments is down; " + NODES.size() + " nodes call all " + BREAKERS.size() + " breakers");

      await(
          bound,
          TRIPPING + " to open on every node",
          () -> nodes.stream().allMatch(n -> n.breaker(TRIPPING).view().state() == State.OPEN));
      List<BreakerEvent> events = events(TRIPPING, marker);
      BreakerEvent trip =
          events.stream()
              .filter(e -> e.from() == State.CLOSED && e.to() == State.OPEN)
              .findFirst()
              .orElseThrow(() -> new IllegalStateException(TRIPPING + " has no trip event"));
      long failingNodes = nodes.stream().filter(n -> n.paymentFailures.sum() > 0).count();
      say(
          TRIPPING
              + ": "
              + trip.field("failures")
              + " failures (threshold "
              + trip.field("threshold")
              + ") from "
              + failingNodes
              + " nodes tripped it fleet-wide: CLOSED -> OPEN (won by "
              + trip.field("node")
              + ")");

      await(
          bound,
          "every node to reject " + TRIPPING,
          () -> nodes.stream().allMatch(n -> n.rejected("OPEN") > 0));
      long reachedWhileDown = payments.reachedWhileDown.get();
      long rejectedWhileOpen = nodes.stream().mapToLong(n -> n.rejected("OPEN")).sum();
      payments.recover();
      say(
          TRIPPING
              + ": every node rejects locally (OPEN) without calling payments;"
              + " payments recovers while the breaker is open");

      await(
          bound,
          TRIPPING + " to close on every node",
          () -> nodes.stream().allMatch(n -> n.breaker(TRIPPING).view().state() == State.CLOSED));
      long probes = nodes.stream().mapToLong(n -> n.probes.sum()).sum();
      long busy = nodes.stream().mapToLong(n -> n.rejected("PROBES_BUSY")).sum();
      BreakerEvent closed =
          events(TRIPPING, trip.streamId()).stream()
              .filter(e -> e.from() == State.HALF_OPEN && e.to() == State.CLOSED)
              .findFirst()
              .orElseThrow(() -> new IllegalStateException(TRIPPING + " has no close event"));
      if (probes != 1 || closed.cause() != TransitionCause.PROBES_SUCCEEDED) {
        throw new IllegalStateException(
            TRIPPING + " closed after " + probes + " probes (" + closed.cause() + ")");
      }
      String prober = closed.field("node");
      say(
          TRIPPING
              + ": open window over: "
              + prober
              + " held the one probe lease ("
              + closed.field("lease")
              + "), "
              + busy
              + " calls elsewhere waited (PROBES_BUSY)");
      say(TRIPPING + ": the probe succeeded: HALF_OPEN -> CLOSED, traffic flows again");

      pause(4 * ROUND_PAUSE_MILLIS);
      running.set(false);
      stop(threads);
      for (BreakerId id : BREAKERS) {
        for (Node n : nodes) {
          State s = n.breaker(id).view().state();
          if (s != State.CLOSED) {
            throw new IllegalStateException(id + " is " + s + " on " + n.id);
          }
        }
      }
      return new Summary(
          Long.parseLong(trip.field("failures")),
          reachedWhileDown,
          rejectedWhileOpen,
          probes,
          prober,
          busy);
    } finally {
      running.set(false);
      stop(threads);
      for (Node n : nodes) {
        n.registry.close();
      }
      if (!nodes.isEmpty()) {
        say(nodes.size() + " nodes left (pending successes and heartbeats flushed)");
      }
    }
  }

  private Node join(String nodeId) {
    BreakerRegistry registry =
        BreakerRegistry.builder()
            .redisUri(redisUri)
            .nodeId(nodeId)
            .mode(Mode.HYBRID)
            .defaults(POLICY)
            .commandTimeout(Duration.ofSeconds(1))
            .connectTimeout(Duration.ofSeconds(5))
            .flushInterval(Duration.ofMillis(100))
            .refreshInterval(Duration.ofMillis(250))
            .build();
    Node n = new Node(nodeId, registry);
    for (BreakerId id : BREAKERS) {
      n.breakers.put(id, registry.breaker(id));
    }
    n.breaker(TRIPPING).onEvent(e -> observe(n, e));
    return n;
  }

  private static void observe(Node n, CircuitEvent e) {
    switch (e.type()) {
      case REJECTED -> n.rejections.computeIfAbsent(e.detail(), k -> new LongAdder()).increment();
      case PROBE_SUCCEEDED, PROBE_FAILED -> n.probes.increment();
      default -> {
        // transitions are read from the stream
      }
    }
  }

  /** One node's traffic: a call to every breaker, a pause, again, until {@code running} ends. */
  private static void traffic(Node n, Payments payments, AtomicBoolean running, long offset) {
    pause(offset);
    while (running.get()) {
      for (BreakerId id : BREAKERS) {
        if (!running.get()) {
          return;
        }
        CircuitBreaker cb = n.breaker(id);
        try {
          if (id.equals(TRIPPING)) {
            cb.call(payments::charge);
          } else {
            cb.call(() -> "ok");
          }
        } catch (CallNotPermittedException rejected) {
          // counted by the listener
        } catch (IllegalStateException failed) {
          n.paymentFailures.increment();
        }
      }
      pause(ROUND_PAUSE_MILLIS);
    }
  }

  private String lastEventId(BreakerId id) {
    List<BreakerEvent> recent = RedisBreakerStore.await(store.snapshot(id, 1)).recentEvents();
    return recent.isEmpty() ? "" : recent.get(0).streamId();
  }

  private List<BreakerEvent> events(BreakerId id, String after) {
    return RedisBreakerStore.await(store.eventsAfter(id, after, 100));
  }

  private static void await(Duration bound, String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + bound.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "timed out after " + bound.toSeconds() + " s waiting for " + what);
      }
      pause(5);
    }
  }

  private static void stop(List<Thread> threads) {
    for (Thread t : threads) {
      try {
        t.join(2_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private void say(String line) {
    out.println("demo: " + line);
    out.flush();
  }

  private static void pause(long millis) {
    if (millis <= 0) {
      return;
    }
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
