package io.breakerctl.runtime.metrics;

import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.CircuitEvent;
import io.breakerctl.runtime.model.Criticality;
import io.breakerctl.runtime.model.State;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.ToDoubleFunction;

/**
 * Micrometer meters of one {@link CircuitBreaker}, as this node sees it.
 *
 * <p>Gauges (read from {@link CircuitBreaker#view()} when the registry polls):
 *
 * <ul>
 *   <li>{@value #STATE}: one gauge per {@link State} with tag {@code state} ({@code CLOSED}, {@code
 *       OPEN}, {@code HALF_OPEN}, {@code FORCED_OPEN}, {@code FORCED_CLOSED}, {@code DISABLED},
 *       {@code METRICS_ONLY}); the one for the state the node acts on now is 1, the others 0;
 *   <li>{@value #DEGRADED}: 1 while the breaker's Redis master does not answer and the node decides
 *       alone, else 0;
 *   <li>{@value #PENDING_SUCCESSES}: successes counted locally and not yet flushed to Redis;
 *   <li>{@value #POLICY_VERSION}: the version of the policy in force (0: the registry's defaults);
 *   <li>{@value #WINDOW_FAILURES}, {@value #WINDOW_CALLS} and {@value #WINDOW_FAILURE_RATE} (in
 *       percent, as {@code failureRateThreshold} reads it): the failure window the breaker trips on
 *       ({@link io.breakerctl.runtime.BreakerView#windowFailures()}).
 * </ul>
 *
 * <p>Counters (from the breaker's {@linkplain CircuitBreaker#onEvent events}):
 *
 * <ul>
 *   <li>{@value #REJECTIONS}, tag {@code reason} ({@code OPEN}, {@code FORCED_OPEN}, {@code
 *       PROBES_BUSY}, {@code PROBE_PENDING}, ...): calls this node rejected;
 *   <li>{@value #TRANSITIONS}, tags {@code from} and {@code to}: state changes this node saw (won
 *       here or learned from the fleet: every node counts a fleet-wide trip once, so sum over nodes
 *       with care; the breaker's event stream is the fleet's history);
 *   <li>{@value #PROBES}, tag {@code outcome} ({@code success}, {@code failure}, {@code timed_out}:
 *       held its slot for {@code maxProbeSeconds}): half-open probes this node ran;
 *   <li>{@value #PROBE_RENEWALS}: renewals of the leases of probes this node was running (a slow
 *       probe keeps its slot).
 * </ul>
 *
 * <p>Per call (from the breaker's {@link CircuitBreaker#observe observer}, pre-resolved meters, no
 * allocation): {@value #CALLS} by outcome with latency, {@value #CALLS_ALLOWED}, {@value
 * #LEASE_DENIED}, and what the retry and fallback helpers report ({@value #RETRIES}, {@value
 * #RETRY_BUDGET_EXHAUSTED}, {@value #FALLBACKS}, {@value #FALLBACK_AGE}, {@value #RESPONSES},
 * {@value #DEFERRED_STORED}, {@value #DEFERRED_FINISHED}, {@value #DEFERRED_PENDING}, {@value
 * #SNAPSHOT_AGE}).
 *
 * <p>Every meter carries {@code breaker=<id>}, {@code caller} and {@code dependency} (the id's
 * segments; never a business key), {@code criticality} (the policy's {@link
 * io.breakerctl.runtime.model.Criticality}: a policy that changes it registers the meters again
 * under the new value, their counts starting again) and, when known, {@code node=<node id>}, plus
 * any extra tags given. Bind once per breaker and meter registry:
 *
 * <pre>{@code
 * CircuitBreaker members = registry.breaker("claims-service:member-service");
 * BreakerMetrics.bind(registry, members, meterRegistry);   // tags breaker and node
 * }</pre>
 *
 * <p>or let {@link BreakerRegistryMetrics} bind every breaker a node obtains through it. Under
 * {@link MeterNaming#WITH_RESILIENCE4J} the binder also registers the meters Resilience4j's own
 * binder would ({@code resilience4j.circuitbreaker.*}, tag {@code name}; see {@code
 * Resilience4jMeters} for what each carries), beside these. {@link #close()} removes the event
 * listener and the meters. Gauges hold the breaker strongly until then.
 */
public final class BreakerMetrics implements MeterBinder, AutoCloseable {

  /** Gauge: 1 for the state in force, 0 for the others (tag {@code state}). */
  public static final String STATE = "breakerctl.breaker.state";

  /** Gauge: 1 while the node is degraded (Redis unreachable), else 0. */
  public static final String DEGRADED = "breakerctl.breaker.degraded";

