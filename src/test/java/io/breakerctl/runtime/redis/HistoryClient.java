package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.model.AdmissionReason;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.store.AcquireResult;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.OverrideResult;
import io.breakerctl.runtime.store.RecordResult;
import io.breakerctl.runtime.store.RenewResult;
import io.breakerctl.runtime.store.StoreFutures;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * One client of {@code HistoryCheckIT}: drives a breaker with random operations through {@link
 * RedisFleetStore} until a deadline and logs each operation with what it saw ({@link HistoryOp}). A
 * node's client acquires (naming its lease), reports outcomes of admitted calls with their
 * generation, success batches and failures without one, and for a granted lease a probe outcome
 * (sometimes twice), a release, or nothing (abandoned: its outcome is sent late, after the lease
 * expired or the generation moved on). An operator's client sets, lets expire and clears overrides.
 * An answer that does not come (error, timeout, killed connection) is logged as unknown; after an
 * unknown acquire the client gives the lease back as the runtime does.
 */
final class HistoryClient implements Runnable {

  /** How long the history's open window lasts; probe failures double it up to twice this. */
  static final Duration OPEN = Duration.ofMillis(150);

  /** How long a history probe lease lasts. */
  static final Duration PROBE_LEASE = Duration.ofMillis(300);

  /** How long a history probe may hold its slot (renewed every ~100 ms while it "runs"). */
  static final Duration MAX_PROBE = Duration.ofMillis(500);

  private static final int MAX_LATE = 16;

  private final RedisFleetStore store;
  private final BreakerId id;
  private final Policy policy;
  private final String node;
  private final boolean operator;
  private final Random random;
  private final long endNanos;
  private final Duration wait;
  private final List<HistoryOp> log;
  private final Deque<Late> late = new ArrayDeque<>();
  private final Map<String, Integer> errors = new TreeMap<>();
  private int seq;

  /** An abandoned lease whose outcome is still to be sent. */
  private record Late(String lease, String generation, long untilMillis, boolean success) {}

  /**
   * A client.
   *
   * @param operator whether this client is an operator (overrides only) instead of a node
   * @param endNanos {@link System#nanoTime()} at which it stops
   * @param wait the longest it waits for one answer (then the operation is unknown)
   * @param log where it appends what it did; only this client's thread writes it
   */
  HistoryClient(
      RedisFleetStore store,
      BreakerId id,
      int permits,
      String node,
      boolean operator,
      long seed,
      long endNanos,
      Duration wait,
      List<HistoryOp> log) {
    this.store = store;
    this.id = id;
    this.policy = policy(permits);
    this.node = node;
    this.operator = operator;
    this.random = new Random(seed);
    this.endNanos = endNanos;
    this.wait = wait;
    this.log = log;
  }

  /**
   * The history's policy: a trip after 4 failures in a second, short open windows and leases, so
   * that a few seconds hold many trips, half-open windows, probes and closes.
   */
  static Policy policy(int permits) {
    return Policy.builder()
        .failureThreshold(4)
        .window(Duration.ofSeconds(1))
        .open(OPEN)
        .maxOpen(OPEN.multipliedBy(2))
        .halfOpenPermits(permits)
        .probeLease(PROBE_LEASE)
        .maxProbe(MAX_PROBE)
        .build();
  }

  @Override
  public void run() {
    while (System.nanoTime() < endNanos) {
      if (operator) {
        override();
        pause(300 + random.nextInt(600));
      } else {
        step();
      }
    }
  }

  /** Unknown answers by error, e.g. {@code StoreUnavailableException=12}. */
  Map<String, Integer> errors() {
    return errors;
  }

  private void step() {
    Late next = late.peek();
    if (next != null
        && (System.currentTimeMillis() > next.untilMillis() + 20 || random.nextInt(20) == 0)) {
      late.poll();
      record(next.success() ? 0 : 1, next.success() ? 1 : 0, next.generation(), next.lease());
    }
    int r = random.nextInt(100);
    if (r < 70) {
      acquire();
    } else if (r < 85) {
      record(0, 1 + random.nextInt(5), "", "");
    } else {
      record(1, 0, "", "");
    }
    pause(random.nextInt(3));
  }

