package io.breakerctl.runtime;

/**
 * Monotonic time in nanoseconds, of which only differences mean anything: {@link System#nanoTime}
 * in a running registry, time a test moves by hand in its unit tests (given beside the clock and
 * the scheduler, {@link RegistryOptions}). Every interval the registry and its breakers' reports
 * measure reads it.
 */
@FunctionalInterface
interface Ticker {
  /** The system's monotonic time. */
  Ticker SYSTEM = System::nanoTime;

  /** Now, in nanoseconds. */
  long read();

  /**
   * The ticker of the registry behind {@code context}; {@link #SYSTEM} for any other context. Until
   * {@link BreakerContext} carries the ticker itself, this is how a breaker's parts reach it.
   */
  static Ticker of(BreakerContext context) {
    return context instanceof DefaultBreakerRegistry r ? r.ticker() : SYSTEM;
  }
}
