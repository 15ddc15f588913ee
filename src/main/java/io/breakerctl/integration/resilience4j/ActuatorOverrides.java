package io.breakerctl.integration.resilience4j;

/**
 * What the {@code transitionTo*} methods and {@code reset} of a {@link BreakerctlCircuitBreaker}
 * do: what Spring Boot's {@code POST /actuator/circuitbreakers/{name}} and any code calling them
 * reach.
 */
public enum ActuatorOverrides {
  /**
   * Would act on this node only. The runtime's public API offers no node-local override, so every
   * transition throws {@link UnsupportedOperationException} saying so.
   */
  LOCAL,
  /**
   * An audited fleet override through {@link FleetOverrides}: actor {@code actuator@<node>}, the
   * reason {@link BreakerctlCircuitBreaker#ACTUATOR_REASON}, and an expiry always.
   */
  FLEET,
  /**
   * The default: every transition throws {@link UnsupportedOperationException} naming the setting.
   */
  REJECT
}
