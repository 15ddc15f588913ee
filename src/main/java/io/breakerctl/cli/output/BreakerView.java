package io.breakerctl.cli.output;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.util.List;

/**
 * One breaker in {@code status} output ({@code kind: BreakerList} items). A versioned view: fields
 * may be added, never renamed or removed. Times are RFC 3339 UTC (Redis time).
 *
 * @param id the breaker id
 * @param state the state in force (the shared effective-state function at the read's Redis time)
 * @param storedState the machine state as stored
 * @param failures the sliding window's counts and thresholds
 * @param openUntil when the open window ends (only while OPEN), else null
 * @param leases live half-open probe leases
 * @param override the live override, else null
 * @param policy the warmed policy, else null
 * @param nodes what the fleet's nodes report
 * @param redisTime the Redis time of the read
 * @param problem why the breaker's stored state cannot be read (key and field), only then: its
 *     {@code state} is {@code INVALID} (or {@code PARTIAL}: its keys are half present) and the
 *     other fields are empty
 * @param rates the fleet's calls, rejections and fallbacks per second, and the window they cover
 * @param inForce what MongoDB holds in force for the breaker, and whether the warmed policy is out
 *     of step with it; null (left out) when MongoDB was not consulted
 * @param history where the breaker's history goes, its stream's length and what holds its keys in
 *     Redis; null (left out) for a breaker that cannot be read
 */
