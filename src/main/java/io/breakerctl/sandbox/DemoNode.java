package io.breakerctl.sandbox;

import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.CallNotPermittedException;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * One simulated service instance of the demo: its own {@link BreakerRegistry} (its own Redis
 * connections and subscription unless LOCAL), one breaker and one loopback connection per
 * dependency, and one thread that calls every dependency in turn (one call in flight).
 */
final class DemoNode implements AutoCloseable {
  final String id;
  private final BreakerRegistry registry;
  private final List<CircuitBreaker> breakers = new ArrayList<>();
  private final List<LoopbackDependency.Client> clients = new ArrayList<>();
  private final int failing;
  private final AtomicLong outageAt = new AtomicLong();
  private final AtomicLong firstRejection = new AtomicLong();
  private final LongAdder addedNanos = new LongAdder();
  private final LongAdder admitted = new LongAdder();
  private final LongAdder calls = new LongAdder();
  private volatile boolean measuring;
  private long innerNanos;
  private boolean reached;

  DemoNode(
      String id,
      Mode mode,
      String redisUri,
      Policy policy,
      List<BreakerId> ids,
      List<Integer> ports,
      int failing) {
    this.id = id;
    this.failing = failing;
    BreakerRegistry.Builder b =
        BreakerRegistry.builder()
            .nodeId(id)
            .mode(mode)
            .defaults(policy)
            .flushInterval(Duration.ofMillis(200))
            .refreshInterval(Duration.ofMillis(500))
            // a scheduling stall of a loaded machine must not degrade a node to its fallback
            .commandTimeout(Duration.ofSeconds(1))
            .connectTimeout(Duration.ofSeconds(5));
    if (mode != Mode.LOCAL) {
      b.redisUri(redisUri);
    }
    registry = b.build();
    for (int d = 0; d < ids.size(); d++) {
      breakers.add(registry.breaker(ids.get(d)));
      clients.add(new LoopbackDependency.Client(ports.get(d)));
    }
  }

  /** Calls every dependency, pausing between rounds, until {@code running} ends or the bound. */
  void run(AtomicBoolean running, long pauseMillis, long startPauseMillis, Duration bound) {
    DemoFleet.pause(startPauseMillis);
    long deadline = System.nanoTime() + bound.toNanos();
    while (running.get() && System.nanoTime() < deadline) {
      for (int d = 0; d < breakers.size() && running.get(); d++) {
        call(d);
      }
      DemoFleet.pause(pauseMillis);
    }
  }

  private void call(int d) {
    LoopbackDependency.Client client = clients.get(d);
    reached = false;
    long start = System.nanoTime();
    try {
      breakers
          .get(d)
          .call(
              () -> {
                reached = true;
                long s = System.nanoTime();
                try {
                  return client.call();
                } finally {
                  innerNanos = System.nanoTime() - s;
                }
              });
    } catch (CallNotPermittedException rejected) {
      if (d == failing && outageAt.get() > 0) {
        firstRejection.compareAndSet(0, System.currentTimeMillis());
      }
    } catch (RuntimeException failed) {
      // the dependency failed (or went away at the end): counted where it arrived
    }
    long total = System.nanoTime() - start;
    if (!measuring) {
      return;
    }
    calls.increment();
    if (reached) {
      addedNanos.add(Math.max(0, total - innerNanos));
      admitted.increment();
    }
  }

  /** From now on the node counts its calls and the time its breaker adds (after the warm-up). */
  void measure() {
    measuring = true;
  }

  /** From now on, the node notes its first rejection of the failing dependency's breaker. */
  void outageStarted(long atMillis) {
    outageAt.set(atMillis);
  }

  /** The node's first rejection of the failing breaker since the outage (0: none yet). */
  long firstRejection() {
    return firstRejection.get();
  }

  /** The state this node acts on for dependency {@code d}. */
  State state(int d) {
    return breakers.get(d).view().state();
  }

  /**
   * Time the breaker added to the calls that reached a dependency since {@link #measure()} (ns).
   */
  long addedNanos() {
    return addedNanos.sum();
  }

  /** Calls that reached a dependency since {@link #measure()}. */
  long admitted() {
    return admitted.sum();
  }

  /** Whether this node's registry has been degraded (lost Redis) at any moment since it started. */
  boolean wasDegraded() {
    return registry.degraded() || registry.storeStats().degradedNanos() > 0;
  }

  /** Calls made since {@link #measure()}, admitted or rejected. */
  long calls() {
    return calls.sum();
  }

  @Override
  public void close() {
    registry.close();
    clients.forEach(LoopbackDependency.Client::close);
  }
}
