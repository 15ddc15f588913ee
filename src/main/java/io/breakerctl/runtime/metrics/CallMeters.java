package io.breakerctl.runtime.metrics;

import io.breakerctl.runtime.CallObserver;
import io.breakerctl.runtime.CallOutcome;
import io.breakerctl.runtime.model.FallbackPolicy;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The per-call meters of one breaker, resolved once at binding: a call increments an array slot's
 * meter and allocates nothing. Tag values come from enums (bounded cardinality).
 */
final class CallMeters implements CallObserver {
  private final Timer[] calls = new Timer[CallOutcome.values().length];
  private final Counter[] fallbacks = new Counter[FallbackPolicy.values().length];

  /** By kind and reason, registered at the first such call (reasons are a fixed set). */
  private final java.util.concurrent.ConcurrentHashMap<String, Counter> unavailable =
      new java.util.concurrent.ConcurrentHashMap<>();

  private final MeterRegistry registry;
  private final Tags tags;
  private final List<Meter> meters;
  private final Counter leaseDenied;
  private final Counter retries;
  private final Counter budgetExhausted;
  private final Timer fallbackAge;
  private final Counter degradedResponses;
  private final Counter plainResponses;
  private final Counter deferredStored;
  private final Counter deferredDone;
  private final Counter deferredFailed;
  private final Counter deferredQuarantined;
  private final AtomicLong deferredPending = new AtomicLong();

  /** When the newest approved snapshot was captured (epoch ms), -1: none or not read yet. */
  private final AtomicLong newestApproved = new AtomicLong(-1);

  /**
   * Registers the meters; {@code previous} (null at the first binding) gives the background figures
   * (pending deferred requests, newest approved snapshot) the gauges start from.
   */
  CallMeters(
      MeterRegistry registry,
      Tags tags,
      List<Meter> meters,
      Counter leaseDenied,
      CallMeters previous) {
    if (previous != null) {
      deferredPending.set(previous.deferredPending.get());
      newestApproved.set(previous.newestApproved.get());
    }
    this.leaseDenied = leaseDenied;
    this.registry = registry;
    this.tags = tags;
    this.meters = meters;
    for (CallOutcome o : CallOutcome.values()) {
      if (o != CallOutcome.REJECTED) {
        calls[o.ordinal()] =
            add(
                meters,
                Timer.builder(BreakerMetrics.CALLS)
                    .description("permitted calls by outcome and their downstream latency")
                    .tags(tags.and("outcome", o.code()))
                    .register(registry));
      }
    }
    add(
        meters,
        FunctionCounter.builder(BreakerMetrics.CALLS_ALLOWED, this, CallMeters::allowed)
            .description("permitted calls that reported an outcome")
            .tags(tags)
            .register(registry));
    for (FallbackPolicy k : FallbackPolicy.values()) {
      if (k != FallbackPolicy.NONE) {
        fallbacks[k.ordinal()] =
            counter(
                registry,
                meters,
                BreakerMetrics.FALLBACKS,
                "fallback answers by kind",
                tags.and("kind", k.name().toLowerCase(Locale.ROOT)));
      }
    }
    retries = counter(registry, meters, BreakerMetrics.RETRIES, "retries started", tags);
    budgetExhausted =
        counter(
            registry,
            meters,
            BreakerMetrics.RETRY_BUDGET_EXHAUSTED,
            "retries not made: the retry budget was spent",
            tags);
    fallbackAge =
        add(
            meters,
            Timer.builder(BreakerMetrics.FALLBACK_AGE)
                .description("age of the cached data a fallback served")
                .tags(tags)
                .register(registry));
    degradedResponses =
        counter(
            registry,
            meters,
            BreakerMetrics.RESPONSES,
            "answers by who gave them",
            tags.and("degraded", "true"));
    plainResponses =
        counter(
            registry,
            meters,
            BreakerMetrics.RESPONSES,
            "answers by who gave them",
            tags.and("degraded", "false"));
    deferredStored =
        counter(registry, meters, BreakerMetrics.DEFERRED_STORED, "deferred requests stored", tags);
    deferredDone =
        counter(
            registry,
            meters,
            BreakerMetrics.DEFERRED_FINISHED,
            "deferred requests finished",
            tags.and("result", "done"));
    deferredFailed =
        counter(
            registry,
            meters,
            BreakerMetrics.DEFERRED_FINISHED,
            "deferred requests finished",
            tags.and("result", "failed"));
    deferredQuarantined =
        counter(
            registry,
            meters,
            BreakerMetrics.DEFERRED_FINISHED,
            "deferred requests finished",
            tags.and("result", "quarantined"));
    add(
        meters,
        Gauge.builder(BreakerMetrics.DEFERRED_PENDING, deferredPending, AtomicLong::get)
            .description("deferred requests of the breaker pending fleet-wide, as last counted")
            .tags(tags)
            .register(registry));
    add(
        meters,
        Gauge.builder(BreakerMetrics.SNAPSHOT_AGE, newestApproved, CallMeters::ageSeconds)
            .description("age of the breaker's newest approved snapshot, as last read")
            .tags(tags)
            .register(registry));
  }