@JsonPropertyOrder({
  "id",
  "state",
  "storedState",
  "failures",
  "openUntil",
  "leases",
  "override",
  "policy",
  "inForce",
  "nodes",
  "rates",
  "history",
  "redisTime",
  "problem"
})
@JsonSerialize(using = BreakerViewSerializer.class) // the same tokens, faster: see there
public record BreakerView(
    String id,
    String state,
    String storedState,
    Failures failures,
    String openUntil,
    List<Lease> leases,
    Override override,
    PolicyRef policy,
    Nodes nodes,
    String redisTime,
    @JsonInclude(JsonInclude.Include.NON_NULL) String problem,
    Rates rates,
    @JsonInclude(JsonInclude.Include.NON_NULL) InForce inForce,
    @JsonInclude(JsonInclude.Include.NON_NULL) History history) {

  /** The state of a breaker whose stored state cannot be read. */
  public static final String INVALID = "INVALID";

  /** The state of a breaker whose keys are half present: its state hash missing, others kept. */
  public static final String PARTIAL = "PARTIAL";

  /** Normalizes missing rates. */
  public BreakerView {
    rates = rates == null ? Rates.NONE : rates;
  }

  /** A view without MongoDB's policy in force (not consulted). */
  public BreakerView(
      String id,
      String state,
      String storedState,
      Failures failures,
      String openUntil,
      List<Lease> leases,
      Override override,
      PolicyRef policy,
      Nodes nodes,
      String redisTime,
      String problem,
      Rates rates) {
    this(
        id,
        state,
        storedState,
        failures,
        openUntil,
        leases,
        override,
        policy,
        nodes,
        redisTime,
        problem,
        rates,
        null,
        null);
  }

  /** This view with {@code rates}. */
  public BreakerView withRates(Rates rates) {
    return with(rates, inForce, history);
  }

  /** This view with what MongoDB holds in force. */
  public BreakerView withInForce(InForce inForce) {
    return with(rates, inForce, history);
  }

  /** This view with where its history goes. */
  public BreakerView withHistory(History history) {
    return with(rates, inForce, history);
  }

  private BreakerView with(Rates rates, InForce inForce, History history) {
    return new BreakerView(
        id,
        state,
        storedState,
        failures,
        openUntil,
        leases,
        override,
        policy,
        nodes,
        redisTime,
        problem,
        rates,
        inForce,
        history);
  }

  /**
   * Where a breaker's history goes and what holds its keys in Redis (issue 41; the fields are the
   * hash's, see src/docs/protocol.md, "Keys").
   *
   * @param destination {@code forwarded} (to the control plane, none waiting), {@code not-kept} (no
   *     destination: a bounded tail, holds nothing), {@code waiting} (events await the forwarder
   *     within the hold) or {@code expiring} (they still wait after the hold: given up at the next
   *     script, else they expire with the keys)
   * @param streamLength events in the stream, null when the keys predate the count
   * @param unforwarded events the forwarder has not stored
   * @param waitingSince the oldest of them, null when none
   * @param holdUntil when the hold on them ends, null when none
   * @param eventsExpired events given up unforwarded when their hold ended
   * @param expiredAt when that last happened, null never
   * @param held why the keys do not expire when idle ({@code OPEN}, {@code HALF_OPEN}, {@code
   *     OVERRIDE}, {@code UNFORWARDED}), null when they do
   * @param heldSince since when, null when not held
   */
  @JsonPropertyOrder({
    "destination",
    "streamLength",
    "unforwarded",
    "waitingSince",
    "holdUntil",
    "eventsExpired",
    "expiredAt",
    "held",
    "heldSince"
  })
  public record History(
      String destination,
      Long streamLength,
      long unforwarded,
      String waitingSince,
      String holdUntil,
      long eventsExpired,
      String expiredAt,
      String held,
      String heldSince) {}

  /**
   * What MongoDB holds in force for the breaker (its own policy or the default that governs it),
   * against what its keys hold.
   *
   * @param id the policy in force, null for none (the nodes' registry defaults apply)
   * @param version its version, 0 for none
   * @param drift whether the breaker's keys hold another policy version (a Redis that lost its
   *     data, a warm that failed, a policy warmed that MongoDB no longer holds in force): {@code
   *     breakerctl policy warm} puts back what MongoDB holds
   */
  @JsonPropertyOrder({"id", "version", "drift"})
  public record InForce(String id, long version, boolean drift) {

    /** What MongoDB holds ({@code id@version} or none) against the warmed {@code policy}. */
    public static InForce of(String id, long version, PolicyRef warmed) {
      boolean drift =
          id == null
              ? warmed != null
              : warmed == null || !warmed.id().equals(id) || warmed.version() != version;
      return new InForce(id, id == null ? 0 : version, drift);
    }
  }

  /**
   * The fleet's call rates: the sum over the live nodes of what each counted over the window since
   * its previous liveness beat (about one {@code heartbeatInterval}), divided by that window.
   *
   * @param callsPerSecond calls the breakers admitted per second
   * @param rejectedPerSecond calls rejected per second
   * @param fallbacksPerSecond calls a fallback answered per second (rejected or failed ones)
   * @param windowMillis the window the figures cover: the longest of the live nodes' windows; 0
   *     when no live node sent counts (the rates are then unknown and shown as 0)
   */
  @JsonPropertyOrder({"callsPerSecond", "rejectedPerSecond", "fallbacksPerSecond", "windowMillis"})
  public record Rates(
      double callsPerSecond,
      double rejectedPerSecond,
      double fallbacksPerSecond,
      long windowMillis) {
    /** No live node sent counts. */
    public static final Rates NONE = new Rates(0, 0, 0, 0);

    /** Whether any live node sent counts (else the rates are unknown). */
    public boolean known() {
      return windowMillis > 0;
    }
  }

  /**
   * The sliding window.
   *
   * @param window failures in the window
   * @param calls calls in the window
   * @param threshold failures that trip the breaker: the warmed policy's, else the registry
   *     defaults the nodes recorded, null when neither is known
   * @param rate failures / calls when a failure-rate threshold is configured, else null
   * @param rateThreshold the failure-rate threshold (0..1), else null
   * @param total every failure ever recorded in this incarnation
   */
  @JsonPropertyOrder({"window", "calls", "threshold", "rate", "rateThreshold", "total"})
  public record Failures(
      long window, long calls, Integer threshold, Double rate, Double rateThreshold, long total) {}

  /**
   * A live probe lease.
   *
   * @param id the lease id
   * @param owner the node holding it
   * @param acquiredAt when it was granted (as the grant recorded it; for a lease granted by an
   *     older node, from its expiry and the policy), null if unknown
   * @param expiresAt when its slot returns unless its node renews it
   * @param renewals how often its node renewed it while the probe ran (null if unknown)
   */
  @JsonPropertyOrder({"id", "owner", "acquiredAt", "expiresAt", "renewals"})
  public record Lease(
      String id, String owner, String acquiredAt, String expiresAt, Long renewals) {}

  /**
   * A live operator override.
   *
   * @param state the forced state
   * @param actor who set it
   * @param reason why
   * @param at when it was set
   * @param until when it expires, null until cleared
   * @param correlationId its audit record
   */
  @JsonPropertyOrder({"state", "actor", "reason", "at", "until", "correlationId"})
  public record Override(
      String state, String actor, String reason, String at, String until, String correlationId) {}

  /**
   * The policy warmed into the breaker's keys.
   *
   * @param id the policy id (a breaker id or a default such as {@code caller:*})
   * @param version its version
   */
  @JsonPropertyOrder({"id", "version"})
  public record PolicyRef(String id, long version) {}

  /**
   * The fleet view from the nodes' heartbeats.
   *
   * @param reporting how many nodes report
   * @param disagreeing nodes whose local state differs from the shared state
   * @param degraded nodes that lost Redis and run on their local machine
   * @param oldPolicy nodes running an older policy version than the warmed one
   * @param policyDrift with no policy warmed, nodes whose registry defaults differ from the ones
   *     the breaker records
   * @param degradedReasons for each degraded node that said why, the reason ({@code timeout},
   *     {@code unreachable}, {@code oom}, {@code readonly}, {@code noperm}, ...)
   */
  @JsonPropertyOrder({
    "reporting",
    "disagreeing",
    "degraded",
    "oldPolicy",
    "policyDrift",
    "degradedReasons"
  })
  public record Nodes(
      int reporting,
      List<String> disagreeing,
      List<String> degraded,
      List<String> oldPolicy,
      List<String> policyDrift,
      java.util.Map<String, String> degradedReasons) {

    /** Nodes without degraded reasons. */
    public Nodes(
        int reporting,
        List<String> disagreeing,
        List<String> degraded,
        List<String> oldPolicy,
        List<String> policyDrift) {
      this(reporting, disagreeing, degraded, oldPolicy, policyDrift, java.util.Map.of());
    }

    /** {@code node(reason)} for a degraded node that said why, else its name. */
    public String degradedLabel(String node) {
      String why = degradedReasons.get(node);
      return why == null || why.isEmpty() ? node : node + "(" + why + ")";
    }
  }
}
