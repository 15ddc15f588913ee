package io.breakerctl.runtime.metrics;

import io.breakerctl.runtime.BackgroundTask;
import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.model.BreakerId;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

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
 * <p>A breaker taken from the {@link BreakerRegistry} directly is not bound until it is also asked
 * for here. {@link #close()} removes every bound meter; it does not close the breaker registry.
 */
public final class BreakerRegistryMetrics implements AutoCloseable {

  private final BreakerRegistry node;
  private final MeterRegistry meters;
  private final Tags tags;
  private final Map<BreakerId, BreakerMetrics> bound = new ConcurrentHashMap<>();
  private volatile boolean closed;

  private BreakerRegistryMetrics(BreakerRegistry node, MeterRegistry meters, Iterable<Tag> tags) {
    this.node = Objects.requireNonNull(node, "node");
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
  }

  /** The registry-level counter of failed background attempts (tags {@code node}, {@code task}). */
  public static final String BACKGROUND_FAILURES = "breakerctl.registry.background.failures";

  private final List<Meter> registryMeters = new ArrayList<>();

  /** Meters of {@code node}'s breakers in {@code meters}, tagged with breaker and node ids. */
  public static BreakerRegistryMetrics bind(BreakerRegistry node, MeterRegistry meters) {
    return new BreakerRegistryMetrics(node, meters, Tags.empty());
  }

  /** Likewise, with {@code tags} added to every meter (e.g. {@code service}, {@code zone}). */
  public static BreakerRegistryMetrics bind(
      BreakerRegistry node, MeterRegistry meters, Iterable<Tag> tags) {
    return new BreakerRegistryMetrics(node, meters, tags);
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
          BreakerMetrics m = BreakerMetrics.of(breaker, node.nodeId(), tags);
          m.bindTo(meters);
          return m;
        });
    return breaker;
  }

  /** Removes the meters of every breaker bound here. */
  @Override
  public void close() {
    closed = true;
    bound.values().forEach(BreakerMetrics::close);
    bound.clear();
    registryMeters.forEach(meters::remove);
    registryMeters.clear();
  }
}
