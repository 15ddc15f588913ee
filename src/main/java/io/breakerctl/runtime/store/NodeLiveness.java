package io.breakerctl.runtime.store;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Which nodes' per-breaker reports count in the fleet view. A node writes its liveness once per
 * {@code heartbeatInterval} ({@code alive.lua}, valid for three intervals) and sends a breaker's
 * report only when it changes and at least every ten intervals (at most 10 minutes), so a report's
 * own time says little about whether its node still runs: a report counts while its node is alive.
 * A node absent from the liveness set (a runtime from before it, or one whose liveness writes fail)
 * counts by its report's time: reported within the last 5 minutes, the rule before the set.
 */
public final class NodeLiveness {
  /** How recent a report of a node absent from the liveness set must be to count (ms). */
  static final long UNKNOWN_NODE_FRESH_MILLIS = 300_000;

  /** The liveness could not be read: every stored report counts (the reader says nothing new). */
  public static final NodeLiveness UNKNOWN = new NodeLiveness(null);

  private final Map<String, Long> until;
  private final Map<String, String> sessions;

  public NodeLiveness(Map<String, Long> until) {
    this(until, Map.of());
  }

  /**
   * {@code until}: each node's alive-until time; {@code sessions}: each node's current session
   * (nodes absent from it, or reports without a session, are judged by time alone).
   */
  public NodeLiveness(Map<String, Long> until, Map<String, String> sessions) {
    this.until = until;
    this.sessions = sessions == null ? Map.of() : sessions;
  }

  /**
   * Whether {@code report} counts at Redis time {@code nowMillis}: its node is alive, and the
   * report is of the node's current session. A process that reuses a node id (a restarted pod with
   * the same name) never opened some of the breakers its predecessor reported on; those reports
   * stop counting at its first beat instead of keeping the breakers "disputed" for up to 30
   * minutes.
   */
  public boolean counts(NodeHeartbeat report, long nowMillis) {
    if (until == null) {
      return true;
    }
    String current = sessions.get(report.node());
    if (current != null
        && !current.isEmpty()
        && !report.session().isEmpty()
        && !current.equals(report.session())) {
      return false;
    }
    Long u = until.get(report.node());
    return u != null ? u > nowMillis : nowMillis - report.atMillis() <= UNKNOWN_NODE_FRESH_MILLIS;
  }

  /**
   * Every node the liveness set names (alive or run out within about a day), sorted; empty when the
   * liveness is {@link #UNKNOWN}.
   */
  public List<String> members() {
    if (until == null) {
      return List.of();
    }
    List<String> out = new ArrayList<>(until.keySet());
    java.util.Collections.sort(out);
    return out;
  }

  /** The reports that count, in their order. */
  public List<NodeHeartbeat> live(List<NodeHeartbeat> reports, long nowMillis) {
    if (until == null || reports.isEmpty()) {
      return reports;
    }
    List<NodeHeartbeat> out = new ArrayList<>(reports.size());
    for (NodeHeartbeat r : reports) {
      if (counts(r, nowMillis)) {
        out.add(r);
      }
    }
    return out.size() == reports.size() ? reports : out;
  }
}
