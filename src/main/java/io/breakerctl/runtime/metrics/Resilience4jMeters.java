package io.breakerctl.runtime.metrics;

import io.breakerctl.runtime.CallObserver;
import io.breakerctl.runtime.CallOutcome;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.model.State;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.List;
import java.util.Locale;

/**
 * The meters of one breaker under the names, tags and values Resilience4j's Micrometer binder
 * ({@code TaggedCircuitBreakerMetrics}) gives its own breakers, so Resilience4j's dashboards and
 * alerts read a breakerctl fleet unchanged ({@link MeterNaming#WITH_RESILIENCE4J}). Tag {@code
 * name} is the breaker id; states and kinds are lower case, as Resilience4j writes them.
 *
 * <table>
 *   <caption>Resilience4j's meter, and what breakerctl reports in it</caption>
 *   <tr><th>meter</th><th>tags</th><th>value</th></tr>
 *   <tr><td>{@value #STATE}</td><td>{@code state}: closed, open, half_open, forced_open,
 *       disabled, metrics_only</td><td>1 for the state the node acts on, 0 for the others;
 *       FORCED_CLOSED (no twin) is {@code metrics_only}: every call admitted and counted, no
 *       transition (the adapter's {@code getState} says the same)</td></tr>
 *   <tr><td>{@value #CALLS}</td><td>{@code kind}: successful, failed, ignored</td><td>timer of
 *       permitted calls: SUCCESS successful; FAILURE, TIMEOUT and SLOW (a slow call counts as a
 *       failure here) failed; IGNORED and RATE_LIMITED ignored</td></tr>
 *   <tr><td>{@value #NOT_PERMITTED}</td><td>{@code kind}: not_permitted</td><td>calls
 *       rejected</td></tr>
 *   <tr><td>{@value #BUFFERED}</td><td>{@code kind}: successful, failed</td><td>the window the
 *       breaker trips on (the fleet's, as last answered)</td></tr>
 *   <tr><td>{@value #FAILURE_RATE}</td><td></td><td>percent of that window; -1 below the
 *       policy's {@code minimumCalls}, as Resilience4j reports below its minimum</td></tr>
 *   <tr><td>{@value #SLOW_CALL_RATE}</td><td></td><td>-1 always: a slow call counts as a failure
 *       in breakerctl, so there is no separate slow-call rate (Resilience4j's value for "not
 *       computed"); {@code resilience4j.circuitbreaker.slow.calls} is not emitted</td></tr>
 * </table>
 */
final class Resilience4jMeters implements CallObserver {
  static final String STATE = "resilience4j.circuitbreaker.state";
  static final String CALLS = "resilience4j.circuitbreaker.calls";
  static final String NOT_PERMITTED = "resilience4j.circuitbreaker.not.permitted.calls";
  static final String BUFFERED = "resilience4j.circuitbreaker.buffered.calls";
  static final String FAILURE_RATE = "resilience4j.circuitbreaker.failure.rate";
  static final String SLOW_CALL_RATE = "resilience4j.circuitbreaker.slow.call.rate";

  /** Resilience4j's states, in the order of its enum. */
  private static final List<String> STATES =
      List.of("closed", "open", "half_open", "forced_open", "disabled", "metrics_only");

  private final Timer[] calls = new Timer[CallOutcome.values().length];
  private final Counter notPermitted;

  /**
   * Registers the meters of {@code breaker} in {@code registry}, each also added to {@code meters};
   * {@code tags} are the binder's without its {@code breaker} tag (it is {@code name} here).
   */
  Resilience4jMeters(
      CircuitBreaker breaker, MeterRegistry registry, Tags tags, List<Meter> meters) {
    Tags named = tags.and("name", breaker.id().toString());
    for (String s : STATES) {
      meters.add(
          Gauge.builder(STATE, breaker, b -> s.equals(stateOf(b.view().state())) ? 1 : 0)
              .description("The states of the circuit breaker")
              .tags(named.and("state", s))
              .strongReference(true)
              .register(registry));
    }
    Timer successful = timer(registry, meters, named, "successful", "successful calls");
    Timer failed = timer(registry, meters, named, "failed", "failed calls");
    Timer ignored = timer(registry, meters, named, "ignored", "calls whose outcome was ignored");
    for (CallOutcome o : CallOutcome.values()) {
      calls[o.ordinal()] =
          switch (o) {
            case SUCCESS -> successful;
            case FAILURE, TIMEOUT, SLOW -> failed;
            case IGNORED, RATE_LIMITED -> ignored;
            case REJECTED -> null;
          };
    }
    notPermitted =
        Counter.builder(NOT_PERMITTED)
            .description("Total number of not permitted calls")
            .tags(named.and("kind", "not_permitted"))
            .register(registry);
    meters.add(notPermitted);
    meters.add(
        Gauge.builder(BUFFERED, breaker, b -> b.view().windowCalls() - b.view().windowFailures())
            .description("The number of buffered successful calls stored in the ring buffer")
            .tags(named.and("kind", "successful"))
            .strongReference(true)
            .register(registry));
    meters.add(
        Gauge.builder(BUFFERED, breaker, b -> b.view().windowFailures())
            .description("The number of buffered failed calls stored in the ring buffer")
            .tags(named.and("kind", "failed"))
            .strongReference(true)
            .register(registry));
    meters.add(
        Gauge.builder(FAILURE_RATE, breaker, Resilience4jMeters::failureRate)
            .description("The failure rate of the circuit breaker")
            .tags(named)
            .strongReference(true)
            .register(registry));
    meters.add(
        Gauge.builder(SLOW_CALL_RATE, breaker, b -> -1)
            .description("The slow call of the circuit breaker")
            .tags(named)
            .strongReference(true)
            .register(registry));
  }

  /** Resilience4j's name of {@code s} (lower case); FORCED_CLOSED has no twin: metrics_only. */
  static String stateOf(State s) {
    return s == State.FORCED_CLOSED ? "metrics_only" : s.name().toLowerCase(Locale.ROOT);
  }

  private static double failureRate(CircuitBreaker b) {
    var v = b.view();
    return v.windowCalls() < Math.max(1, v.policy().minimumCalls()) ? -1 : v.failureRate();
  }

  private static Timer timer(
      MeterRegistry registry, List<Meter> meters, Tags named, String kind, String what) {
    Timer t =
        Timer.builder(CALLS)
            .description("Total number of " + what)
            .tags(named.and("kind", kind))
            .register(registry);
    meters.add(t);
    return t;
  }

  @Override
  public void outcome(CallOutcome outcome, long nanos) {
    CallMeters.record(calls, outcome, nanos);
  }

  @Override
  public void rejected(State state, String reason) {
    notPermitted.increment();
  }
}
