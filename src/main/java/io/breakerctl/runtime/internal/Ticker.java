package io.breakerctl.runtime.internal;

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
}
