package io.breakerctl.integration.resilience4j;

import io.breakerctl.runtime.CircuitEvent;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreaker.StateTransition;
import io.github.resilience4j.circuitbreaker.IllegalStateTransitionException;
import io.github.resilience4j.circuitbreaker.event.CircuitBreakerEvent;
import io.github.resilience4j.circuitbreaker.event.CircuitBreakerOnCallNotPermittedEvent;
import io.github.resilience4j.circuitbreaker.event.CircuitBreakerOnErrorEvent;
import io.github.resilience4j.circuitbreaker.event.CircuitBreakerOnFailureRateExceededEvent;
import io.github.resilience4j.circuitbreaker.event.CircuitBreakerOnIgnoredErrorEvent;
import io.github.resilience4j.circuitbreaker.event.CircuitBreakerOnResetEvent;
import io.github.resilience4j.circuitbreaker.event.CircuitBreakerOnSlowCallRateExceededEvent;
import io.github.resilience4j.circuitbreaker.event.CircuitBreakerOnStateTransitionEvent;
import io.github.resilience4j.circuitbreaker.event.CircuitBreakerOnSuccessEvent;
import io.github.resilience4j.core.EventConsumer;
import io.github.resilience4j.core.EventProcessor;
import java.time.Duration;

/**
 * A {@link BreakerctlCircuitBreaker}'s Resilience4j event publisher: the call events the adapter
 * raises itself (success, error, ignored error, call not permitted, reset) and the breaker's state
 * transitions as breakerctl reports them (a trip another node won included). An event is built only
 * when a consumer is registered.
 */
final class BreakerctlEvents extends EventProcessor<CircuitBreakerEvent>
    implements CircuitBreaker.EventPublisher {

  private final String name;

  BreakerctlEvents(String name) {
    this.name = name;
  }

  @Override
  public CircuitBreaker.EventPublisher onSuccess(
      EventConsumer<CircuitBreakerOnSuccessEvent> consumer) {
    registerConsumer(CircuitBreakerOnSuccessEvent.class.getName(), consumer);
    return this;
  }

  @Override
  public CircuitBreaker.EventPublisher onError(EventConsumer<CircuitBreakerOnErrorEvent> consumer) {
    registerConsumer(CircuitBreakerOnErrorEvent.class.getName(), consumer);
    return this;
  }

  @Override
  public CircuitBreaker.EventPublisher onStateTransition(
      EventConsumer<CircuitBreakerOnStateTransitionEvent> consumer) {
    registerConsumer(CircuitBreakerOnStateTransitionEvent.class.getName(), consumer);
    return this;
  }

  @Override
  public CircuitBreaker.EventPublisher onReset(EventConsumer<CircuitBreakerOnResetEvent> consumer) {
    registerConsumer(CircuitBreakerOnResetEvent.class.getName(), consumer);
    return this;
  }

  @Override
  public CircuitBreaker.EventPublisher onIgnoredError(
      EventConsumer<CircuitBreakerOnIgnoredErrorEvent> consumer) {
    registerConsumer(CircuitBreakerOnIgnoredErrorEvent.class.getName(), consumer);
    return this;
  }

  @Override
  public CircuitBreaker.EventPublisher onCallNotPermitted(
      EventConsumer<CircuitBreakerOnCallNotPermittedEvent> consumer) {
    registerConsumer(CircuitBreakerOnCallNotPermittedEvent.class.getName(), consumer);
    return this;
  }

  /**
   * Registered, never raised: a trip is a state transition to OPEN, whichever node's outcome made
   * it (see the package).
   */
  @Override
  public CircuitBreaker.EventPublisher onFailureRateExceeded(
      EventConsumer<CircuitBreakerOnFailureRateExceededEvent> consumer) {
    registerConsumer(CircuitBreakerOnFailureRateExceededEvent.class.getName(), consumer);
    return this;
  }

  /** Registered, never raised: breakerctl counts a slow call as a failure (see the package). */
  @Override
  public CircuitBreaker.EventPublisher onSlowCallRateExceeded(
      EventConsumer<CircuitBreakerOnSlowCallRateExceededEvent> consumer) {
    registerConsumer(CircuitBreakerOnSlowCallRateExceededEvent.class.getName(), consumer);
    return this;
  }

  void success(long nanos) {
    if (hasConsumers()) {
      processEvent(new CircuitBreakerOnSuccessEvent(name, Duration.ofNanos(nanos)));
    }
  }

  void error(long nanos, Throwable error) {
    if (hasConsumers()) {
      processEvent(new CircuitBreakerOnErrorEvent(name, Duration.ofNanos(nanos), error));
    }
  }

  void ignoredError(long nanos, Throwable error) {
    if (hasConsumers()) {
      processEvent(new CircuitBreakerOnIgnoredErrorEvent(name, Duration.ofNanos(nanos), error));
    }
  }

  void callNotPermitted() {
    if (hasConsumers()) {
      processEvent(new CircuitBreakerOnCallNotPermittedEvent(name));
    }
  }

  void reset() {
    if (hasConsumers()) {
      processEvent(new CircuitBreakerOnResetEvent(name));
    }
  }

  /**
   * A breakerctl event as Resilience4j's: a transition between two states Resilience4j tells apart.
   * Other events (probes, degradation, policy adoption, rejections: the adapter raises its own)
   * have no twin.
   */
  void fromBreakerctl(CircuitEvent e) {
    if (e.type() != CircuitEvent.Type.TRANSITION || !hasConsumers()) {
      return;
    }
    CircuitBreaker.State from = States.of(e.from());
    CircuitBreaker.State to = States.of(e.to());
    if (from == to) {
      return;
    }
    StateTransition transition;
    try {
      transition = StateTransition.transitionBetween(name, from, to);
    } catch (IllegalStateTransitionException noTwin) {
      return;
    }
    processEvent(new CircuitBreakerOnStateTransitionEvent(name, transition));
  }
}
