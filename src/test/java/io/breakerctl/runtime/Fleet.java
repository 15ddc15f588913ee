package io.breakerctl.runtime;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * N nodes (separate registries, each with its own connections) calling one failing dependency, one
 * call in flight per node, for the fleet tests and their child-process twin.
 */
final class Fleet implements AutoCloseable {

  /**
   * The failing dependency: counts and timestamps every call that reaches it, and counts apart the
   * calls a node made after it had itself rejected once (it knew the breaker was open, so only a
   * probe lease can have admitted them).
   */
  static final class Dependency {
    final AtomicLong reached = new AtomicLong();
    final AtomicLong afterRejection = new AtomicLong();
    final ConcurrentLinkedQueue<Long> times = new ConcurrentLinkedQueue<>();
    private final AtomicLongArray beforeRejectionByNode;
    private final AtomicLongArray afterRejectionByNode;

    Dependency(int nodes) {
      beforeRejectionByNode = new AtomicLongArray(nodes);
      afterRejectionByNode = new AtomicLongArray(nodes);
    }

    String call(int node, boolean nodeHadRejected) {
      reached.incrementAndGet();
      times.add(System.currentTimeMillis());
      if (nodeHadRejected) {
        afterRejection.incrementAndGet();
        afterRejectionByNode.incrementAndGet(node);
      } else {
        beforeRejectionByNode.incrementAndGet(node);
      }
      throw new IllegalStateException("dependency down");
    }

    /** Calls node {@code node} made before its first rejection. */
    long beforeRejection(int node) {
      return beforeRejectionByNode.get(node);
    }

    /** Calls node {@code node} made after its first rejection. */
    long afterRejection(int node) {
      return afterRejectionByNode.get(node);
    }
  }

  final List<BreakerRegistry> registries = new ArrayList<>();
  final List<CircuitBreaker> breakers = new ArrayList<>();
  final long[] firstRejection;
  final Dependency dependency;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final List<Thread> threads = new ArrayList<>();

  Fleet(String uri, BreakerId id, Mode mode, int nodes, String nodePrefix, Policy policy) {
    firstRejection = new long[nodes];
    dependency = new Dependency(nodes);
    for (int i = 0; i < nodes; i++) {
      BreakerRegistry.Builder b =
          BreakerRegistry.builder()
              .nodeId(nodePrefix + i)
              .mode(mode)
              .defaults(policy)
              .flushInterval(Duration.ofMillis(200))
              .refreshInterval(Duration.ofMillis(500))
              // coordination under test, not faults: a scheduling stall of the shared 2-core
              // machine must not degrade a node to its local fallback (RuntimeFaultsIT covers that)
              .commandTimeout(Duration.ofSeconds(1));
      if (mode != Mode.LOCAL) {
        b.redisUri(uri);
      }
      BreakerRegistry r = b.build();
      registries.add(r);
      breakers.add(r.breaker(id));
    }
  }

  /**
   * Starts every node calling until {@link #close()}, pausing {@code pauseMillis} after each call.
   */
  void start(long pauseMillis) {
    for (int i = 0; i < breakers.size(); i++) {
      int node = i;
      CircuitBreaker cb = breakers.get(i);
      Thread t =
          new Thread(
              () -> {
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (running.get() && System.nanoTime() < deadline) {
                  boolean hadRejected;
                  synchronized (firstRejection) {
                    hadRejected = firstRejection[node] != 0;
                  }
                  try {
                    cb.call(() -> dependency.call(node, hadRejected));
                  } catch (CallNotPermittedException e) {
                    synchronized (firstRejection) {
                      if (firstRejection[node] == 0) {
                        firstRejection[node] = System.currentTimeMillis();
                      }
                    }
                  } catch (RuntimeException e) {
                    // the dependency failed: expected
                  }
                  sleep(pauseMillis);
                }
              },
              "fleet-node-" + i);
      t.setDaemon(true);
      t.start();
      threads.add(t);
    }
  }

  /** The time every node had rejected at least once, or 0 if some node has not yet. */
  long allRejectedAt() {
    synchronized (firstRejection) {
      long last = 0;
      for (long t : firstRejection) {
        if (t == 0) {
          return 0;
        }
        last = Math.max(last, t);
      }
      return last;
    }
  }

  long reachedBetween(long fromMillis, long toMillis) {
    return dependency.times.stream().filter(t -> t >= fromMillis && t < toMillis).count();
  }

  static void sleep(long millis) {
    if (millis <= 0) {
      return;
    }
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops the nodes (their calls end, the registries close); a second close does nothing. */
  @Override
  public void close() {
    if (!running.getAndSet(false)) {
      return;
    }
    stop(threads, registries);
  }

  /** Joins the node threads (bounded) and closes the registries. */
  static void stop(List<Thread> threads, List<BreakerRegistry> registries) {
    for (Thread t : threads) {
      try {
        t.join(2000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    registries.forEach(BreakerRegistry::close);
  }
}