  private void acquire() {
    String lease = node + "." + ++seq;
    AcquireResult a;
    try {
      a = StoreFutures.await(store.acquire(id, node, policy, lease), wait);
    } catch (RuntimeException e) {
      unknown(e);
      log.add(HistoryOp.AcquireOp.unknown(node, lease));
      // the acquire may have run and granted a lease nobody holds: give it back
      record(0, 0, "", lease);
      return;
    }
    log.add(
        new HistoryOp.AcquireOp(
            node,
            lease,
            true,
            a.allowed(),
            a.reason().code(),
            a.generation(),
            a.leaseId(),
            a.untilMillis(),
            a.epoch()));
    if (!a.allowed()) {
      pause(1 + random.nextInt(8));
    } else if (a.reason() != AdmissionReason.PROBE) {
      if (random.nextInt(100) < 35) {
        record(1, 0, a.generation(), "");
      } else {
        record(0, 1, a.generation(), "");
      }
    } else {
      probe(a);
    }
  }

  private void probe(AcquireResult a) {
    pause(random.nextInt(40)); // the probe's call
    if (random.nextInt(100) < 35) {
      // a slow call: its node renews the lease while it runs, some past maxProbe
      for (int n = 1 + random.nextInt(6); n > 0; n--) {
        pause(70 + random.nextInt(60));
        if (!renew(a.leaseId(), a.generation())) {
          break;
        }
      }
    }
    boolean success = random.nextInt(100) < 65;
    int r = random.nextInt(100);
    if (r < 70) {
      record(success ? 0 : 1, success ? 1 : 0, a.generation(), a.leaseId());
      if (random.nextInt(3) == 0) {
        // a duplicate (a retry after a lost answer would send one): must not count twice
        record(success ? 0 : 1, success ? 1 : 0, a.generation(), a.leaseId());
      }
    } else if (r < 82) {
      record(0, 0, "", a.leaseId());
    } else {
      if (late.size() == MAX_LATE) {
        late.poll();
      }
      late.add(new Late(a.leaseId(), a.generation(), a.untilMillis(), success));
    }
  }

  /** Renews {@code lease}; whether the client still holds it. */
  private boolean renew(String lease, String generation) {
    RenewResult r;
    try {
      r = StoreFutures.await(store.renew(id, node, policy, lease, generation), wait);
    } catch (RuntimeException e) {
      unknown(e);
      log.add(HistoryOp.RenewOp.unknown(node, lease, generation));
      return true; // the store decides; the next renewal or the outcome learns it
    }
    log.add(
        new HistoryOp.RenewOp(
            node,
            lease,
            generation,
            true,
            r.outcome().code(),
            r.untilMillis(),
            r.generation(),
            r.epoch()));
    return r.outcome().held();
  }

  private void record(long failures, long successes, String generation, String lease) {
    RecordResult r;
    try {
      r =
          StoreFutures.await(
              store.record(
                  id, new Outcome(node, failures, successes, -1, generation, lease), policy),
              wait);
    } catch (RuntimeException e) {
      unknown(e);
      log.add(HistoryOp.RecordOp.unknown(node, failures, successes, generation, lease));
      return;
    }
    log.add(
        new HistoryOp.RecordOp(
            node,
            failures,
            successes,
            generation,
            lease,
            true,
            r.accepted(),
            r.reason().code(),
            r.transitioned(),
            r.generation(),
            r.eventId(),
            r.epoch()));
  }

  private void override() {
    int r = random.nextInt(100);
    OverrideKind kind =
        r < 40
            ? OverrideKind.FORCED_OPEN
            : r < 60
                ? OverrideKind.FORCED_CLOSED
                : r < 70 ? OverrideKind.METRICS_ONLY : r < 80 ? OverrideKind.DISABLED : null;
    OverrideRequest request =
        kind == null
            ? new OverrideRequest(OverrideKind.CLEAR, node, "history check", Duration.ZERO, "")
            : new OverrideRequest(
                kind, node, "history check", Duration.ofMillis(80 + random.nextInt(170)), "");
    OverrideResult o;
    try {
      o = StoreFutures.await(store.override(id, request), wait);
    } catch (RuntimeException e) {
      unknown(e);
      log.add(HistoryOp.OverrideOp.unknown(node, request.kind().name()));
      return;
    }
    log.add(
        new HistoryOp.OverrideOp(
            node,
            request.kind().name(),
            true,
            o.changed(),
            o.outcome().name(),
            o.generation(),
            o.eventId(),
            o.epoch()));
  }

  private void unknown(RuntimeException e) {
    errors.merge(e.getClass().getSimpleName(), 1, Integer::sum);
    pause(30 + random.nextInt(50)); // a reconnecting client rejects at once: do not spin
  }

  private static void pause(long millis) {
    if (millis <= 0) {
      return;
    }
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
