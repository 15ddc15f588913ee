package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.RegistryOptions;

/**
 * The runtime's {@link BreakerRegistry.Provider}, registered in {@code
 * META-INF/services/io.breakerctl.runtime.BreakerRegistry$Provider}: the one way into this package.
 */
public final class DefaultRegistryProvider implements BreakerRegistry.Provider {

  /** The provider (the service loader makes it). */
  public DefaultRegistryProvider() {}

  @Override
  public BreakerRegistry create(RegistryOptions options) {
    return new DefaultBreakerRegistry(options);
  }
}
