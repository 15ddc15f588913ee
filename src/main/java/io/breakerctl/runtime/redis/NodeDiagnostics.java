package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.store.FleetCallRates;
import io.breakerctl.runtime.store.FleetSelection;
import io.breakerctl.runtime.store.NodeHeartbeat;
import io.breakerctl.runtime.store.StoreCheck;
import io.breakerctl.runtime.store.StoreCheck.Status;
import io.breakerctl.runtime.store.StoreFutures;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * The {@code nodes} check of {@code breakerctl doctor}: which nodes report, which are stale or
 * degraded, and whether the fleet's call counts can be read ({@link StoreDiagnostics} has the
 * checks of Redis itself).
 */
public final class NodeDiagnostics {
  private NodeDiagnostics() {}

  /**
   * What the nodes report about themselves across every breaker, two checks. {@code nodes}: a WARN
   * naming each node whose last live report says it is degraded, with the reason it gave and on how
   * many breakers (a node that cannot write to Redis at all cannot report: its liveness then runs
   * out and it leaves the fleet view within three heartbeat intervals). {@code reports}: a FAIL
   * naming each live node that counted calls of a breaker in its last beat ({@link
   * FleetCallRates#serving}) but has no report on it, the fleet view then missing a node that is
   * serving: what Redis shows after it lost its data (a FLUSHALL, an empty replica promoted) until
   * the nodes notice (their next check, at most {@code checkInterval}) and report again. Reads
   * every state hash once, the liveness set and the nodes' counts.
   */
  public static List<StoreCheck> nodes(RedisFleetStore store, java.time.Duration timeout) {
    java.util.Map<String, java.util.Set<String>> reporters = new java.util.HashMap<>();
    java.util.Map<String, java.util.Map<String, Integer>> degraded = new java.util.TreeMap<>();
    int[] breakers = new int[1];
    FleetCallRates rates;
    try {
      FleetReader fleet = store.fleet(timeout, 500);
      fleet.snapshots(
          FleetSelection.ALL,
          s -> {
            breakers[0]++;
            java.util.Set<String> here =
                reporters.computeIfAbsent(s.id().toString(), k -> new TreeSet<>());
            for (NodeHeartbeat n : s.nodes()) {
              here.add(n.node());
              if (n.degraded()) {
                String why = n.degradedReason().isEmpty() ? "unknown" : n.degradedReason();
                degraded
                    .computeIfAbsent(n.node(), k -> new java.util.TreeMap<>())
                    .merge(why, 1, Integer::sum);
              }
            }
          },
          (id, error) -> {});
      fleet.requireComplete();
      rates = StoreFutures.await(store.callRates());
    } catch (RuntimeException e) {
      return List.of(
          new StoreCheck("nodes", Status.WARN, "could not read the fleet: " + e.getMessage()));
    }
    java.util.Set<String> reporting = new TreeSet<>();
    reporters.values().forEach(reporting::addAll);
    String counts = reporting.size() + " node(s) report on " + breakers[0] + " breaker(s)";
    StoreCheck nodes;
    if (degraded.isEmpty()) {
      nodes = new StoreCheck("nodes", Status.OK, counts + ", none degraded");
    } else {
      List<String> each = new ArrayList<>();
      degraded.forEach(
          (node, reasons) ->
              reasons.forEach((why, n) -> each.add(node + " (" + why + ", " + n + " breaker(s))")));
      nodes =
          new StoreCheck("nodes", Status.WARN, counts + ", degraded: " + String.join(", ", each));
    }
    List<String> silent = new ArrayList<>();
    rates
        .serving()
        .forEach(
            (node, ids) -> {
              List<String> missing = new ArrayList<>();
              for (String id : ids) {
                if (!reporters.getOrDefault(id, java.util.Set.of()).contains(node)) {
                  missing.add(id);
                }
              }
              if (!missing.isEmpty()) {
                silent.add(
                    node
                        + " on "
                        + String.join(", ", missing.subList(0, Math.min(3, missing.size())))
                        + (missing.size() > 3 ? " and " + (missing.size() - 3) + " more" : ""));
              }
            });
    StoreCheck reports =
        silent.isEmpty()
            ? new StoreCheck(
                "reports",
                Status.OK,
                rates.nodes() + " live node(s) sent call counts; each reports on what it serves")
            : new StoreCheck(
                "reports",
                Status.FAIL,
                silent.size()
                    + " live node(s) serving calls without a report in the fleet view: "
                    + String.join("; ", silent)
                    + " (Redis lost their reports? they send them again when they next check"
                    + " Redis, within their checkInterval)");
    return List.of(nodes, reports);
  }
}
