package io.breakerctl.runtime.store;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The fleet's calls/s, rejected/s and fallback/s per breaker, from the counts the live nodes sent
 * with their last beat ({@link NodeCallCounts}). Each node's counts cover the window since its
 * previous beat (about one {@code heartbeatInterval}); a node's rate is its count divided by its
 * own window, and a breaker's fleet rate is the sum of its live nodes' rates. The window stated
 * ({@link #windowMillis}) is the longest of those windows: the figures describe at most that much
 * of the recent past. A node that is not alive ({@link NodeLiveness}) does not count; a node from
 * before these counts sends none, so its calls are missing from the sums.
 */
public final class FleetCallRates {

  /**
   * One breaker's rates.
   *
   * @param calls admitted calls that ended, per second
   * @param rejected calls rejected per second
   * @param fallbacks calls answered by a fallback per second
   */
  public record Rates(double calls, double rejected, double fallbacks) {
    /** All zero. */
    public static final Rates ZERO = new Rates(0, 0, 0);

    /** The rates of {@code c} over {@code windowMillis} (> 0). */
    public static Rates of(NodeCallCounts.Counts c, long windowMillis) {
      double s = windowMillis / 1000.0;
      return new Rates(c.calls() / s, c.rejected() / s, c.fallbacks() / s);
    }

    /** This plus {@code o}. */
    public Rates plus(Rates o) {
      return new Rates(calls + o.calls, rejected + o.rejected, fallbacks + o.fallbacks);
    }
  }

  /** No node sent counts (or they could not be read). */
  public static final FleetCallRates NONE = new FleetCallRates(Map.of());

  private final Map<String, NodeCallCounts> byNode;
  private final long windowMillis;

  /** The rates from each live node's last counts (node id to counts). */
  public FleetCallRates(Map<String, NodeCallCounts> byNode) {
    Map<String, NodeCallCounts> m = new LinkedHashMap<>();
    long w = 0;
    for (Map.Entry<String, NodeCallCounts> e : byNode.entrySet()) {
      if (e.getValue().windowMillis() > 0) {
        m.put(e.getKey(), e.getValue());
        w = Math.max(w, e.getValue().windowMillis());
      }
    }
    this.byNode = java.util.Collections.unmodifiableMap(m);
    this.windowMillis = w;
  }

  /** The longest window a live node's counts cover (ms); 0 when no node sent counts. */
  public long windowMillis() {
    return windowMillis;
  }

  /** How many live nodes sent counts. */
  public int nodes() {
    return byNode.size();
  }

  /** The fleet's rates of breaker {@code id}: the sum over live nodes (zero when none counted). */
  public Rates of(String id) {
    Rates sum = Rates.ZERO;
    for (NodeCallCounts n : byNode.values()) {
      NodeCallCounts.Counts c = n.breakers().get(id);
      if (c != null) {
        sum = sum.plus(Rates.of(c, n.windowMillis()));
      }
    }
    return sum;
  }

  /**
   * Each live node's rates of breaker {@code id} with its window, for the nodes that counted a call
   * of it, in node order.
   */
  public List<NodeRates> byNode(String id) {
    List<NodeRates> out = new java.util.ArrayList<>();
    for (Map.Entry<String, NodeCallCounts> e : byNode.entrySet()) {
      NodeCallCounts.Counts c = e.getValue().breakers().get(id);
      if (c != null && !c.idle()) {
        long w = e.getValue().windowMillis();
        out.add(new NodeRates(e.getKey(), Rates.of(c, w), w));
      }
    }
    out.sort(java.util.Comparator.comparing(NodeRates::node));
    return out;
  }

  /**
   * Each live node's breakers with a call, rejection or fallback counted in its last window (node
   * to breaker ids, both sorted): what the node is serving now, so it must report on them.
   */
  public Map<String, java.util.SortedSet<String>> serving() {
    Map<String, java.util.SortedSet<String>> out = new java.util.TreeMap<>();
    byNode.forEach(
        (node, counts) ->
            counts
                .breakers()
                .forEach(
                    (id, c) -> {
                      if (!c.idle()) {
                        out.computeIfAbsent(node, k -> new java.util.TreeSet<>()).add(id);
                      }
                    }));
    return out;
  }

  /**
   * One node's rates of one breaker.
   *
   * @param node the node id
   * @param rates its rates
   * @param windowMillis the window its counts cover
   */
  public record NodeRates(String node, Rates rates, long windowMillis) {}
}
