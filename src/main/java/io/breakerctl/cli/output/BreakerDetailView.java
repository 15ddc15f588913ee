package io.breakerctl.cli.output;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Map;

/**
 * One breaker in {@code describe} output ({@code kind: Breaker}). A versioned view: fields may be
 * added, never renamed or removed. Times are RFC 3339 UTC (Redis time).
 *
 * @param id the breaker id
 * @param state the state in force
 * @param storedState the machine state as stored
 * @param epoch the incarnation of the keys
 * @param generation bumped by every transition
 * @param failures the sliding window
 * @param open the current or last open window, null if never opened
 * @param leases live probe leases
 * @param override the live override, else null
 * @param policy the policy in force (warmed), else null
 * @param nodes the last report (heartbeat) of every node that is alive
 * @param events the newest events, newest first
 * @param eventsDropped events lost to the stream's hard cap
 * @param history where the breaker's history goes, its stream's length and what holds its keys
 * @param redisTime the Redis time of the read
 * @param problem why the stored state cannot be read (key and field), only then: {@code state} is
 *     {@code INVALID}
 * @param storedFields the state hash as stored, only when there is a problem
 * @param rates the fleet's calls, rejections and fallbacks per second, and the window they cover
 * @param nodeRates each live node's share of {@code rates} (the nodes that counted a call of the
 *     breaker), by node id
 */
@JsonPropertyOrder({
  "id",
  "state",
  "storedState",
  "epoch",
  "generation",
  "failures",
  "open",
  "leases",
  "override",
  "policy",
  "nodes",
  "rates",
  "nodeRates",
  "events",
  "eventsDropped",
  "history",
  "redisTime",
  "problem",
  "storedFields"
})
public record BreakerDetailView(
    String id,
    String state,
    String storedState,
    String epoch,
    long generation,
    BreakerView.Failures failures,
    OpenWindow open,
    List<BreakerView.Lease> leases,
    BreakerView.Override override,
    PolicyView policy,
    List<NodeView> nodes,
    List<EventView> events,
    long eventsDropped,
    String redisTime,
    @JsonInclude(JsonInclude.Include.NON_NULL) String problem,
    @JsonInclude(JsonInclude.Include.NON_NULL) Map<String, String> storedFields,
    BreakerView.Rates rates,
    List<NodeRates> nodeRates,
    @JsonInclude(JsonInclude.Include.NON_NULL) BreakerView.History history) {

  /** Normalizes missing rates. */
  public BreakerDetailView {
    rates = rates == null ? BreakerView.Rates.NONE : rates;
    nodeRates = nodeRates == null ? List.of() : List.copyOf(nodeRates);
  }

  /** This view with {@code rates} and {@code nodeRates}. */
  public BreakerDetailView withRates(BreakerView.Rates rates, List<NodeRates> nodeRates) {
    return new BreakerDetailView(
        id,
        state,
        storedState,
        epoch,
        generation,
        failures,
        open,
        leases,
        override,
        policy,
        nodes,
        events,
        eventsDropped,
        redisTime,
        problem,
        storedFields,
        rates,
        nodeRates,
        history);
  }

  /**
   * One live node's calls, rejections and fallbacks per second on the breaker, over its own window
   * (the time between its last two liveness beats).
   *
   * @param node the node id
   * @param callsPerSecond calls admitted per second
   * @param rejectedPerSecond calls rejected per second
   * @param fallbacksPerSecond calls a fallback answered per second
   * @param windowMillis the node's window
   */
  @JsonPropertyOrder({
    "node",
    "callsPerSecond",
    "rejectedPerSecond",
    "fallbacksPerSecond",
    "windowMillis"
  })
  public record NodeRates(
      String node,
      double callsPerSecond,
      double rejectedPerSecond,
      double fallbacksPerSecond,
      long windowMillis) {}

  /**
   * The open window.
   *
   * @param openedAt when it opened
   * @param until when it ends
   * @param millis its length (doubles per failed probe)
   * @param backoffHint the dependency's back-off hint that set it, while in force; else absent
   */
  @JsonPropertyOrder({"openedAt", "until", "millis", "backoffHint"})
  public record OpenWindow(
      String openedAt,
      String until,
      long millis,
      @JsonInclude(JsonInclude.Include.NON_NULL) BackoffHintView backoffHint) {}

  /**
   * A back-off hint in force: the wait a dependency asked for (Retry-After, gRPC pushback, a
   * caller's value), before the maxOpenSeconds cap, and the end of the window it set.
   *
   * @param millis the wait asked for
   * @param source RETRY_AFTER, GRPC_PUSHBACK, CALLER or CLASSIFIER
   * @param until the end of the window it set (capped by maxOpenSeconds)
   */
  @JsonPropertyOrder({"millis", "source", "until"})
  public record BackoffHintView(long millis, String source, String until) {}

  /**
   * The policy in force.
   *
   * @param id the policy id
   * @param version its version
   * @param spec the spec, field name to value
   * @param source {@code warmed} (a control-plane version) or {@code node-defaults} (no policy is
   *     warmed: the registry defaults the nodes recorded; id empty, version 0)
   */
  @JsonPropertyOrder({"id", "version", "spec", "source"})
  public record PolicyView(String id, long version, Map<String, Object> spec, String source) {}

  /**
   * A live node's last report on the breaker (its heartbeat: sent when what it reports changes, and
   * at least every 10 minutes; the node counts while its liveness beat holds).
   *
   * @param node the node id
   * @param state its local view
   * @param policyId the policy it runs
   * @param policyVersion the version it runs
   * @param degraded whether it lost Redis
   * @param degradedReason while degraded, why ({@code timeout}, {@code oom}, {@code noperm}, ...;
   *     empty when the node did not say)
   * @param lastSeen when it last sent this report
   * @param disagrees whether its state differs from the shared state
   * @param oldPolicy whether it runs an older version than the warmed one
   * @param policyDrift with no policy warmed, whether its registry defaults differ from the ones
   *     the breaker records (nodes configured differently)
   * @param idleFallbacks fallbacks code registered on the node that the policy does not serve
   *     ({@code fallbackPolicy} NONE: its rejected calls get the rejection), empty for none
   * @param accepts the fallback kinds every call site on the node accepts for the breaker, empty
   *     when its call sites declared none (nothing refused)
   * @param refuses the warmed policy's {@code fallbackPolicy} when the node's call sites do not
   *     accept it (their calls then get a controlled failure instead), else empty
   */
  @JsonPropertyOrder({
    "node",
    "state",
    "policyId",
    "policyVersion",
    "degraded",
    "degradedReason",
    "lastSeen",
    "disagrees",
    "oldPolicy",
    "policyDrift",
    "idleFallbacks",
    "accepts",
    "refuses"
  })
  public record NodeView(
      String node,
      String state,
      String policyId,
      long policyVersion,
      boolean degraded,
      String degradedReason,
      String lastSeen,
      boolean disagrees,
      boolean oldPolicy,
      boolean policyDrift,
      List<String> idleFallbacks,
      List<String> accepts,
      String refuses) {}

  /**
   * One event of the stream.
   *
   * @param streamId the stream entry id
   * @param at Redis time of the transition
   * @param from the state before
   * @param to the state after
   * @param cause why
   * @param fields every other field as stored (node, actor, reason, counts, thresholds, ...)
   */
  @JsonPropertyOrder({"streamId", "at", "from", "to", "cause", "fields"})
  public record EventView(
      String streamId,
      String at,
      String from,
      String to,
      String cause,
      Map<String, String> fields) {}
}
