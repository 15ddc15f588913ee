package io.breakerctl.runtime.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.breakerctl.runtime.model.FallbackPolicy;
import io.breakerctl.runtime.model.State;
import java.util.Objects;

/**
 * What one node last reported about one breaker: the fleet view. Written by the record script into
 * the breaker's {@code :nodes} (last seen) and {@code :nodeinfo} (this, as JSON) keys with the
 * node's batched flush.
 *
 * @param node the node id
 * @param state the node's local view of the breaker
 * @param policyId the policy the node runs (empty: its registry defaults)
 * @param policyVersion the version it runs (0: not a control-plane version)
 * @param degraded whether the node has lost Redis and runs on its local machine
 * @param atMillis Redis time of the heartbeat (0 before it is stored)
 * @param defaults while the node runs its registry defaults (no policy id), those defaults as a
 *     policy argument ({@link PolicyEncoding#toArg}); else empty. The fleet view compares them.
 * @param degradedReason while degraded, why: the {@link StoreFault} code ({@code timeout}, {@code
 *     unreachable}, {@code oom}, {@code readonly}, {@code noperm}, ...); else empty. A node that
 *     cannot reach Redis at all cannot report, so a reason is seen where the fault is partial (one
 *     master of a Cluster refusing, a Redis answering after the node's timeout).
 * @param idleFallbacks fallbacks code registered on the node that its policy does not serve (its
 *     {@code fallbackPolicy} is NONE), comma-separated ({@code STATIC_DEFAULT}); else empty
 * @param session the registry instance that wrote it (random per registry; empty from a runtime
 *     before sessions): readers count it only while it is its node's current session ({@link
 *     NodeLiveness})
 * @param accepts the fallback kinds every call site on the node accepts for the breaker, whatever
 *     the policy in force, comma-separated ({@code NONE,DEFERRED,CONTROLLED_FAILURE}): the
 *     intersection over the node's {@code Fallbacks} of the breaker (see {@code
 *     CircuitBreaker#callSiteAccepts}); empty when no call site declared any (a node without {@code
 *     Fallbacks}, or a runtime from before the field). {@code policy apply} warns before a policy
 *     names a kind missing here ({@link #acceptedKinds})
 */
