package io.breakerctl.runtime;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.sandbox.LoopbackDependency;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * N nodes (separate registries, each with its own connections and its own connection to a {@link
 * LoopbackDependency}) calling through one breaker, one call in flight per node, with the default
 * command timeout unless told otherwise: the fleet of the degraded-decision tests and their child
 * JVMs ({@link LoopbackFleetMain}).
 */
final class LoopbackFleet implements AutoCloseable {

  /** How the nodes are configured. */
  record Options(
      Mode mode,
      Policy policy,
      Duration commandTimeout,
      Duration refresh,
      Duration flush,
      Duration lastKnownFor) {
    Options(Mode mode, Policy policy, Duration commandTimeout, Duration refresh, Duration flush) {
      this(mode, policy, commandTimeout, refresh, flush, null);
    }

    Options {
      lastKnownFor = lastKnownFor == null ? Duration.ofSeconds(30) : lastKnownFor;
      commandTimeout = commandTimeout == null ? Duration.ofMillis(50) : commandTimeout;
      refresh = refresh == null ? Duration.ofSeconds(1) : refresh;
      flush = flush == null ? Duration.ofSeconds(1) : flush;
    }
  }

  final List<BreakerRegistry> registries = new ArrayList<>();
  final List<CircuitBreaker> breakers = new ArrayList<>();
  private final List<LoopbackDependency.Client> clients = new ArrayList<>();
  final long[] firstRejection;
  final AtomicLong admitted = new AtomicLong();

  /**
   * Each admitted call: its node, when the decision began and when it returned (wall clock ms:
   * {@code node@began/returned:reason[:lease]}). A verdict on a decision takes both: a node whose
   * state changes while it decides (a RECOVERED between the two) decided in the state it began in.
   */
  final java.util.concurrent.ConcurrentLinkedQueue<String> admissions =
      new java.util.concurrent.ConcurrentLinkedQueue<>();

  /**
   * Each node's degraded periods ({@code node@fromMillis-toMillis}, wall clock; {@code to} 0 while
   * still degraded at close), from its breaker's DEGRADED and RECOVERED events.
   */
  final java.util.concurrent.ConcurrentLinkedQueue<String> degradations =
      new java.util.concurrent.ConcurrentLinkedQueue<>();

  private final long[] degradedSince;

  private final AtomicBoolean running = new AtomicBoolean(true);
  private final List<Thread> threads = new ArrayList<>();

  LoopbackFleet(String uri, BreakerId id, int nodes, String prefix, int port, Options o) {
    firstRejection = new long[nodes];
    degradedSince = new long[nodes];
    for (int i = 0; i < nodes; i++) {
      BreakerRegistry r =
          BreakerRegistry.builder()
              .redisUri(uri)
              .nodeId(prefix + i)
              .mode(o.mode())
              .defaults(o.policy())
              .commandTimeout(o.commandTimeout())
              .refreshInterval(o.refresh())
              .flushInterval(o.flush())
              .lastKnownFor(o.lastKnownFor())
              .build();
      registries.add(r);
      CircuitBreaker cb = r.breaker(id);
      int node = i;
      cb.onEvent(
          e -> {
            synchronized (degradedSince) {
              if (e.type() == CircuitEvent.Type.DEGRADED && degradedSince[node] == 0) {
                degradedSince[node] = e.atMillis(); // when it began, not when the event came
              } else if (e.type() == CircuitEvent.Type.RECOVERED && degradedSince[node] != 0) {
                degradations.add(
                    node + "@" + degradedSince[node] + "-" + System.currentTimeMillis());
                degradedSince[node] = 0;
              }
            }
          });
      breakers.add(cb);
      clients.add(new LoopbackDependency.Client(port));
    }
  }

  /**
   * Builds and closes one registry, so this JVM's first registry (class loading, several seconds on
   * a loaded 2-core machine) does not make a scheduled scenario start late.
   */
  static void prewarm(String uri) {
    BreakerRegistry.builder().redisUri(uri).nodeId("prewarm").build().close();
  }

  /** Starts every node calling until {@link #close()}, pausing {@code pauseMillis} after each. */
  void start(long pauseMillis) {
    start(pauseMillis, false);
  }

  /**
   * Like {@link #start(long)}; with {@code spread} each node first waits a random part of one
   * pause, so the fleet's calls are spread over time as a service's traffic is, not in waves.
   */
  void start(long pauseMillis, boolean spread) {
    start(pauseMillis, spread, 0);
  }

  /**
   * Like {@link #start(long, boolean)}, but the nodes' first calls wait until {@code startAtMillis}
   * (wall clock): the threads start now, and everything the loop needs is built before it waits. A
   * fresh JVM's first string concatenation or lambda at a call site links it (ms of class
   * generation, and then the JIT compiling the generator), which a service does long before its
   * traffic; a scenario timed from its start must not make its nodes pay that at the start.
   */
  void start(long pauseMillis, boolean spread, long startAtMillis) {
    for (int i = 0; i < breakers.size(); i++) {
      int node = i;
      CircuitBreaker cb = breakers.get(i);
      LoopbackDependency.Client dep = clients.get(i);
      Runnable attempt =
          () -> {
            long began = System.currentTimeMillis();
            Permission p = cb.tryAcquire();
            if (!p.allowed()) {
              synchronized (firstRejection) {
                if (firstRejection[node] == 0) {
                  firstRejection[node] = System.currentTimeMillis();
                }
              }
              return;
            }
            admitted.incrementAndGet();
            admissions.add(
                new StringBuilder()
                    .append(node)
                    .append('@')
                    .append(began)
                    .append('/')
                    .append(System.currentTimeMillis())
                    .append(':')
                    .append(p.reason().code())
                    .append(p.lease().isEmpty() ? "" : ":" + p.lease())
                    .toString());
            long start = System.nanoTime();
            String result;
            try {
              result = dep.call();
            } catch (RuntimeException e) {
              p.onError(e, System.nanoTime() - start);
              return;
            }
            p.onResult(result, System.nanoTime() - start);
          };
      Thread t =
          new Thread(
              () -> {
                Fleet.sleep(startAtMillis - System.currentTimeMillis());
                if (spread) {
                  java.util.concurrent.locks.LockSupport.parkNanos(
                      java.util.concurrent.ThreadLocalRandom.current()
                          .nextLong(pauseMillis * 1_000_000 + 1));
                }
                long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
                while (running.get() && System.nanoTime() < deadline) {
                  attempt.run(); // the dependency fails: expected
                  Fleet.sleep(pauseMillis);
                }
              },
              "loopback-node-" + i);
      t.setDaemon(true);
      t.start();
      threads.add(t);
    }
  }

  /** Each node's first rejection (wall clock ms), 0 for a node that never rejected. */
  long[] firstRejections() {
    synchronized (firstRejection) {
      return firstRejection.clone();
    }
  }

  @Override
  public void close() {
    running.set(false);
    Fleet.stop(threads, registries);
    clients.forEach(LoopbackDependency.Client::close);
    synchronized (degradedSince) {
      for (int i = 0; i < degradedSince.length; i++) {
        if (degradedSince[i] != 0) {
          degradations.add(i + "@" + degradedSince[i] + "-0");
          degradedSince[i] = 0;
        }
      }
    }
  }
}