  private static double ageSeconds(AtomicLong capturedAt) {
    long at = capturedAt.get();
    return at < 0 ? Double.NaN : Math.max(0, System.currentTimeMillis() - at) / 1000.0;
  }

  private static <M extends Meter> M add(List<Meter> meters, M meter) {
    meters.add(meter);
    return meter;
  }

  private static Counter counter(
      MeterRegistry registry, List<Meter> meters, String name, String description, Tags tags) {
    return add(
        meters, Counter.builder(name).description(description).tags(tags).register(registry));
  }

  private double allowed() {
    long n = 0;
    for (Timer t : calls) {
      if (t != null) {
        n += t.count();
      }
    }
    return n;
  }

  @Override
  public void outcome(CallOutcome outcome, long nanos) {
    record(calls, outcome, nanos);
  }

  /** Records a call of {@code nanos} in the timer of {@code outcome} (none: not recorded). */
  static void record(Timer[] byOutcome, CallOutcome outcome, long nanos) {
    Timer t = byOutcome[outcome.ordinal()];
    if (t != null) {
      t.record(nanos, TimeUnit.NANOSECONDS);
    }
  }

  @Override
  public void leaseAcquireTimedOut() {
    leaseDenied.increment();
  }

  @Override
  public void retried(int attempt) {
    retries.increment();
  }

  @Override
  public void retryBudgetExhausted() {
    budgetExhausted.increment();
  }

  @Override
  public void fallback(FallbackPolicy kind, long ageMillis) {
    Counter c = fallbacks[kind.ordinal()];
    if (c != null) {
      c.increment();
    }
    if (ageMillis >= 0) {
      fallbackAge.record(ageMillis, TimeUnit.MILLISECONDS);
    }
  }

  @Override
  public void fallbackUnavailable(FallbackPolicy kind) {
    fallbackUnavailable(kind, "unknown");
  }

  @Override
  public void fallbackUnavailable(FallbackPolicy kind, String reason) {
    String k = kind.name().toLowerCase(Locale.ROOT);
    unavailable
        .computeIfAbsent(
            k + "|" + reason,
            x ->
                counter(
                    registry,
                    meters,
                    BreakerMetrics.FALLBACK_UNAVAILABLE,
                    "calls whose fallback could not serve, by kind and reason",
                    tags.and("kind", k, "reason", reason)))
        .increment();
  }

  @Override
  public void response(boolean degraded) {
    (degraded ? degradedResponses : plainResponses).increment();
  }

  @Override
  public void deferredStored() {
    deferredStored.increment();
  }

  @Override
  public void deferredQuarantined() {
    deferredQuarantined.increment();
  }

  @Override
  public void deferredFinished(boolean done) {
    (done ? deferredDone : deferredFailed).increment();
  }

  @Override
  public void newestApprovedSnapshot(long capturedAtMillis) {
    newestApproved.set(capturedAtMillis);
  }

  @Override
  public void deferredPending(long count) {
    deferredPending.set(count);
  }
}