  /** Gauge: successes not yet flushed to Redis. */
  public static final String PENDING_SUCCESSES = "breakerctl.breaker.pending.successes";

  /** Gauge: the version of the policy in force (0: the registry's defaults). */
  public static final String POLICY_VERSION = "breakerctl.breaker.policy.version";

  /**
   * Gauge: failures in the window the breaker trips on, as of the last outcome counted in it (the
   * fleet's window as Redis last answered this node, or the node's own machine: {@link
   * io.breakerctl.runtime.BreakerView#windowFailures()}).
   */
  public static final String WINDOW_FAILURES = "breakerctl.breaker.window.failures";

  /** Gauge: calls in that window. */
  public static final String WINDOW_CALLS = "breakerctl.breaker.window.calls";

  /** Gauge: the window's failure rate in percent (0 while it holds no call). */
  public static final String WINDOW_FAILURE_RATE = "breakerctl.breaker.window.failure.rate";

  /** Counter: rejected calls (tag {@code reason}). */
  public static final String REJECTIONS = "breakerctl.breaker.rejections";

  /** Counter: state changes seen by this node (tags {@code from}, {@code to}). */
  public static final String TRANSITIONS = "breakerctl.breaker.transitions";

  /** Counter: probes this node ran (tag {@code outcome}: {@code success} or {@code failure}). */
  public static final String PROBES = "breakerctl.breaker.probes";

  /** Counter: lease renewals of the probes this node ran. */
  public static final String PROBE_RENEWALS = "breakerctl.breaker.probe.renewals";

  /**
   * Timer: permitted calls by outcome ({@code success}, {@code failure}, {@code timeout}, {@code
   * slow}, {@code ignored}, {@code rate_limited}) and their downstream latency.
   */
  public static final String CALLS = "breakerctl.breaker.calls";

  /** Function counter: permitted calls that reported an outcome (the sum of {@link #CALLS}). */
  public static final String CALLS_ALLOWED = "breakerctl.breaker.calls.allowed";

  /**
   * Counter: half-open acquires denied for lease contention: the probe leases were taken ({@code
   * PROBES_BUSY}), or the acquire timed out and the call was refused without a lease ({@code
   * NO_LEASE} after a timeout, {@link io.breakerctl.runtime.CallObserver#leaseAcquireTimedOut()}).
   */
  public static final String LEASE_DENIED = "breakerctl.breaker.lease.denied";

  /** Counter: retries started by {@code Retry}. */
  public static final String RETRIES = "breakerctl.breaker.retries";

  /** Counter: retries not made because the retry budget was spent. */
  public static final String RETRY_BUDGET_EXHAUSTED = "breakerctl.breaker.retry.budget.exhausted";

  /** Counter: fallback answers (tag {@code kind}: cached, static_default, deferred, ...). */
  public static final String FALLBACKS = "breakerctl.breaker.fallbacks";

  /**
   * Counter: calls whose fallback could not serve (tags {@code kind} and {@code reason}, an {@link
   * io.breakerctl.runtime.fallback.Unserved} code: {@code not_found}, {@code malformed}, {@code
   * control_unavailable}, ...), answered with a controlled failure; registered at the first.
   */
  public static final String FALLBACK_UNAVAILABLE = "breakerctl.breaker.fallback.unavailable";

  /** Timer: the age of the cached data a fallback served. */
  public static final String FALLBACK_AGE = "breakerctl.breaker.fallback.age";

  /** Counter: answers of calls through a fallback chain (tag {@code degraded}: true, false). */
  public static final String RESPONSES = "breakerctl.breaker.responses";

  /** Counter: deferred requests stored. */
  public static final String DEFERRED_STORED = "breakerctl.breaker.deferred.stored";

  /** Counter: deferred requests finished on this node (tag {@code result}: done, failed). */
  public static final String DEFERRED_FINISHED = "breakerctl.breaker.deferred.finished";

  /**
   * Gauge: deferred requests of the breaker pending in the control plane, fleet-wide and uncapped,
   * as last counted in the background (every {@code pendingCountInterval}, 5 s by default).
   */
  public static final String DEFERRED_PENDING = "breakerctl.breaker.deferred.pending";

  /**
   * Gauge: seconds since the breaker's newest approved, unexpired snapshot was captured, as last
   * read in the background by its {@code Fallbacks} (every {@code snapshotAgeInterval}, 30 s by
   * default); NaN while there is none or none was read (no snapshot store).
   */
  public static final String SNAPSHOT_AGE = "breakerctl.breaker.snapshot.age";

  private final CircuitBreaker breaker;
  private final Tags tags;

  /** {@link #tags} with {@code criticality}, as the meters are registered now. */
  private volatile Tags meterTags;

