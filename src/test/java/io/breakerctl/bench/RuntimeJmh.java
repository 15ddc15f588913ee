package io.breakerctl.bench;

import io.breakerctl.integration.resilience4j.BreakerctlCircuitBreakerRegistry;
import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.FailureClassifier;
import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.Permission;
import io.breakerctl.runtime.metrics.BreakerMetrics;
import io.breakerctl.runtime.metrics.BreakerRegistryMetrics;
import io.breakerctl.runtime.metrics.ObservedBreaker;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.micrometer.tagged.TaggedCircuitBreakerMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * JMH benchmarks of the closed-state hot path (run by {@link RuntimeBench}, which passes the Redis
 * URI of the server it started as the {@code redisUri} parameter and sets forks and iterations).
 *
 * <ul>
 *   <li>{@code hybrid*}: a HYBRID breaker (real registry on a real redis-server, default options: 1
 *       s refresh, 1 s batched flush) — {@code tryAcquire()} then {@code onSuccess(nanos)};
 *   <li>{@code resilience4j*}: Resilience4j's default breaker — {@code tryAcquirePermission()} then
 *       {@code onSuccess(duration, NANOSECONDS)}.
 * </ul>
 *
 * and, with failure classification and metrics enabled on both sides:
 *
 * <ul>
 *   <li>{@code classified*}: the same HYBRID path with a custom {@code FailureClassifier} (ignored
 *       and recorded exception types, a result predicate) and {@code BreakerMetrics} bound to a
 *       {@code SimpleMeterRegistry} — {@code tryAcquire()} then {@code onResult(result, nanos)};
 *   <li>{@code r4jMetrics*}: Resilience4j's default breaker with the same classification ({@code
 *       ignoreExceptions}, {@code recordExceptions}, {@code recordResult}) and {@code
 *       TaggedCircuitBreakerMetrics} bound to a {@code SimpleMeterRegistry} — {@code
 *       tryAcquirePermission()} then {@code onResult(duration, NANOSECONDS, result)}.
 * </ul>
 *
 * and the Resilience4j adapter ({@code io.breakerctl.integration.resilience4j}) over a HYBRID
 * breaker, called as Resilience4j's own breaker is:
 *
 * <ul>
 *   <li>{@code adapter*}: Resilience4j's default config, beside {@code resilience4j*};
 *   <li>{@code adapterMetrics*}: the classification of {@code r4jMetrics*} and {@code
 *       TaggedCircuitBreakerMetrics} bound to the adapter's registry, beside {@code r4jMetrics*}.
 * </ul>
 *
 * Each with 1 and 2 threads sharing one breaker. And {@code observed1} / {@code observedNoop1}: the
 * HYBRID path through {@code ObservedBreaker}, each call an Observation (a registry with one
 * handler that does nothing) or with the NOOP registry, one thread, against {@code hybrid1}.
 */
