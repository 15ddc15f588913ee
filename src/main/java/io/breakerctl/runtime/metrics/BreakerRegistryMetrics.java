package io.breakerctl.runtime.metrics;

import io.breakerctl.runtime.BackgroundTask;
import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.StoreCommand;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.store.StoreFault;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The {@link BreakerMetrics} of every breaker a node obtains through it: {@link #breaker(String)}
 * returns the registry's breaker and binds its meters the first time, tagged {@code breaker=<id>}
 * and {@code node=<the registry's node id>} (plus any common tags).
 *
 * <pre>{@code
 * BreakerRegistryMetrics metrics = BreakerRegistryMetrics.bind(registry, meterRegistry);
 * CircuitBreaker members = metrics.breaker("claims-service:member-service");
 * }</pre>
 *
 * <p>The node's Redis connection gets, tagged {@code node} and {@code command} (a {@link
 * StoreCommand} code: {@code acquire}, {@code record}, {@code flush}, {@code renew}, {@code
 * override}, {@code reassert}, {@code warm}, {@code state}, {@code stamps}, {@code canary}, {@code
 * ping}, {@code alive}, {@code warm_up}, {@code fallback_data}), {@value #REDIS_COMMANDS} (a
 * function timer: every command the node sent through its store that answered, and its round-trip
 * time) and {@value #REDIS_FAILURES} (those that failed or timed out), and, tagged {@code node}
 * only, {@value #REDIS_DEGRADED} (seconds the node has been degraded, the current degradation
 * included).
 *
 * <p>A breaker taken from the {@link BreakerRegistry} directly is not bound until it is also asked
 * for here. {@link #close()} removes every bound meter; it does not close the breaker registry.
 */
public final class BreakerRegistryMetrics implements AutoCloseable {

  /** Function timer: Redis commands this node sent, by {@code command}, and their latency. */
  public static final String REDIS_COMMANDS = "breakerctl.redis.commands";

  /** Function counter: Redis commands that failed or timed out, by {@code command}. */
  public static final String REDIS_FAILURES = "breakerctl.redis.failures";

  /** Function counter: seconds this node has been degraded (Redis unreachable). */
  public static final String REDIS_DEGRADED = "breakerctl.redis.degraded.seconds";

  /**
   * Gauge: 1 while this node is degraded for {@code reason} (a {@link StoreFault} code: {@code
   * timeout}, {@code unreachable}, {@code oom}, {@code readonly}, {@code noperm}, ...), else 0.
   */
  public static final String REDIS_DEGRADED_NOW = "breakerctl.redis.degraded";

  private final BreakerRegistry node;
  private final MeterRegistry meters;
  private final Tags tags;
  private final Map<BreakerId, BreakerMetrics> bound = new ConcurrentHashMap<>();
  private final List<Meter> storeMeters;
  private volatile boolean closed;

  private BreakerRegistryMetrics(
      BreakerRegistry node, MeterRegistry meters, Iterable<Tag> tags, MeterNaming naming) {
    this.node = Objects.requireNonNull(node, "node");
    this.naming = Objects.requireNonNull(naming, "naming");
    this.meters = Objects.requireNonNull(meters, "meters");
    this.tags = Tags.of(tags == null ? Tags.empty() : tags);
    for (BackgroundTask task : BackgroundTask.values()) {
      registryMeters.add(
          FunctionCounter.builder(
                  BACKGROUND_FAILURES, node, n -> (double) n.backgroundFailures(task))
              .description("failed attempts of the registry's background work, by task")
              .tags(this.tags)
              .tag("node", node.nodeId())
              .tag("task", task.name().toLowerCase(java.util.Locale.ROOT))
              .register(meters));
    }
    Tags t = this.tags.and("node", node.nodeId());
    List<Meter> store = new ArrayList<>();
    for (StoreCommand kind : StoreCommand.values()) {
      Tags k = t.and("command", kind.code());
      store.add(
          FunctionTimer.builder(
                  REDIS_COMMANDS,
                  node,
                  n -> n.storeStats().command(kind).count(),
                  n -> n.storeStats().command(kind).nanos(),
                  TimeUnit.NANOSECONDS)
              .description(
                  "Redis commands this node sent that answered, by kind, and their latency")
              .tags(k)
              .register(meters));
      store.add(
          FunctionCounter.builder(
                  REDIS_FAILURES, node, n -> n.storeStats().command(kind).failures())
              .description("Redis commands this node sent that failed or timed out, by kind")
              .tags(k)
              .register(meters));
    }
    store.add(
        FunctionCounter.builder(REDIS_DEGRADED, node, n -> n.storeStats().degradedNanos() / 1e9)
            .description("seconds this node has been degraded (Redis unreachable)")
            .tags(t)
            .register(meters));
    for (StoreFault fault : StoreFault.values()) {
      String code = fault.code();
      store.add(
          Gauge.builder(
                  REDIS_DEGRADED_NOW,
                  node,
                  n -> n.degradedReason().filter(code::equals).isPresent() ? 1 : 0)
              .description(
                  "1 while this node is degraded for this reason (Redis cannot coordinate)")
              .tags(t)
              .tag("reason", code)
              .register(meters));
    }
    this.storeMeters = List.copyOf(store);
  }

  /** The registry-level counter of failed background attempts (tags {@code node}, {@code task}). */
  public static final String BACKGROUND_FAILURES = "breakerctl.registry.background.failures";

  private final List<Meter> registryMeters = new ArrayList<>();
  private final MeterNaming naming;

  /** Meters of {@code node}'s breakers in {@code meters}, tagged with breaker and node ids. */
  public static BreakerRegistryMetrics bind(BreakerRegistry node, MeterRegistry meters) {
    return new BreakerRegistryMetrics(node, meters, Tags.empty(), MeterNaming.BREAKERCTL);
  }

  /** Likewise, with {@code tags} added to every meter (e.g. {@code service}, {@code zone}). */
  public static BreakerRegistryMetrics bind(
      BreakerRegistry node, MeterRegistry meters, Iterable<Tag> tags) {
    return new BreakerRegistryMetrics(node, meters, tags, MeterNaming.BREAKERCTL);
  }

  /**
   * Likewise, each breaker's meters under {@code naming} ({@link MeterNaming#WITH_RESILIENCE4J}:
   * also under Resilience4j's names, so its dashboards and alerts work on this fleet).
   */
  public static BreakerRegistryMetrics bind(
      BreakerRegistry node, MeterRegistry meters, Iterable<Tag> tags, MeterNaming naming) {
    return new BreakerRegistryMetrics(node, meters, tags, naming);
  }

  /** The registry's breaker with this id, its meters bound (once). */
  public CircuitBreaker breaker(String id) {
    return breaker(BreakerId.parse(id));
  }

  /**
   * The registry's breaker with this id, its meters bound (once).
   *
   * @throws IllegalStateException after {@link #close()}
   */
  public CircuitBreaker breaker(BreakerId id) {
    if (closed) {
      throw new IllegalStateException("breaker metrics of " + node.nodeId() + " are closed");
    }
    CircuitBreaker breaker = node.breaker(id);
    bound.computeIfAbsent(
        id,
        k -> {
          BreakerMetrics m = BreakerMetrics.of(breaker, node.nodeId(), tags, naming);
          m.bindTo(meters);
          return m;
        });
    return breaker;
  }

  /** Removes the meters of every breaker bound here. */
  @Override
  public void close() {
    closed = true;
    storeMeters.forEach(meters::remove);
    bound.values().forEach(BreakerMetrics::close);
    bound.clear();
    registryMeters.forEach(meters::remove);
    registryMeters.clear();
  }
}