public record NodeHeartbeat(
    String node,
    State state,
    String policyId,
    long policyVersion,
    boolean degraded,
    long atMillis,
    String defaults,
    String degradedReason,
    String idleFallbacks,
    String session,
    String accepts) {

  /** A heartbeat without a session. */
  public NodeHeartbeat(
      String node,
      State state,
      String policyId,
      long policyVersion,
      boolean degraded,
      long atMillis,
      String defaults,
      String degradedReason,
      String idleFallbacks) {
    this(
        node,
        state,
        policyId,
        policyVersion,
        degraded,
        atMillis,
        defaults,
        degradedReason,
        idleFallbacks,
        "",
        "");
  }

  /** A heartbeat without idle fallbacks. */
  public NodeHeartbeat(
      String node,
      State state,
      String policyId,
      long policyVersion,
      boolean degraded,
      long atMillis,
      String defaults,
      String degradedReason) {
    this(node, state, policyId, policyVersion, degraded, atMillis, defaults, degradedReason, "");
  }

  /** A heartbeat without a degraded reason (a node that is not degraded, or a reader's copy). */
  public NodeHeartbeat(
      String node,
      State state,
      String policyId,
      long policyVersion,
      boolean degraded,
      long atMillis,
      String defaults) {
    this(node, state, policyId, policyVersion, degraded, atMillis, defaults, "", "");
  }

  /** A heartbeat without registry defaults (a node running a control-plane policy version). */
  public NodeHeartbeat(
      String node,
      State state,
      String policyId,
      long policyVersion,
      boolean degraded,
      long atMillis) {
    this(node, state, policyId, policyVersion, degraded, atMillis, "", "", "");
  }

  /** Normalizes a missing value. */
  public NodeHeartbeat {
    defaults = defaults == null ? "" : defaults;
    degradedReason = degradedReason == null ? "" : degradedReason;
    idleFallbacks = idleFallbacks == null ? "" : idleFallbacks;
    session = session == null ? "" : session;
    accepts = accepts == null ? "" : accepts;
  }

  /**
   * The kinds every call site on the node accepts ({@link #accepts}); empty when the node reported
   * none (unknown: nothing is refused). A kind name this runtime does not know is left out.
   */
  public java.util.Set<FallbackPolicy> acceptedKinds() {
    java.util.Set<FallbackPolicy> out = java.util.EnumSet.noneOf(FallbackPolicy.class);
    for (String k : accepts.split(",")) {
      for (FallbackPolicy p : FallbackPolicy.values()) {
        if (p.name().equals(k.trim())) {
          out.add(p);
        }
      }
    }
    return out;
  }

  /**
   * Written out, not the record's generated one: a node compares its report with the last one at
   * every flush tick, and a record's generated {@code equals} is bootstrapped at its first call
   * ({@code java.lang.runtime.ObjectMethods}: dozens of method-handle classes spun and a metaspace
   * collection in a fresh JVM, at the node's first tick; src/docs/performance.md has the figures).
   */
  @Override
  public boolean equals(Object o) {
    return this == o
        || (o instanceof NodeHeartbeat h
            && policyVersion == h.policyVersion
            && degraded == h.degraded
            && atMillis == h.atMillis
            && state == h.state
            && Objects.equals(node, h.node)
            && Objects.equals(policyId, h.policyId)
            && defaults.equals(h.defaults)
            && degradedReason.equals(h.degradedReason)
            && idleFallbacks.equals(h.idleFallbacks)
            && session.equals(h.session)
            && accepts.equals(h.accepts));
  }

  @Override
  public int hashCode() {
    int h = Objects.hashCode(node);
    h = 31 * h + Objects.hashCode(state);
    h = 31 * h + Objects.hashCode(policyId);
    h = 31 * h + Long.hashCode(policyVersion);
    h = 31 * h + Boolean.hashCode(degraded);
    h = 31 * h + Long.hashCode(atMillis);
    h = 31 * h + defaults.hashCode();
    h = 31 * h + degradedReason.hashCode();
    h = 31 * h + idleFallbacks.hashCode();
    h = 31 * h + session.hashCode();
    return 31 * h + accepts.hashCode();
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The JSON the record script stores (the script adds {@code at}). */
  public String toJson() {
    ObjectNode o = JSON.createObjectNode();
    o.put("state", state.code());
    o.put("policyId", policyId == null ? "" : policyId);
    o.put("policyVersion", policyVersion);
    o.put("degraded", degraded);
    if (!defaults.isEmpty()) {
      o.put("defaults", defaults);
    }
    if (degraded && !degradedReason.isEmpty()) {
      o.put("degradedReason", degradedReason);
    }
    if (!idleFallbacks.isEmpty()) {
      o.put("idleFallbacks", idleFallbacks);
    }
    if (!session.isEmpty()) {
      o.put("session", session);
    }
    if (!accepts.isEmpty()) {
      o.put("accepts", accepts);
    }
    return o.toString();
  }

  /** Parses a stored heartbeat; unknown or broken values read as an unknown CLOSED node. */
  public static NodeHeartbeat parse(String node, String json, long lastSeenMillis) {
    try {
      JsonNode o = JSON.readTree(json);
      return new NodeHeartbeat(
          node,
          State.fromCode(o.path("state").asText("CLOSED")),
          o.path("policyId").asText(""),
          o.path("policyVersion").asLong(0),
          o.path("degraded").asBoolean(false),
          o.path("at").asLong(lastSeenMillis),
          o.path("defaults").asText(""),
          o.path("degradedReason").asText(""),
          o.path("idleFallbacks").asText(""),
          o.path("session").asText(""),
          o.path("accepts").asText(""));
    } catch (Exception e) {
      return new NodeHeartbeat(node, State.CLOSED, "", 0, false, lastSeenMillis);
    }
  }
}
