package io.breakerctl.runtime;

import io.breakerctl.runtime.model.BreakerId;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One breaker as a service uses it. Obtain from {@link BreakerRegistry#breaker(BreakerId)}.
 *
 * <p>Redis is never a reason to fail a call: when it is slow or down the breaker decides with the
 * policy's {@code storeFailureMode}, and no call waits longer than the command timeout.
 */
public interface CircuitBreaker {

  /** The breaker's id. */
  BreakerId id();

  /**
   * Runs {@code call} if permitted and records its outcome (an exception is a failure). Named apart
   * from {@link #call(Supplier)} so a lambda is never ambiguous.
   *
   * @throws CallNotPermittedException when rejected
   */
  <T> T callChecked(Callable<T> call) throws Exception;

  /**
   * Runs {@code call} if permitted and records its outcome (a runtime exception is a failure).
   *
   * @throws CallNotPermittedException when rejected
   */
  <T> T call(Supplier<T> call);

  /** Low level: asks for permission; report the outcome on the returned permission. */
  Permission tryAcquire();

  /** The breaker as this node sees it now. */
  BreakerView view();

  /** Registers a listener for this breaker's events; returns a handle that removes it. */
  AutoCloseable onEvent(Consumer<CircuitEvent> listener);

  /**
   * Sets a cheap probe (a health call) that this node runs instead of real traffic to test recovery
   * while half-open; null removes it. Real calls are rejected while a probe is used.
   */
  void probe(Callable<Boolean> healthCheck);
}
