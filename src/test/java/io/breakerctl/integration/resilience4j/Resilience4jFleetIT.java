package io.breakerctl.integration.resilience4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.breakerctl.runtime.model.Policy;
import io.breakerctl.testing.RedisExtension;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig.SlidingWindowType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Three nodes (three breakerctl registries, each with its own connections) on one real
 * redis-server, each wrapping a call with Resilience4j's own {@code executeSupplier} through the
 * adapter: they share one breaker.
 */
@DisplayName("Resilience4j-decorated calls on three breakerctl nodes share one breaker")
class Resilience4jFleetIT {

  @RegisterExtension static final RedisExtension redis = RedisExtension.standalone();

  private static final AtomicInteger SEQ = new AtomicInteger();
  private static final int NODES = 3;
  private static final int MINIMUM_CALLS = 4;
  private static final Duration WAIT = Duration.ofMillis(500);

  /** Rate 50 % once 4 calls are in the window; a fixed 500 ms open window; one probe. */
  static final CircuitBreakerConfig CONFIG =
      CircuitBreakerConfig.custom()
          .failureRateThreshold(50)
          .slidingWindow(60, MINIMUM_CALLS, SlidingWindowType.TIME_BASED)
          .waitDurationInOpenState(WAIT)
          .permittedNumberOfCallsInHalfOpenState(1)
          .ignoreExceptions(IllegalArgumentException.class)
          .recordResult("bad"::equals)
          .build();

  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
  }

  /** The instance {@code members} on each of three nodes of a fresh application. */
  private List<CircuitBreaker> fleet() {
    String app = "r4j" + SEQ.incrementAndGet();
    List<CircuitBreaker> out = new ArrayList<>();
    for (int i = 0; i < NODES; i++) {
      BreakerctlCircuitBreakerRegistry r =
          Nodes.node(redis.uri(), app, i)
              // a lease that outlives every bound below: only a release frees a slot in time
              .basePolicy(Policy.builder().probeLease(Duration.ofSeconds(60)).build())
              .build();
      open.add(r);
      out.add(r.circuitBreaker("members"));
    }
    return out;
  }

  /** The dependency: counts the calls that reach it; fails, or holds them, or answers. */
  static final class Dependency {
    final AtomicInteger reached = new AtomicInteger();
    volatile CountDownLatch hold = new CountDownLatch(0);
    volatile boolean healthy;

    String call() {
      reached.incrementAndGet();
      try {
        hold.await(Nodes.BOUND.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (healthy) {
        return "ok";
      }
      throw new IllegalStateException("dependency down");
    }
  }

  private static void failOnce(CircuitBreaker cb, Dependency dep) {
    assertThatThrownBy(() -> cb.executeSupplier(dep::call))
        .isInstanceOf(IllegalStateException.class);
  }

  private static boolean all(List<CircuitBreaker> cbs, CircuitBreaker.State state) {
    return cbs.stream().allMatch(cb -> cb.getState() == state);
  }

  /** Trips the fleet with {@link #MINIMUM_CALLS} failures, one node after another. */
  private static void trip(List<CircuitBreaker> cbs, Dependency dep) {
    for (int i = 0; i < MINIMUM_CALLS; i++) {
      failOnce(cbs.get(i % NODES), dep);
    }
    Nodes.await("every node sees the trip", () -> all(cbs, CircuitBreaker.State.OPEN));
  }

  @Test
  @DisplayName(
      "the fleet trips on its 4th failure in total (no node had 4), every node then throws"
          + " CallNotPermittedException, and every node's consumers see the transition")
  void tripsOnTheFleetsFailures() {
    List<CircuitBreaker> cbs = fleet();
    Dependency dep = new Dependency();
    List<List<String>> transitions = new ArrayList<>();
    AtomicLongArray errors = new AtomicLongArray(NODES);
    AtomicLongArray notPermitted = new AtomicLongArray(NODES);
    for (int i = 0; i < NODES; i++) {
      int n = i;
      List<String> seen = java.util.Collections.synchronizedList(new ArrayList<>());
      transitions.add(seen);
      cbs.get(i)
          .getEventPublisher()
          .onStateTransition(e -> seen.add(e.getStateTransition().name()))
          .onError(e -> errors.incrementAndGet(n))
          .onCallNotPermitted(e -> notPermitted.incrementAndGet(n));
    }

    for (int i = 0; i < MINIMUM_CALLS - 1; i++) {
      failOnce(cbs.get(i % NODES), dep);
    }
    assertThat(cbs).allMatch(cb -> cb.getState() == CircuitBreaker.State.CLOSED);
    failOnce(cbs.get(0), dep);
    Nodes.await("every node sees the trip", () -> all(cbs, CircuitBreaker.State.OPEN));

    assertThat(dep.reached).as("threshold in total, not threshold x nodes").hasValue(MINIMUM_CALLS);
    for (int i = 0; i < NODES; i++) {
      CircuitBreaker cb = cbs.get(i);
      assertThatThrownBy(() -> cb.executeSupplier(dep::call))
          .isInstanceOf(CallNotPermittedException.class)
          .hasMessageContaining("'members'");
      assertThat(cb.getMetrics().getNumberOfNotPermittedCalls()).isEqualTo(1);
      assertThat(notPermitted.get(i)).isEqualTo(1);
      assertThat(errors.get(i)).as("node %d's own errors", i).isEqualTo(i == 0 ? 2 : 1);
      List<String> seen = transitions.get(i);
      Nodes.await("node " + i + " was told of the trip", () -> seen.contains("CLOSED_TO_OPEN"));
    }
    assertThat(dep.reached).hasValue(MINIMUM_CALLS);
  }

  @Test
  @DisplayName(
      "exactly one probe per half-open window reaches the dependency while every node calls; a"
          + " failed probe reopens, a successful one closes the fleet")
  void oneProbePerWindow() {
    List<CircuitBreaker> cbs = fleet();
    Dependency dep = new Dependency();
    trip(cbs, dep);
    dep.hold = new CountDownLatch(1);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLongArray rejected = new AtomicLongArray(NODES);
    List<Thread> callers = new ArrayList<>();
    for (int i = 0; i < NODES; i++) {
      CircuitBreaker cb = cbs.get(i);
      int n = i;
      Supplier<String> decorated = cb.decorateSupplier(dep::call);
      Thread t =
          new Thread(
              () -> {
                while (!stop.get()) {
                  try {
                    decorated.get();
                  } catch (CallNotPermittedException e) {
                    rejected.incrementAndGet(n);
                  } catch (IllegalStateException e) {
                    // the failed probe
                  }
                  Nodes.sleep(1);
                }
              },
              "caller-" + i);
      t.start();
      callers.add(t);
    }
    try {
      for (int window = 1; window <= 2; window++) {
        int reached = MINIMUM_CALLS + window;
        Nodes.await("window " + window + "'s probe", () -> dep.reached.get() >= reached);
        long[] before = snapshot(rejected);
        Nodes.await(
            "every node but the probing one rejects 20 more calls",
            () -> moreRejections(rejected, before, 20) >= NODES - 1);
        assertThat(dep.reached).as("one probe in window %d", window).hasValue(reached);
        if (window == 2) {
          dep.healthy = true;
        }
        CountDownLatch held = dep.hold;
        dep.hold = window == 2 ? new CountDownLatch(0) : new CountDownLatch(1);
        held.countDown();
      }
      Nodes.await(
          "a successful probe closes every node", () -> all(cbs, CircuitBreaker.State.CLOSED));
    } finally {
      stop.set(true);
      dep.hold.countDown();
    }
    for (Thread t : callers) {
      try {
        t.join(Nodes.BOUND.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static long[] snapshot(AtomicLongArray a) {
    long[] out = new long[a.length()];
    for (int i = 0; i < out.length; i++) {
      out[i] = a.get(i);
    }
    return out;
  }

  private static int moreRejections(AtomicLongArray a, long[] before, int more) {
    int nodes = 0;
    for (int i = 0; i < before.length; i++) {
      if (a.get(i) - before[i] >= more) {
        nodes++;
      }
    }
    return nodes;
  }

  @Test
  @DisplayName(
      "releasePermission gives the probe lease back: another node probes at once, not after the"
          + " lease's 60 s")
  void releaseFreesTheProbeSlot() {
    List<CircuitBreaker> cbs = fleet();
    Dependency dep = new Dependency();
    trip(cbs, dep);
    CircuitBreaker first = cbs.get(0);
    CircuitBreaker second = cbs.get(1);

    Nodes.await("the first node gets the probe", first::tryAcquirePermission);
    assertThat(second.tryAcquirePermission()).as("the one slot is held").isFalse();
    first.releasePermission();
    long released = System.nanoTime();
    Nodes.await("the second node gets the probe", second::tryAcquirePermission);
    assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofSeconds(60));
    second.onSuccess(1, TimeUnit.MILLISECONDS);

    Nodes.await(
        "the second node's probe closes every node", () -> all(cbs, CircuitBreaker.State.CLOSED));
    assertThat(dep.reached).hasValue(MINIMUM_CALLS);
  }

  @Test
  @DisplayName(
      "the instance config's classification holds on every node: ignored exceptions never trip,"
          + " a result recordResult matches trips the fleet")
  void classification() {
    List<CircuitBreaker> cbs = fleet();
    for (int i = 0; i < 5 * NODES; i++) {
      CircuitBreaker cb = cbs.get(i % NODES);
      assertThatThrownBy(
              () ->
                  cb.executeSupplier(
                      () -> {
                        throw new IllegalArgumentException("caller error");
                      }))
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThat(cbs).allMatch(cb -> cb.getState() == CircuitBreaker.State.CLOSED);

    for (int i = 0; i < MINIMUM_CALLS; i++) {
      assertThat(cbs.get(i % NODES).executeSupplier(() -> "bad")).isEqualTo("bad");
    }

    Nodes.await("the bad results trip the fleet", () -> all(cbs, CircuitBreaker.State.OPEN));
  }
}
