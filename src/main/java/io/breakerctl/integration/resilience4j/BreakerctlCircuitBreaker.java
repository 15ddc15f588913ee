package io.breakerctl.integration.resilience4j;

import io.breakerctl.runtime.BreakerView;
import io.breakerctl.runtime.CallOutcome;
import io.breakerctl.runtime.Permission;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.ResultRecordedAsFailureException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;

/**
 * A Resilience4j {@link CircuitBreaker} over a breakerctl breaker: the fleet's state decides every
 * permission, and every outcome reaches the fleet's window. Get one from {@link
 * BreakerctlCircuitBreakerRegistry}; the package documentation says what each method does here.
 */
public final class BreakerctlCircuitBreaker implements CircuitBreaker, AutoCloseable {

  /** The reason of every fleet override an actuator transition makes. */
  public static final String ACTUATOR_REASON = "Resilience4j actuator transition";

  private final String name;
  private final io.breakerctl.runtime.CircuitBreaker breaker;
  private final CircuitBreakerConfig config;
  private final Map<String, String> tags;
  private final ActuatorTransitions transitions;
  private final PendingPermissions pending = new PendingPermissions();
  private final BreakerctlEvents events;
  private final LongAdder notPermitted = new LongAdder();
  private final AutoCloseable listener;

  BreakerctlCircuitBreaker(
      String name,
      io.breakerctl.runtime.CircuitBreaker breaker,
      CircuitBreakerConfig config,
      Map<String, String> tags,
      ActuatorTransitions transitions) {
    this.name = Objects.requireNonNull(name, "name");
    this.breaker = Objects.requireNonNull(breaker, "breaker");
    this.config = Objects.requireNonNull(config, "config");
    this.tags = Map.copyOf(tags);
    this.transitions = Objects.requireNonNull(transitions, "transitions");
    this.events = new BreakerctlEvents(name);
    this.listener = breaker.onEvent(events::fromBreakerctl);
  }

  /** The breakerctl id this instance name maps to. */
  public BreakerId breakerId() {
    return breaker.id();
  }

  /** The breakerctl breaker underneath (its view, its probe, its observers). */
  public io.breakerctl.runtime.CircuitBreaker breakerctl() {
    return breaker;
  }

  /** The breaker as this node sees it now, in breakerctl's terms (FORCED_CLOSED included). */
  public BreakerView view() {
    return breaker.view();
  }

  @Override
  public boolean tryAcquirePermission() {
    Permission p = breaker.tryAcquire();
    if (p.allowed()) {
      pending.granted(p);
      return true;
    }
    notPermitted.increment();
    events.callNotPermitted();
    return false;
  }

  @Override
  public void acquirePermission() {
    if (!tryAcquirePermission()) {
      throw CallNotPermittedException.createCallNotPermittedException(this);
    }
  }

  /**
   * Gives a permission back unused (Resilience4j calls it when a permitted call does not run): it
   * counts neither way, and a half-open probe lease goes back to the fleet at once, so another node
   * can probe without waiting for the lease's expiry.
   */
  @Override
  public void releasePermission() {
    Permission p = pending.take();
    if (p != null) {
      p.onIgnored();
    }
  }

  @Override
  public void onError(long duration, TimeUnit unit, Throwable throwable) {
    Throwable error =
        (throwable instanceof CompletionException || throwable instanceof ExecutionException)
                && throwable.getCause() != null
            ? throwable.getCause()
            : throwable;
    long nanos = unit.toNanos(duration);
    Permission p = pending.take();
    // each event before the outcome counts, as Resilience4j's own breaker raises them: a
    // consumer sees the error before the transition it causes
    if (config.getIgnoreExceptionPredicate().test(error)) {
      events.ignoredError(nanos, error);
      if (p != null) {
        p.onIgnored();
      }
    } else if (config.getRecordExceptionPredicate().test(error)) {
      events.error(nanos, error);
      report(
          p, error instanceof TimeoutException ? CallOutcome.TIMEOUT : CallOutcome.FAILURE, nanos);
    } else {
      events.success(nanos);
      report(p, CallOutcome.SUCCESS, nanos);
    }
  }

  @Override
  public void onSuccess(long duration, TimeUnit unit) {
    long nanos = unit.toNanos(duration);
    Permission p = pending.take();
    events.success(nanos);
    report(p, CallOutcome.SUCCESS, nanos);
  }

