package io.breakerctl.integration.resilience4j;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import java.time.Duration;
import java.util.Objects;

/**
 * What a {@link BreakerctlCircuitBreaker}'s {@code transitionTo*} and {@code reset} do under the
 * registry's {@link ActuatorOverrides} setting.
 *
 * @param setting the setting
 * @param fleet where FLEET overrides go (null unless FLEET)
 * @param expiry how long a FLEET override lasts unless the call says ({@code
 *     transitionToOpenStateFor})
 * @param nodeId this node's id, for the actor {@code actuator@<node>}
 */
record ActuatorTransitions(
    ActuatorOverrides setting, FleetOverrides fleet, Duration expiry, String nodeId) {

  ActuatorTransitions {
    Objects.requireNonNull(setting, "actuatorOverrides");
    if (setting == ActuatorOverrides.FLEET) {
      Objects.requireNonNull(fleet, "actuatorOverrides FLEET needs FleetOverrides");
      if (expiry == null || expiry.isZero() || expiry.isNegative()) {
        throw new IllegalArgumentException(
            "actuatorOverrides FLEET needs an expiry > 0 but was " + expiry);
      }
    }
  }

  /** Every transition rejected. */
  static final ActuatorTransitions REJECT =
      new ActuatorTransitions(ActuatorOverrides.REJECT, null, null, "");

  /** The actor of an override this node's actuator makes. */
  String actor() {
    return "actuator@" + nodeId;
  }

  /**
   * Applies {@code kind} to {@code id} for {@code duration} (null: the setting's expiry), asked by
   * Resilience4j's {@code method} of the instance {@code name}.
   *
   * @throws UnsupportedOperationException under REJECT and LOCAL, and for a transition no override
   *     makes ({@code kind} null)
   */
  void apply(String name, BreakerId id, String method, OverrideKind kind, Duration duration) {
    String what = method + " on '" + name + "' (" + id + "): ";
    switch (setting) {
      case REJECT ->
          throw new UnsupportedOperationException(
              what
                  + "actuatorOverrides is REJECT; set actuatorOverrides FLEET for an audited fleet"
                  + " override, or use `breakerctl force`");
      case LOCAL ->
          throw new UnsupportedOperationException(
              what
                  + "actuatorOverrides LOCAL is not available: the breakerctl runtime's public API has"
                  + " no node-local override; use actuatorOverrides FLEET or `breakerctl force`");
      case FLEET -> {
        if (kind == null) {
          throw new UnsupportedOperationException(
              what + "no breakerctl override makes this transition (actuatorOverrides FLEET)");
        }
        Duration d =
            kind == OverrideKind.CLEAR ? Duration.ZERO : duration == null ? expiry : duration;
        if (kind != OverrideKind.CLEAR && (d.isZero() || d.isNegative())) {
          throw new IllegalArgumentException(method + " needs a duration > 0 but was " + d);
        }
        fleet.apply(id, kind, actor(), BreakerctlCircuitBreaker.ACTUATOR_REASON, d);
      }
      default -> throw new IllegalStateException("unknown actuatorOverrides " + setting);
    }
  }
}
