package io.breakerctl.runtime.control.policy;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.store.FleetStore;
import io.breakerctl.runtime.store.WarmResult;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Puts the policies MongoDB holds in force into the breakers' Redis keys, and finds where Redis is
 * out of step with them: the warming half of {@link PolicyControl}, which creates the versions.
 */
final class PolicyWarming {
  private final PolicyStore store;
  private final FleetStore redis;
  private final Clock clock;

  /** Warming from {@code store} into {@code redis} (null: no Redis, nothing is warmed). */
  PolicyWarming(PolicyStore store, FleetStore redis, Clock clock) {
    this.store = store;
    this.redis = redis;
    this.clock = clock;
  }

  /** See {@link PolicyControl#warm}. */
  List<WarmReport> warm(PolicyId policyId) {
    if (redis == null) {
      return List.of();
    }
    Map<PolicyId, PolicyVersion> inForce = store.allInForce(clock.instant());
    List<BreakerId> targets;
    try {
      targets = governed(policyId);
    } catch (RuntimeException e) {
      return List.of(new WarmReport(null, policyId.toString(), 0, "FAILED", e.getMessage()));
    }
    // not in force (deleted, or expired with nothing before it): the version that removed it
    long removedAt = inForce.containsKey(policyId) ? 0 : store.latestVersion(policyId);
    List<WarmReport> out = new ArrayList<>();
    List<CompletableFuture<WarmResult>> pending = new ArrayList<>();
    List<PolicyVersion> resolved = new ArrayList<>();
    List<BreakerId> warming = new ArrayList<>();
    for (BreakerId b : targets) {
      Optional<PolicyResolver.Resolved<PolicyVersion>> r =
          PolicyResolver.resolve(b, p -> Optional.ofNullable(inForce.get(p)));
      if (r.isEmpty()) {
        if (removedAt > 0) {
          // nothing governs it any more: take the removed policy out (its nodes' defaults apply)
          warming.add(b);
          resolved.add(null);
          pending.add(redis.unwarm(b, policyId.toString(), removedAt, PolicyControl.SYSTEM_ACTOR));
        }
        continue;
      }
      List<PolicyId> order = PolicyResolver.candidates(b);
      if (order.indexOf(r.get().policyId()) < order.indexOf(policyId)) {
        continue; // governed by a more specific policy: a default change does not touch it
      }
      PolicyVersion v = r.get().value();
      warming.add(b);
      resolved.add(v);
      pending.add(
          redis.warm(
              b, v.policyId().toString(), v.version(), v.policy(), PolicyControl.SYSTEM_ACTOR));
    }
    for (int i = 0; i < warming.size(); i++) {
      out.add(report(warming.get(i), resolved.get(i), pending.get(i)));
    }
    return out;
  }

  /** See {@link PolicyControl#drift}. */
  List<PolicyDrift> drift(java.time.Duration timeout) {
    if (redis == null) {
      return List.of();
    }
    Map<PolicyId, PolicyVersion> inForce = store.allInForce(clock.instant());
    List<PolicyDrift> out = new ArrayList<>();
    io.breakerctl.runtime.store.FleetScan fleet = redis.fleet(timeout, 200);
    fleet.snapshots(
        io.breakerctl.runtime.store.FleetSelection.ALL,
        s -> {
          String expected =
              PolicyResolver.resolve(s.id(), p -> Optional.ofNullable(inForce.get(p)))
                  .map(r -> r.value().policyId() + "@" + r.value().version())
                  .orElse("");
          String warmed = s.warmedPolicy().map(w -> w.policyId() + "@" + w.version()).orElse("");
          List<String> off = new ArrayList<>();
          for (io.breakerctl.runtime.store.NodeHeartbeat n : s.nodes()) {
            String runs =
                n.policyVersion() > 0 ? n.policyId() + "@" + n.policyVersion() : "defaults";
            if (!runs.equals(warmed.isEmpty() ? "defaults" : warmed)) {
              off.add(n.node() + "=" + runs);
            }
          }
          if (!expected.equals(warmed) || !off.isEmpty()) {
            out.add(new PolicyDrift(s.id(), expected, warmed, off));
          }
        },
        (id, problem) -> {});
    fleet.requireComplete(); // a breaker in the slots not read may be out of step
    return out;
  }

  /** See {@link PolicyControl#governed}. */
  List<BreakerId> governed(PolicyId policyId) {
    List<BreakerId> targets = new ArrayList<>();
    if (policyId.breaker().isPresent()) {
      targets.add(policyId.breaker().get());
    } else if (redis != null) {
      redis.forEachBreaker(
          b -> {
            if (PolicyResolver.candidates(b).contains(policyId)) {
              targets.add(b);
            }
          });
    }
    return targets;
  }

  /** What warming (or, for a null version, un-warming) one breaker did. */
  private static WarmReport report(
      BreakerId b, PolicyVersion v, CompletableFuture<WarmResult> pending) {
    String policyId = v == null ? "" : v.policyId().toString();
    long version = v == null ? 0 : v.version();
    try {
      WarmResult w = pending.join();
      if (v == null) {
        // what the breaker holds afterwards: nothing (UNWARMED), another policy, a newer version
        return new WarmReport(b, w.policyId(), w.policyVersion(), w.outcome().code(), "");
      }
      return new WarmReport(b, policyId, version, w.outcome().code(), "");
    } catch (CompletionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      return new WarmReport(b, policyId, version, "FAILED", String.valueOf(cause.getMessage()));
    }
  }
}