  private volatile Criticality criticality;
  private final List<Meter> meters = new CopyOnWriteArrayList<>();
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private volatile MeterRegistry registry;
  private volatile AutoCloseable listener;
  private volatile AutoCloseable observation;
  private volatile AutoCloseable resilience4jObservation;
  private final MeterNaming naming;
  private CallMeters calls;
  private volatile boolean closed;

  private BreakerMetrics(
      CircuitBreaker breaker, String nodeId, Iterable<Tag> extraTags, MeterNaming naming) {
    this.breaker = Objects.requireNonNull(breaker, "breaker");
    this.naming = Objects.requireNonNull(naming, "naming");
    Tags t =
        Tags.of(
            "breaker",
            breaker.id().toString(),
            "caller",
            breaker.id().caller(),
            "dependency",
            breaker.id().dependency());
    if (nodeId != null && !nodeId.isBlank()) {
      t = t.and("node", nodeId);
    }
    this.tags = t.and(extraTags == null ? Tags.empty() : extraTags);
  }

  /** A binder for {@code breaker} tagged with its id's tags only. Call {@link #bindTo}. */
  public static BreakerMetrics of(CircuitBreaker breaker) {
    return new BreakerMetrics(breaker, null, Tags.empty(), MeterNaming.BREAKERCTL);
  }

  /**
   * A binder for {@code breaker} tagged {@code breaker=<id>}, {@code node=<nodeId>} (omitted when
   * null or blank) and {@code extraTags}. Call {@link #bindTo}.
   */
  public static BreakerMetrics of(CircuitBreaker breaker, String nodeId, Iterable<Tag> extraTags) {
    return new BreakerMetrics(breaker, nodeId, extraTags, MeterNaming.BREAKERCTL);
  }

  /**
   * Likewise, under {@code naming}: {@link MeterNaming#WITH_RESILIENCE4J} also registers the meters
   * Resilience4j's binder gives its own breakers. Call {@link #bindTo}.
   */
  public static BreakerMetrics of(
      CircuitBreaker breaker, String nodeId, Iterable<Tag> extraTags, MeterNaming naming) {
    return new BreakerMetrics(breaker, nodeId, extraTags, naming);
  }

  /** Binds {@code breaker}'s meters (tag {@code breaker}) to {@code meters}. */
  public static BreakerMetrics bind(CircuitBreaker breaker, MeterRegistry meters) {
    BreakerMetrics m = of(breaker);
    m.bindTo(meters);
    return m;
  }

  /**
   * Binds the meters of {@code breaker}, obtained from {@code node}, to {@code meters}, tagged with
   * the breaker's id and the node's id.
   */
  public static BreakerMetrics bind(
      BreakerRegistry node, CircuitBreaker breaker, MeterRegistry meters) {
    BreakerMetrics m = of(breaker, node.nodeId(), Tags.empty());
    m.bindTo(meters);
    return m;
  }

  /**
   * The tags every meter of this binder carries, besides {@code criticality} (the policy's {@link
   * io.breakerctl.runtime.model.Policy#criticality()}, registered again when a policy changes it).
   */
  public Tags tags() {
    return tags;
  }

  /**
   * Registers the gauges and starts counting events. A binder binds to one meter registry once.
   *
   * @throws IllegalStateException when already bound or closed
   */
  @Override
  public synchronized void bindTo(MeterRegistry meters) {
    Objects.requireNonNull(meters, "meters");
    if (registry != null || closed) {
      throw new IllegalStateException(
          "metrics of " + breaker.id() + " are already bound or closed");
    }
    registry = meters;
    register(breaker.view().policy().criticality());
    listener = breaker.onEvent(this::onEvent);
  }

