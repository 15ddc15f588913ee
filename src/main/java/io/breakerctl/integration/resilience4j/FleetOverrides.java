package io.breakerctl.integration.resilience4j;

import io.breakerctl.runtime.control.override.BreakerOverrides;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.store.OverrideRequest;
import java.time.Duration;
import java.util.Objects;

/**
 * Where {@link ActuatorOverrides#FLEET} sends a transition: an override of the whole fleet, as
 * {@code breakerctl force} makes one. The runtime's {@code BreakerRegistry} offers no override
 * command, so the application hands one in: {@link #audited(BreakerOverrides)} over the control
 * plane's audited overrides.
 */
@FunctionalInterface
public interface FleetOverrides {

  /**
   * Applies {@code kind} to {@code id} for the fleet.
   *
   * @param id the breaker
   * @param kind the override ({@link OverrideKind#CLEAR} removes one)
   * @param actor who asks ({@code actuator@<node>})
   * @param reason why ({@link BreakerctlCircuitBreaker#ACTUATOR_REASON})
   * @param expiry how long it lasts (zero for {@link OverrideKind#CLEAR})
   */
  void apply(BreakerId id, OverrideKind kind, String actor, String reason, Duration expiry);

  /**
   * Overrides applied and audited by {@code overrides} (Redis first, then the audit record in
   * MongoDB, or in the breaker's event stream while MongoDB is down).
   */
  static FleetOverrides audited(BreakerOverrides overrides) {
    Objects.requireNonNull(overrides, "overrides");
    return (id, kind, actor, reason, expiry) ->
        overrides.apply(id, new OverrideRequest(kind, actor, reason, expiry, null));
  }
}