  @Override
  public void onResult(long duration, TimeUnit unit, Object result) {
    if (result != null && config.getRecordResultPredicate().test(result)) {
      long nanos = unit.toNanos(duration);
      Permission p = pending.take();
      events.error(nanos, new ResultRecordedAsFailureException(name, result));
      report(p, CallOutcome.FAILURE, nanos);
    } else {
      onSuccess(duration, unit);
    }
  }

  private static void report(Permission p, CallOutcome outcome, long nanos) {
    if (p != null) {
      p.onOutcome(outcome, nanos);
    }
  }

  /** Under FLEET: clears the fleet's override (the machine resumes); raises the reset event. */
  @Override
  public void reset() {
    transitions.apply(name, breakerId(), "reset", OverrideKind.CLEAR, null);
    events.reset();
  }

  /**
   * Under FLEET: clears the fleet's override. A breaker the fleet tripped stays open until its
   * window ends (breakerctl has no override that closes a trip; {@code breakerctl force closed}
   * admits everything until it expires).
   */
  @Override
  public void transitionToClosedState() {
    transitions.apply(name, breakerId(), "transitionToClosedState", OverrideKind.CLEAR, null);
  }

  /** Under FLEET: forces the fleet open for the setting's expiry. */
  @Override
  public void transitionToOpenState() {
    transitions.apply(name, breakerId(), "transitionToOpenState", OverrideKind.FORCED_OPEN, null);
  }

  /** Under FLEET: forces the fleet open for {@code waitDuration}. */
  @Override
  public void transitionToOpenStateFor(Duration waitDuration) {
    transitions.apply(
        name, breakerId(), "transitionToOpenStateFor", OverrideKind.FORCED_OPEN, waitDuration);
  }

  /** Under FLEET: forces the fleet open until {@code waitUntil}. */
  @Override
  public void transitionToOpenStateUntil(Instant waitUntil) {
    Duration d = Duration.between(config.getClock().instant(), waitUntil);
    transitions.apply(name, breakerId(), "transitionToOpenStateUntil", OverrideKind.FORCED_OPEN, d);
  }

  /** Always throws {@link UnsupportedOperationException}: no override makes a fleet half-open. */
  @Override
  public void transitionToHalfOpenState() {
    transitions.apply(name, breakerId(), "transitionToHalfOpenState", null, null);
  }

  /** Under FLEET: disables the breaker fleet-wide for the setting's expiry. */
  @Override
  public void transitionToDisabledState() {
    transitions.apply(name, breakerId(), "transitionToDisabledState", OverrideKind.DISABLED, null);
  }

  /** Under FLEET: puts the fleet in METRICS_ONLY for the setting's expiry. */
  @Override
  public void transitionToMetricsOnlyState() {
    transitions.apply(
        name, breakerId(), "transitionToMetricsOnlyState", OverrideKind.METRICS_ONLY, null);
  }

  /** Under FLEET: forces the fleet open for the setting's expiry. */
  @Override
  public void transitionToForcedOpenState() {
    transitions.apply(
        name, breakerId(), "transitionToForcedOpenState", OverrideKind.FORCED_OPEN, null);
  }

  @Override
  public String getName() {
    return name;
  }

  /** The state this node acts on, as Resilience4j names it (FORCED_CLOSED reads METRICS_ONLY). */
  @Override
  public State getState() {
    return States.of(breaker.view().state());
  }

  /**
   * The Resilience4j config this instance was made with: its classification applies to every call;
   * its tunables are the node defaults only while no policy applies to the breaker ({@link #view()}
   * shows the policy in force).
   */
  @Override
  public CircuitBreakerConfig getCircuitBreakerConfig() {
    return config;
  }

  /** The failure window from the breaker's view (see {@link BreakerctlMetrics}). */
  @Override
  public Metrics getMetrics() {
    return new BreakerctlMetrics(breaker.view(), notPermitted.sum());
  }

  @Override
  public Map<String, String> getTags() {
    return tags;
  }

  @Override
  public EventPublisher getEventPublisher() {
    return events;
  }

  @Override
  public long getCurrentTimestamp() {
    return config.getCurrentTimestampFunction().apply(config.getClock());
  }

  @Override
  public TimeUnit getTimestampUnit() {
    return config.getTimestampUnit();
  }

  /** Stops relaying the breaker's events (the registry's close calls it). */
  @Override
  public void close() {
    try {
      listener.close();
    } catch (Exception e) {
      // a listener handle's close only removes it from a set
    }
  }

  @Override
  public String toString() {
    return "BreakerctlCircuitBreaker '" + name + "' (" + breakerId() + ")";
  }
}
