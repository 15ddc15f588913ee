package io.breakerctl.runtime;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Nodes (separate registries) with several caller threads each, calling a dependency that fails at
 * once until {@code failFastUntil} and after it hangs {@code hangMillis} before failing: a slow
 * dependency, not a dead one. The dependency records each call's start and end (wall-clock ms), so
 * a test counts the calls in flight at it at any moment, across processes on one host. For {@link
 * SlowProbeIT} and its child-process twin {@link SlowFleetMain}.
 */
final class SlowFleet implements AutoCloseable {

  /**
   * A call at the dependency: when it started and ended (wall-clock ms; end 0: still running), the
   * node that admitted it, and how (the permission's reason, whether it carried a lease, and
   * whether the node was degraded when it admitted the call), so a failed count says which decision
   * let each call through.
   */
  record Call(long start, long end, String node, String how) {
    @Override
    public String toString() {
      return start + ":" + end + ":" + node + ":" + how;
    }

    static Call parse(String s) {
      String[] f = s.split(":", 4);
      return new Call(Long.parseLong(f[0]), Long.parseLong(f[1]), f[2], f[3]);
    }
  }

  /** What a node saw happen, in order (wall-clock ms): each breaker's events, for a failure. */
  final ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();

  /** A {@code failFastUntil} of {@link #start}: fail at once until the breaker tripped. */
  static final long UNTIL_THE_TRIP = -1;

  final List<BreakerRegistry> registries = new ArrayList<>();
  final List<CircuitBreaker> breakers = new ArrayList<>();
  final ConcurrentLinkedQueue<Call> calls = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final AtomicBoolean tripSeen = new AtomicBoolean();
  private final List<Thread> threads = new ArrayList<>();

  SlowFleet(String uri, BreakerId id, Mode mode, int nodes, String nodePrefix, Policy policy) {
    for (int i = 0; i < nodes; i++) {
      BreakerRegistry r =
          BreakerRegistry.builder()
              .redisUri(uri)
              .nodeId(nodePrefix + i)
              .mode(mode)
              .defaults(policy)
              .flushInterval(Duration.ofMillis(200))
              .refreshInterval(Duration.ofMillis(500))
              .commandTimeout(Duration.ofSeconds(1))
              .build();
      registries.add(r);
      CircuitBreaker cb = r.breaker(id);
      String node = r.nodeId();
      cb.onEvent(
          e -> {
            if (e.type() != CircuitEvent.Type.REJECTED) {
              events.add(
                  e.atMillis()
                      + " "
                      + node
                      + " "
                      + e.type()
                      + " "
                      + e.to()
                      + (e.detail().isEmpty() ? "" : " " + e.detail())
                      + (e.source() == null ? "" : " " + e.source()));
            }
          });
      breakers.add(cb);
    }
  }

  /**
   * Starts {@code callers} threads per node until {@code stopAt} (wall ms) or {@link #close()}: the
   * dependency fails at once before {@code failFastUntil}, then hangs {@code hangMillis} and fails
   * (a negative {@code hangMillis}: then it answers at once, recovered). A negative {@code
   * failFastUntil} ({@link #UNTIL_THE_TRIP}): it fails at once until this fleet saw the breaker
   * trip (a rejection, or a state other than CLOSED), and hangs every call after that, however late
   * the callers start on a loaded machine (a call that hangs before the trip would keep the breaker
   * from ever tripping).
   */
  void start(int callers, long failFastUntil, long hangMillis, long stopAt) {
    for (int b = 0; b < breakers.size(); b++) {
      CircuitBreaker cb = breakers.get(b);
      BreakerRegistry registry = registries.get(b);
      for (int c = 0; c < callers; c++) {
        Thread t =
            new Thread(
                () -> {
                  while (running.get() && System.currentTimeMillis() < stopAt) {
                    if (failFastUntil < 0 && cb.view().state() != State.CLOSED) {
                      tripSeen.set(true);
                    }
                    boolean degradedBefore = registry.degraded();
                    Permission p = cb.tryAcquire();
                    if (!p.allowed()) {
                      tripSeen.set(true);
                      Fleet.sleep(20);
                      continue;
                    }
                    String how =
                        p.reason()
                            + (p.lease().isEmpty() ? "" : "+lease")
                            + (degradedBefore || registry.degraded() ? "+degraded" : "");
                    long start = System.currentTimeMillis();
                    long began = System.nanoTime();
                    boolean slow = failFastUntil < 0 ? tripSeen.get() : start >= failFastUntil;
                    if (slow && hangMillis < 0) {
                      calls.add(
                          new Call(
                              start, start, registry.nodeId(), how)); // recovered: answers at once
                      p.onSuccess(System.nanoTime() - began);
                      continue;
                    }
                    if (slow) {
                      Fleet.sleep(Math.min(hangMillis, Math.max(0, stopAt + 1_000 - start)));
                    }
                    long end = System.currentTimeMillis();
                    calls.add(new Call(start, end, registry.nodeId(), how));
                    p.onFailure(
                        new IllegalStateException("dependency down"), System.nanoTime() - began);
                  }
                },
                "slow-caller");
        t.setDaemon(true);
        t.start();
        threads.add(t);
      }
    }
  }

  /** Waits for the callers (each ends at its stop time, or one hang after it). */
  void join(Duration limit) throws InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    for (Thread t : threads) {
      t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
    }
  }

  @Override
  public void close() {
    running.set(false);
    Fleet.stop(threads, registries);
  }
}
