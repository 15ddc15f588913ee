package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.store.KeyPrefix;
import io.breakerctl.runtime.store.NodeCallCounts;
import java.util.Optional;

/**
 * The Redis key layout of breakers under one prefix. Every key of a breaker carries the same hash
 * tag, {@code {<id>}}, so a script touching all of them stays in one Redis Cluster slot.
 *
 * <pre>
 *   &lt;prefix&gt;:{&lt;id&gt;}          hash: state, window, override, warmed policy, cursors
 *   &lt;prefix&gt;:{&lt;id&gt;}:ev       stream: one entry per transition
 *   &lt;prefix&gt;:{&lt;id&gt;}:leases   sorted set: live probe leases, score = expiry (ms)
 *   &lt;prefix&gt;:{&lt;id&gt;}:nodes    sorted set: node id, score = last heartbeat (Redis ms)
 *   &lt;prefix&gt;:{&lt;id&gt;}:nodeinfo hash: node id -&gt; heartbeat JSON (state, policy, degraded, at)
 *   &lt;prefix&gt;:{&lt;id&gt;}:unfwd    string: present while events await the history forwarder
 *   &lt;prefix&gt;:events          pub/sub channel: every transition and warmed policy, as JSON
 *   &lt;prefix&gt;:deployment      string: the deployment's identity, which its history carries
 *   &lt;prefix&gt;:alive           sorted set: node id, score = Redis ms until which it counts alive
 *   &lt;prefix&gt;:calls:{&lt;prefix&gt;:alive}:&lt;node&gt;  string: the node's calls per breaker over its last beat
 * </pre>
 */
public final class BreakerKeys {
  /** The default prefix. */
  public static final String DEFAULT_PREFIX = KeyPrefix.DEFAULT;

  private static final String UNFORWARDED = ":unfwd";

  private final String prefix;

  private BreakerKeys(String prefix) {
    this.prefix = prefix;
  }

  /**
   * Keys under {@code prefix}.
   *
   * @throws IllegalArgumentException when the prefix is not 1-32 of {@code [A-Za-z0-9._-]}
   */
  public static BreakerKeys withPrefix(String prefix) {
    return new BreakerKeys(KeyPrefix.check(prefix));
  }

  /** The prefix. */
  public String prefix() {
    return prefix;
  }

  /**
   * The deployment's identity ({@code d-} and 12 hex digits): set once, when history is first
   * forwarded from this Redis or restored into it; never expires. See {@code
   * io.breakerctl.runtime.control.history.Deployments}.
   */
  public String deployment() {
    return prefix + ":deployment";
  }

  /** The state hash. */
  public String hash(BreakerId id) {
    return prefix + ":{" + id + "}";
  }

  /** The event stream. */
  public String events(BreakerId id) {
    return hash(id) + ":ev";
  }

  /** The probe lease sorted set. */
  public String leases(BreakerId id) {
    return hash(id) + ":leases";
  }

  /** The heartbeat sorted set: node id scored by its last heartbeat (Redis ms). */
  public String nodes(BreakerId id) {
    return hash(id) + ":nodes";
  }

  /**
   * The fleet's liveness set ({@code alive.lua}): node id scored by the Redis time until which it
   * counts as alive. One key for the fleet, outside every breaker's hash tag.
   */
  public String alive() {
    return prefix + ":alive";
  }

  /**
   * A node's call counts per breaker over its last beat ({@code alive.lua}, {@link
   * NodeCallCounts}). The hash tag is the liveness key's whole name, so both share one cluster slot
   * and one script writes them together; the key starts with the prefix like every other key, so an
   * ACL key pattern on the prefix ({@code ~cb:*}) covers it, and it is no breaker key.
   */
  public String calls(String node) {
    return prefix + ":calls:{" + alive() + "}:" + node;
  }

  /**
   * The nodes' current sessions ({@code alive.lua}): node id to the session its latest liveness
   * beat named, in the liveness key's slot (the same hash tag as {@link #calls}).
   */
  public String sessions() {
    return prefix + ":sessions:{" + alive() + "}";
  }

  /**
   * Hot fallback data of a breaker: one string per field (an approved snapshot's copy, field = the
   * hashed business key), with an expiry, in the breaker's hash tag.
   */
  public String hot(BreakerId id, String field) {
    return hash(id) + ":fb:" + field;
  }

  /** The heartbeat hash: node id to its last heartbeat as JSON. */
  public String nodeInfo(BreakerId id) {
    return hash(id) + ":nodeinfo";
  }

  /**
   * The unforwarded marker: the scripts keep it exactly while the event stream holds events beyond
   * the forwarded cursor (value: the last event's stream id), so the history forwarder finds those
   * breakers with one SCAN instead of reading every breaker.
   */
  public String unforwarded(BreakerId id) {
    return hash(id) + UNFORWARDED;
  }

  /** The keys every script takes, in the order the scripts expect. */
  public String[] scriptKeys(BreakerId id) {
    String h = hash(id);
    return new String[] {
      h, h + ":ev", h + ":leases", h + ":nodes", h + ":nodeinfo", h + UNFORWARDED
    };
  }

  /** A SCAN MATCH pattern selecting the unforwarded markers (filter with {@link #idOfMarker}). */
  public String unforwardedPattern() {
    return prefix + ":{*}" + UNFORWARDED;
  }

  /** The breaker whose unforwarded marker this key is, if it is one. */
  public Optional<BreakerId> idOfMarker(String key) {
    return key.endsWith(UNFORWARDED)
        ? idOf(key.substring(0, key.length() - UNFORWARDED.length()))
        : Optional.empty();
  }

  /** The pub/sub channel of transitions and warmed policies. */
  public String channel() {
    return prefix + ":events";
  }

  /** A SCAN MATCH pattern selecting the state hashes (filter further with {@link #idOf}). */
  public String hashPattern() {
    return prefix + ":{*}";
  }

  /** The breaker whose state hash this key is, if it is one. */
  public Optional<BreakerId> idOf(String key) {
    String head = prefix + ":{";
    if (!key.startsWith(head) || !key.endsWith("}")) {
      return Optional.empty();
    }
    String id = key.substring(head.length(), key.length() - 1);
    return BreakerId.isValid(id) ? Optional.of(BreakerId.parse(id)) : Optional.empty();
  }
}