@BenchmarkMode(org.openjdk.jmh.annotations.Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RuntimeJmh {

  /** The duration reported with every success (1 ms; below any slow-call threshold). */
  static final long CALL_NANOS = 1_000_000;

  /** One HYBRID registry and breaker per trial (fork). */
  @org.openjdk.jmh.annotations.State(Scope.Benchmark)
  public static class Hybrid {
    /** The redis-server to use; set by the runner. */
    @Param("")
    public String redisUri;

    BreakerRegistry registry;
    CircuitBreaker breaker;

    /** Builds the registry and checks the breaker is on the closed, non-degraded path. */
    @Setup(Level.Trial)
    public void setUp() {
      if (redisUri == null || redisUri.isEmpty()) {
        throw new IllegalStateException("redisUri parameter not set: run RuntimeBench");
      }
      registry =
          BreakerRegistry.builder()
              .redisUri(redisUri)
              .nodeId("jmh-" + ProcessHandle.current().pid())
              .mode(Mode.HYBRID)
              .defaults(policy())
              .build();
      breaker = registry.breaker(breakerName());
      if (registry.degraded() || breaker.view().state() != State.CLOSED) {
        throw new IllegalStateException("HYBRID breaker not on the closed path: " + breaker.view());
      }
    }

    /** The policy of the breaker measured. */
    Policy policy() {
      return Policy.DEFAULT;
    }

    String breakerName() {
      return "bench:jmh-hybrid";
    }

    /** Reports a degraded registry (its numbers would not be the HYBRID path) and closes it. */
    @TearDown(Level.Trial)
    public void tearDown() {
      if (registry.degraded()) {
        System.out.println("WARNING: HYBRID registry degraded during the trial");
      }
      registry.close();
    }
  }

  /**
   * The HYBRID breaker with {@code slowCallMillis} 60,000 (Resilience4j's default slow-call
   * threshold): every call is counted in flight ({@code InFlightCalls}) until it ends.
   */
  @org.openjdk.jmh.annotations.State(Scope.Benchmark)
  public static class HybridSlow extends Hybrid {
    @Override
    Policy policy() {
      return Policy.builder().slowCallMillis(60_000).build();
    }

    @Override
    String breakerName() {
      return "bench:jmh-hybrid-slow";
    }
  }

  /** Resilience4j's default breaker (count window of 100, 50% failure rate). */
  @org.openjdk.jmh.annotations.State(Scope.Benchmark)
  public static class Resilience4j {
    final io.github.resilience4j.circuitbreaker.CircuitBreaker breaker =
        io.github.resilience4j.circuitbreaker.CircuitBreaker.ofDefaults("bench");
  }

  /**
   * The HYBRID breaker wrapped by {@code ObservedBreaker}: each call an Observation in a registry
   * with one handler that does nothing (what the Observation itself costs, not a tracer's work).
   */
  @org.openjdk.jmh.annotations.State(Scope.Benchmark)
  public static class Observed {
    /** The redis-server to use; set by the runner. */
    @Param("")
    public String redisUri;

    Hybrid hybrid = new Hybrid();
    CircuitBreaker breaker;

    ObservationRegistry observations() {
      ObservationRegistry r = ObservationRegistry.create();
      r.observationConfig().observationHandler(c -> true);
      return r;
    }

    /** Builds the registry and wraps its breaker. */
    @Setup(Level.Trial)
    public void setUp() {
      hybrid.redisUri = redisUri;
      hybrid.setUp();
      breaker = ObservedBreaker.of(hybrid.breaker, observations());
    }

    /** Closes the registry. */
    @TearDown(Level.Trial)
    public void tearDown() {
      hybrid.tearDown();
    }
  }

  /** The same wrapper under {@link ObservationRegistry#NOOP} (tracing off). */
  @org.openjdk.jmh.annotations.State(Scope.Benchmark)
  public static class ObservedNoop extends Observed {
    @Override
    ObservationRegistry observations() {
      return ObservationRegistry.NOOP;
    }
  }

  private static Permission observed(Observed s) {
    Permission p = s.breaker.tryAcquire();
    if (!p.allowed()) {
      throw new IllegalStateException("rejected: " + p.reason());
    }
    p.onSuccess(CALL_NANOS);
    return p;
  }

  /** HYBRID, each call an Observation (one handler that does nothing), one thread. */
  @Benchmark
  @Threads(1)
  public Permission observed1(Observed s) {
    return observed(s);
  }

  /** HYBRID through the Observation wrapper with the NOOP registry, one thread. */
  @Benchmark
  @Threads(1)
  public Permission observedNoop1(ObservedNoop s) {
    return observed(s);
  }

  /** The result every classified call returns (a plain value: a success). */
  static final String RESULT = "member";

  /** A HYBRID breaker with a custom classifier and its Micrometer metrics bound. */
  @org.openjdk.jmh.annotations.State(Scope.Benchmark)
  public static class Classified {
    /** The redis-server to use; set by the runner. */
    @Param("")
    public String redisUri;

    Hybrid hybrid = new Hybrid();
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    CircuitBreaker breaker;

    /** Builds the registry, sets the classifier, binds the metrics. */
    @Setup(Level.Trial)
    public void setUp() {
      hybrid.redisUri = redisUri;
      hybrid.setUp();
      breaker = BreakerRegistryMetrics.bind(hybrid.registry, meters).breaker("bench:jmh-hybrid");
      breaker.classifier(
          FailureClassifier.builder()
              .ignoreExceptions(IllegalArgumentException.class)
              .recordExceptions(IOException.class, TimeoutException.class)
              .recordResult(r -> r == null)
              .build());
    }

    /** Checks the meters counted the calls, then closes the registry. */
    @TearDown(Level.Trial)
    public void tearDown() {
      if (meters.get(BreakerMetrics.CALLS).tag("outcome", "success").timer().count() == 0) {
        throw new IllegalStateException("the success timer counted nothing");
      }
      hybrid.tearDown();
    }
  }

  /** Resilience4j's default breaker with the same classification and its Micrometer metrics. */
  @org.openjdk.jmh.annotations.State(Scope.Benchmark)
  public static class Resilience4jMetrics {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    io.github.resilience4j.circuitbreaker.CircuitBreaker breaker;

    /** Builds the breaker in a registry whose metrics are bound. */
    @Setup(Level.Trial)
    public void setUp() {
      CircuitBreakerRegistry registry = CircuitBreakerRegistry.of(classifying());
      TaggedCircuitBreakerMetrics.ofCircuitBreakerRegistry(registry).bindTo(meters);
      breaker = registry.circuitBreaker("bench");
    }

    /** Checks the meters counted the calls. */
    @TearDown(Level.Trial)
    public void tearDown() {
      if (meters.get("resilience4j.circuitbreaker.calls").tag("kind", "successful").timer().count()
          == 0) {
        throw new IllegalStateException("Resilience4j's success timer counted nothing");
      }
    }
  }

  /** The Resilience4j classification both metrics variants use. */
  static CircuitBreakerConfig classifying() {
    return CircuitBreakerConfig.custom()
        .ignoreExceptions(IllegalArgumentException.class)
        .recordExceptions(IOException.class, TimeoutException.class)
        .recordResult(r -> r == null)
        .build();
  }

  /** The Resilience4j adapter's registry over a HYBRID node, Resilience4j's default config. */
  @org.openjdk.jmh.annotations.State(Scope.Benchmark)
  public static class Adapter {
    /** The redis-server to use; set by the runner. */
    @Param("")
    public String redisUri;

    BreakerctlCircuitBreakerRegistry registry;
    io.github.resilience4j.circuitbreaker.CircuitBreaker breaker;
    final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    /** Builds the registry and checks the breaker is on the closed, non-degraded path. */
    @Setup(Level.Trial)
    public void setUp() throws InterruptedException {
      registry =
          BreakerctlCircuitBreakerRegistry.builder(
                  BreakerRegistry.builder()
                      .redisUri(redisUri)
                      .nodeId("jmh-adapter-" + ProcessHandle.current().pid())
                      .mode(Mode.HYBRID))
              .application("bench")
              .defaultConfig(config())
              .build();
      bind();
      breaker = registry.circuitBreaker("jmh-adapter");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (registry.breakerRegistry().degraded() && System.nanoTime() < deadline) {
        Thread.sleep(10); // a connect slower than its 1 s bound on a busy machine
      }
      if (registry.breakerRegistry().degraded()
          || breaker.getState()
              != io.github.resilience4j.circuitbreaker.CircuitBreaker.State.CLOSED) {
        throw new IllegalStateException("adapter not on the closed path: " + breaker);
      }
    }

    CircuitBreakerConfig config() {
      return CircuitBreakerConfig.ofDefaults();
    }

    void bind() {}

    /** Closes the registry. */
    @TearDown(Level.Trial)
    public void tearDown() {
      registry.close();
    }
  }

  /** The adapter with {@link #classifying()} and Resilience4j's Micrometer metrics bound. */
  @org.openjdk.jmh.annotations.State(Scope.Benchmark)
  public static class AdapterMetrics extends Adapter {
    @Override
    CircuitBreakerConfig config() {
      return classifying();
    }

    @Override
    void bind() {
      TaggedCircuitBreakerMetrics.ofCircuitBreakerRegistry(registry).bindTo(meters);
    }

    /** Checks the meters counted the calls, then closes the registry. */
    @TearDown(Level.Trial)
    @Override
    public void tearDown() {
      if (meters.get("resilience4j.circuitbreaker.calls").tag("kind", "successful").timer().count()
          == 0) {
        throw new IllegalStateException("the adapter's success timer counted nothing");
      }
      super.tearDown();
    }
  }

  /** The adapter, Resilience4j's default config, one thread. */
  @Benchmark
  @Threads(1)
  public boolean adapter1(Adapter s) {
    return r4jSuccess(s.breaker);
  }

  /** The adapter, Resilience4j's default config, two threads on one breaker. */
  @Benchmark
  @Threads(2)
  public boolean adapter2(Adapter s) {
    return r4jSuccess(s.breaker);
  }

  /** The adapter with classification and metrics, one thread. */
  @Benchmark
  @Threads(1)
  public boolean adapterMetrics1(AdapterMetrics s) {
    return r4jResult(s.breaker);
  }

  /** The adapter with classification and metrics, two threads on one breaker. */
  @Benchmark
  @Threads(2)
  public boolean adapterMetrics2(AdapterMetrics s) {
    return r4jResult(s.breaker);
  }

  private static Permission classified(Classified s) {
    Permission p = s.breaker.tryAcquire();
    if (!p.allowed()) {
      throw new IllegalStateException("rejected: " + p.reason());
    }
    p.onResult(RESULT, CALL_NANOS);
    return p;
  }

  private static boolean r4jResult(io.github.resilience4j.circuitbreaker.CircuitBreaker cb) {
    if (!cb.tryAcquirePermission()) {
      throw new IllegalStateException("Resilience4j rejected");
    }
    cb.onResult(CALL_NANOS, TimeUnit.NANOSECONDS, RESULT);
    return true;
  }

  /** HYBRID with classification and metrics, one thread. */
  @Benchmark
  @Threads(1)
  public Permission classified1(Classified s) {
    return classified(s);
  }

  /** HYBRID with classification and metrics, two threads on one breaker. */
  @Benchmark
  @Threads(2)
  public Permission classified2(Classified s) {
    return classified(s);
  }

  /** Resilience4j with classification and metrics, one thread. */
  @Benchmark
  @Threads(1)
  public boolean r4jMetrics1(Resilience4jMetrics s) {
    return r4jResult(s.breaker);
  }

  /** Resilience4j with classification and metrics, two threads on one breaker. */
  @Benchmark
  @Threads(2)
  public boolean r4jMetrics2(Resilience4jMetrics s) {
    return r4jResult(s.breaker);
  }

  private static Permission hybrid(Hybrid s) {
    Permission p = s.breaker.tryAcquire();
    if (!p.allowed()) {
      throw new IllegalStateException("rejected: " + p.reason());
    }
    p.onSuccess(CALL_NANOS);
    return p;
  }

  private static boolean r4jSuccess(io.github.resilience4j.circuitbreaker.CircuitBreaker cb) {
    if (!cb.tryAcquirePermission()) {
      throw new IllegalStateException("Resilience4j rejected");
    }
    cb.onSuccess(CALL_NANOS, TimeUnit.NANOSECONDS);
    return true;
  }

  /** HYBRID, one thread. */
  @Benchmark
  @Threads(1)
  public Permission hybrid1(Hybrid s) {
    return hybrid(s);
  }

  /** HYBRID, two threads on one breaker. */
  @Benchmark
  @Threads(2)
  public Permission hybrid2(Hybrid s) {
    return hybrid(s);
  }

  /** HYBRID with calls counted in flight for slowCallMillis, one thread. */
  @Benchmark
  @Threads(1)
  public Permission hybridSlow1(HybridSlow s) {
    return hybrid(s);
  }

  /** HYBRID with calls counted in flight for slowCallMillis, two threads on one breaker. */
  @Benchmark
  @Threads(2)
  public Permission hybridSlow2(HybridSlow s) {
    return hybrid(s);
  }

  /** Resilience4j, one thread. */
  @Benchmark
  @Threads(1)
  public boolean resilience4j1(Resilience4j s) {
    return r4jSuccess(s.breaker);
  }

  /** Resilience4j, two threads on one breaker. */
  @Benchmark
  @Threads(2)
  public boolean resilience4j2(Resilience4j s) {
    return r4jSuccess(s.breaker);
  }
}
