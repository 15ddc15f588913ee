package io.breakerctl.integration.resilience4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.breakerctl.runtime.control.ControlPlaneIT;
import io.breakerctl.runtime.control.audit.AuditLog;
import io.breakerctl.runtime.control.audit.AuditRecord;
import io.breakerctl.runtime.control.override.BreakerOverrides;
import io.breakerctl.runtime.control.policy.ApplyOptions;
import io.breakerctl.runtime.control.policy.PolicyControl;
import io.breakerctl.runtime.control.policy.PolicyParser;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.StoreFutures;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The adapter with a control plane (a real redis-server, the in-process MongoDB): actuator
 * transitions as audited fleet overrides, and a policy applied the way {@code breakerctl policy
 * apply} applies it winning over the Resilience4j config's node defaults.
 */
@DisplayName("Resilience4j actuator transitions as audited fleet overrides; an applied policy wins")
class FleetActuatorIT extends ControlPlaneIT {

  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void closeNodes() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
  }

  /** Instance {@code members} on two nodes, each applying transitions as fleet overrides. */
  private List<BreakerctlCircuitBreaker> fleet(String app) {
    List<BreakerctlCircuitBreaker> out = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      BreakerctlCircuitBreakerRegistry r =
          Nodes.node(REDIS.uri(), app, i)
              .actuatorOverrides(
                  FleetOverrides.audited(new BreakerOverrides(redis, db, clock)),
                  Duration.ofMinutes(10))
              .build();
      open.add(r);
      BreakerctlCircuitBreaker cb = (BreakerctlCircuitBreaker) r.circuitBreaker("members");
      assertThat(cb.executeSupplier(() -> "ok")).isEqualTo("ok");
      out.add(cb);
    }
    return out;
  }

  @Test
  @DisplayName(
      "transitionToForcedOpenState on one node forces the fleet open for the expiry, by"
          + " actuator@<node> with the fixed reason, audited; transitionToClosedState on another"
          + " clears it")
  void forcedOpenAndClosed() {
    List<BreakerctlCircuitBreaker> cbs = fleet("act");
    BreakerId id = BreakerId.parse("act:members");

    cbs.get(0).transitionToForcedOpenState();

    Nodes.await(
        "both nodes see FORCED_OPEN",
        () -> cbs.stream().allMatch(cb -> cb.getState() == CircuitBreaker.State.FORCED_OPEN));
    assertThatThrownBy(() -> cbs.get(1).executeSupplier(() -> "never"))
        .isInstanceOf(CallNotPermittedException.class);
    BreakerSnapshot s = StoreFutures.await(redis.state(id));
    BreakerSnapshot.OverrideDetail o = s.overrideDetail().orElseThrow();
    assertThat(o.state()).isEqualTo(State.FORCED_OPEN);
    assertThat(o.actor()).isEqualTo("actuator@act-n0");
    assertThat(o.reason()).isEqualTo(BreakerctlCircuitBreaker.ACTUATOR_REASON);
    assertThat(o.untilMillis() - o.atMillis()).isEqualTo(Duration.ofMinutes(10).toMillis());
    List<AuditRecord> audit = new AuditLog(db).forTarget(id.toString());
    assertThat(audit)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.actor()).isEqualTo("actuator@act-n0");
              assertThat(r.reason()).isEqualTo(BreakerctlCircuitBreaker.ACTUATOR_REASON);
              assertThat(r.expiresAt()).isPresent();
            });

    cbs.get(1).transitionToClosedState();

    Nodes.await(
        "both nodes are CLOSED again",
        () -> cbs.stream().allMatch(cb -> cb.getState() == CircuitBreaker.State.CLOSED));
    assertThat(new AuditLog(db).forTarget(id.toString())).hasSize(2);
  }

  @Test
  @DisplayName(
      "a policy applied to the breaker wins over the node defaults from the Resilience4j config:"
          + " one failure trips it")
  void appliedPolicyWins() {
    List<BreakerctlCircuitBreaker> cbs = fleet("pol");
    assertThat(cbs.get(0).view().policyId()).as("the node defaults").isEmpty();

    new PolicyControl(db, redis, clock)
        .applyAll(
            PolicyParser.parse(
                "pol.yaml",
                "apiVersion: breakerctl/v1\nkind: Policy\nmetadata:\n  id: 'pol:members'\n"
                    + "spec:\n  failureThreshold: 1\n  openSeconds: 60\n"),
            ApplyOptions.by("it", "r4j drill"));
    Nodes.await(
        "both nodes run the applied policy",
        () -> cbs.stream().allMatch(cb -> cb.view().policy().failureThreshold() == 1));
    assertThat(cbs.get(1).view().policyId()).isEqualTo("pol:members");

    assertThatThrownBy(
            () ->
                cbs.get(0)
                    .executeSupplier(
                        () -> {
                          throw new IllegalStateException("down");
                        }))
        .isInstanceOf(IllegalStateException.class);

    Nodes.await(
        "one failure trips the fleet",
        () -> cbs.stream().allMatch(cb -> cb.getState() == CircuitBreaker.State.OPEN));
  }
}
