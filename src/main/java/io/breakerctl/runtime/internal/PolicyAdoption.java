package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.BackgroundTask;
import io.breakerctl.runtime.CircuitEvent;
import io.breakerctl.runtime.PolicySource;
import io.breakerctl.runtime.internal.BreakerState.Resolved;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.BreakerStore;
import io.breakerctl.runtime.store.PolicyEncoding.WarmedPolicy;

/**
 * The policy a breaker runs: adopted from the shared hash (warmed by the CLI or another node),
 * resolved from the control plane when none is warmed, warmed back into keys that lost it, and
 * dropped for the node's defaults when the control plane removed it.
 */
final class PolicyAdoption {
  private final BreakerState state;
  private final BreakerContext registry;
  private final BreakerEvents events;
  private volatile long lastPolicyLookup;

  PolicyAdoption(BreakerState state, BreakerEvents events) {
    this.state = state;
    this.registry = state.registry;
    this.events = events;
  }

  /** Adopts the policy a full read of the breaker found (or resolves, rewarms, drops one). */
  void adoptPolicy(BreakerSnapshot s) {
    WarmedPolicy warmed = s.warmedPolicy().orElse(null);
    Resolved r = state.resolved;
    if (warmed == null && r.version() > 0 && unwarms(s.unwarmed().orElse(null), r)) {
      // the control plane removed the policy this node runs (warm.lua's un-warm): its defaults
      state.resolve(new Resolved(registry.defaults(), "", 0));
      state.local.setPolicy(registry.defaults());
      State st = state.acting();
      events.emit(CircuitEvent.Type.POLICY_ADOPTED, st, st, "node-defaults@0");
      return;
    }
    if (warmed == null && r.version() > 0 && !s.epoch().equals(rewarmedEpoch)) {
      // the keys lost the policy this node runs (flushed, failed over to an empty replica,
      // expired; an un-warm leaves a marker, handled above): put it back, once per incarnation,
      // so the fleet view shows the version in force at once, not after the next failure's record
      rewarmedEpoch = s.epoch();
      rewarm(r);
      return;
    }
    if (warmed == null) {
      PolicySource source = registry.policySource();
      if (source != null && r.version() == 0 && state.now() - lastPolicyLookup > 30_000) {
        lastPolicyLookup = state.now();
        registry.background(
            () -> {
              try {
                source.resolveAndWarm(state.id).ifPresent(this::adopt);
              } catch (RuntimeException e) {
                registry.health().failed(BackgroundTask.POLICY_RESOLUTION, e);
              }
            });
      }
      return;
    }
    adopt(warmed);
  }

  /**
   * The incarnation (epoch; "" for keys that no longer exist) this node last put its lost policy
   * back into; null for none.
   */
  private volatile String rewarmedEpoch;

  /**
   * Warms the policy this node runs ({@code r}, a control-plane version) back into keys that lost
   * it. warm.lua keeps versions monotonic, so a newer version another node or the CLI warmed
   * meanwhile stays, and the node adopts what the answer names on its next read.
   */
  private void rewarm(Resolved r) {
    BreakerStore store = registry.store();
    if (store == null || !state.guard().up()) {
      return;
    }
    store
        .warm(state.id, r.policyId(), r.version(), r.policy(), state.node())
        .whenComplete(
            (w, e) -> {
              if (e != null) {
                rewarmedEpoch = null; // try again at the next read
                registry.health().failed(BackgroundTask.POLICY_RESOLUTION, e);
              } else {
                registry.health().succeeded(BackgroundTask.POLICY_RESOLUTION);
              }
            });
  }

  /**
   * Whether the un-warm marker ({@code <policyId>@<version>}) removed the policy {@code r} names at
   * its version or a newer one. Keys without a warmed policy but no marker (flushed, expired) keep
   * what the node runs: the node's next record carries it to the script.
   */
  private static boolean unwarms(String marker, Resolved r) {
    if (marker == null) {
      return false;
    }
    int at = marker.lastIndexOf('@');
    if (at < 0 || !marker.substring(0, at).equals(r.policyId())) {
      return false;
    }
    try {
      return Long.parseLong(marker.substring(at + 1)) >= r.version();
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private void adopt(WarmedPolicy w) {
    Resolved r = state.resolved;
    if (w.policyId().equals(r.policyId())
        && w.version() == r.version()
        && w.policy().equals(r.policy())) {
      return;
    }
    state.resolve(new Resolved(w.policy(), w.policyId(), w.version()));
    state.local.setPolicy(w.policy());
    State st = state.acting();
    events.emit(CircuitEvent.Type.POLICY_ADOPTED, st, st, w.policyId() + "@" + w.version());
  }
}