  /**
   * Registers every meter tagged {@code criticality} (the policy's) and starts observing calls;
   * under this monitor.
   */
  private void register(Criticality c) {
    criticality = c;
    meterTags = tags.and("criticality", c.name());
    MeterRegistry meters = registry;
    for (State s : State.values()) {
      gauge(
          STATE,
          "1 for the state the node acts on now, 0 for the others",
          Tags.of("state", s.name()),
          b -> b.view().state() == s ? 1 : 0);
    }
    gauge(
        DEGRADED,
        "1 while Redis is unreachable and the node decides alone",
        Tags.empty(),
        b -> b.view().degraded() ? 1 : 0);
    gauge(
        PENDING_SUCCESSES,
        "successes counted locally, not yet flushed to Redis",
        Tags.empty(),
        b -> b.view().pendingSuccesses());
    gauge(
        POLICY_VERSION,
        "version of the policy in force (0: the registry's defaults)",
        Tags.empty(),
        b -> b.view().policyVersion());
    gauge(
        WINDOW_FAILURES,
        "failures in the window the breaker trips on, as of the last outcome counted",
        Tags.empty(),
        b -> b.view().windowFailures());
    gauge(
        WINDOW_CALLS,
        "calls in the window the breaker trips on, as of the last outcome counted",
        Tags.empty(),
        b -> b.view().windowCalls());
    gauge(
        WINDOW_FAILURE_RATE,
        "failure rate of the window the breaker trips on, in percent",
        Tags.empty(),
        b -> b.view().failureRate());
    counter(PROBES, "outcome", "success");
    counter(PROBES, "outcome", "failure");
    counter(PROBES, "outcome", "timed_out");
    counter(PROBE_RENEWALS);
    Counter leaseDenied = counter(LEASE_DENIED);
    // a re-tag keeps the background figures of the previous meters until their next report
    calls = new CallMeters(meters, meterTags, this.meters, leaseDenied, calls);
    observation = breaker.observe(calls);
    if (naming == MeterNaming.WITH_RESILIENCE4J) {
      Tags named = Tags.of(meterTags.stream().filter(t -> !t.getKey().equals("breaker")).toList());
      resilience4jObservation =
          breaker.observe(new Resilience4jMeters(breaker, meters, named, this.meters));
    }
  }

  /**
   * A policy whose criticality differs from the tag's: the meters are registered again under the
   * new tag (their counts start again, as a new series).
   */
  private synchronized void retag() {
    Criticality c = breaker.view().policy().criticality();
    if (closed || c == criticality) {
      return;
    }
    closeQuietly(observation);
    closeQuietly(resilience4jObservation);
    meters.forEach(registry::remove);
    meters.clear();
    counters.clear();
    register(c);
  }

  private void gauge(
      String name, String description, Tags extra, ToDoubleFunction<CircuitBreaker> value) {
    meters.add(
        Gauge.builder(name, breaker, value)
            .description(description)
            .tags(meterTags.and(extra))
            .strongReference(true)
            .register(registry));
  }

  private void onEvent(CircuitEvent e) {
    switch (e.type()) {
      case REJECTED -> {
        increment(REJECTIONS, "reason", e.detail());
        if ("PROBES_BUSY".equals(e.detail())) {
          increment(LEASE_DENIED);
        }
      }
      case TRANSITION -> increment(TRANSITIONS, "from", e.from().name(), "to", e.to().name());
      case PROBE_SUCCEEDED -> increment(PROBES, "outcome", "success");
      case PROBE_FAILED -> increment(PROBES, "outcome", "failure");
      case PROBE_TIMED_OUT -> increment(PROBES, "outcome", "timed_out");
      case PROBE_RENEWED -> increment(PROBE_RENEWALS);
      case POLICY_ADOPTED -> retag();
      default -> {
        // DEGRADED, RECOVERED, POLICY_ADOPTED: visible in the gauges
      }
    }
  }

  private void increment(String name, String... keyValues) {
    Counter c = counters.get(key(name, keyValues));
    if (c == null) {
      c = counter(name, keyValues);
    }
    if (c != null) {
      c.increment();
    }
  }

  private static String key(String name, String... keyValues) {
    return name + '|' + String.join("|", keyValues);
  }

  /** Registers a counter (rare: once per tag combination); null once closed. */
  private synchronized Counter counter(String name, String... keyValues) {
    if (closed) {
      return null;
    }
    return counters.computeIfAbsent(
        key(name, keyValues),
        k -> {
          Counter created =
              Counter.builder(name)
                  .description(description(name))
                  .tags(meterTags.and(keyValues))
                  .register(registry);
          meters.add(created);
          return created;
        });
  }

  private static String description(String counter) {
    return switch (counter) {
      case REJECTIONS -> "calls the breaker rejected on this node";
      case TRANSITIONS -> "state changes this node saw (won here or learned from the fleet)";
      case LEASE_DENIED -> "half-open acquires denied: the probe leases were taken, or timed out";
      case PROBE_RENEWALS -> "lease renewals of probes this node was running";
      default -> "half-open probes this node ran";
    };
  }

  private static void closeQuietly(AutoCloseable l) {
    if (l != null) {
      try {
        l.close();
      } catch (Exception e) {
        // removing a listener cannot fail in practice; nothing to do
      }
    }
  }

  /** Stops counting events and removes every meter of this binder from its registry. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    closeQuietly(listener);
    closeQuietly(observation);
    closeQuietly(resilience4jObservation);
    MeterRegistry r = registry;
    if (r != null) {
      meters.forEach(r::remove);
    }
    meters.clear();
    counters.clear();
  }
}
