package io.breakerctl.sandbox;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.AcquireResult;
import io.breakerctl.runtime.redis.NodeHeartbeat;
import io.breakerctl.runtime.redis.Outcome;
import io.breakerctl.runtime.redis.RecordResult;
import io.breakerctl.runtime.redis.RedisBreakerStore;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;

/**
 * A small simulated fleet for {@code breakerctl demo}: three nodes share five breakers through the
 * same Lua scripts the runtime uses ({@link RedisBreakerStore#acquire} and {@link
 * RedisBreakerStore#record}). {@code checkout:payments} trips after failures from several nodes,
 * rejects while open, elects one probe fleet-wide when half-open and closes on its success; the
 * others stay closed with traffic and heartbeats.
 */
public final class DemoFleet {

  /** The policy id the demo warms into every breaker. */
  public static final String POLICY_ID = "*:*";

  /** The breaker that trips and recovers. */
  public static final BreakerId TRIPPING = BreakerId.parse("checkout:payments");

  /** Every breaker the demo drives. */
  public static final List<BreakerId> BREAKERS =
      List.of(
          TRIPPING,
          BreakerId.parse("checkout:inventory"),
          BreakerId.parse("claims:members"),
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

  private static final String ACTOR = "breakerctl-demo";

  private final RedisBreakerStore store;
  private final PrintWriter out;

  /** A demo driving {@code store}, narrating to {@code out}. */
  public DemoFleet(RedisBreakerStore store, PrintWriter out) {
    this.store = store;
    this.out = out;
  }

  /**
   * Runs the scenario once; returns when {@link #TRIPPING} is closed again.
   *
   * @param bound the longest the recovery may take before the demo gives up
   * @throws IllegalStateException when a step does not behave as the scripts promise
   */
  public void run(Duration bound) {
    for (BreakerId id : BREAKERS) {
      RedisBreakerStore.await(store.warm(id, POLICY_ID, 1, POLICY, ACTOR));
    }
    say(
        "warmed policy "
            + POLICY_ID
            + " v1 (threshold 5, open 1s) into "
            + BREAKERS.size()
            + " breakers");
    for (BreakerId id : BREAKERS) {
      for (String node : NODES) {
        record(id, Outcome.successes(node, 40), node, State.CLOSED);
      }
    }
    say(NODES.size() + " nodes sent traffic and heartbeats to every breaker");
    BreakerId members = BreakerId.parse("claims:members");
    for (int i = 0; i < 2; i++) {
      AcquireResult a = acquire(members, NODES.get(i));
      record(members, Outcome.failure(NODES.get(i), a.generation()), NODES.get(i), State.CLOSED);
    }
    say("claims:members: 2 failures, below the threshold: stays CLOSED");

    RecordResult trip = null;
    for (int i = 0; i < POLICY.failureThreshold(); i++) {
      String node = NODES.get(i % NODES.size());
      AcquireResult a = acquire(TRIPPING, node);
      RecordResult r = record(TRIPPING, Outcome.failure(node, a.generation()), node, null);
      if (r.transitioned()) {
        trip = r;
      }
    }
    if (trip == null || trip.state() != State.OPEN) {
      throw new IllegalStateException(TRIPPING + " did not trip after 5 failures");
    }
    say(
        TRIPPING
            + ": "
            + trip.windowFailures()
            + " failures from "
            + NODES.size()
            + " nodes tripped it fleet-wide: CLOSED -> OPEN");
    for (String node : NODES) {
      heartbeat(TRIPPING, node, State.OPEN);
    }
    AcquireResult rejected = acquire(TRIPPING, "node-b");
    if (rejected.allowed()) {
      throw new IllegalStateException(TRIPPING + " admitted a call while open");
    }
    say(
        TRIPPING
            + ": node-b's call rejected ("
            + rejected.reason()
            + ") without touching the"
            + " dependency");

    long deadline = System.nanoTime() + bound.toNanos();
    AcquireResult probe;
    while (true) {
      probe = acquire(TRIPPING, "node-a");
      if (probe.allowed()) {
        break;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            TRIPPING + " was still " + probe.reason() + " after " + bound.toSeconds() + " s");
      }
      sleep(100);
    }
    AcquireResult busy = acquire(TRIPPING, "node-c");
    say(
        TRIPPING
            + ": open window over: node-a holds the one probe lease ("
            + probe.leaseId()
            + "); node-c "
            + (busy.allowed() ? "also admitted (!)" : "waits (" + busy.reason() + ")"));
    RecordResult closed =
        record(
            TRIPPING,
            Outcome.probe("node-a", probe.generation(), probe.leaseId(), true),
            "node-a",
            null);
    if (closed.state() != State.CLOSED) {
      throw new IllegalStateException(TRIPPING + " is " + closed.state() + " after a good probe");
    }
    for (String node : NODES) {
      record(TRIPPING, Outcome.successes(node, 10), node, State.CLOSED);
    }
    say(TRIPPING + ": the probe succeeded: HALF_OPEN -> CLOSED, traffic flows again");
  }

  private AcquireResult acquire(BreakerId id, String node) {
    return RedisBreakerStore.await(store.acquire(id, node, POLICY));
  }

  private RecordResult record(BreakerId id, Outcome outcome, String node, State heartbeat) {
    NodeHeartbeat hb =
        heartbeat == null ? null : new NodeHeartbeat(node, heartbeat, POLICY_ID, 1, false, 0);
    return RedisBreakerStore.await(store.record(id, outcome, POLICY, hb));
  }

  private void heartbeat(BreakerId id, String node, State state) {
    record(id, Outcome.successes(node, 0), node, state);
  }

  private void say(String line) {
    out.println("demo: " + line);
    out.flush();
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
