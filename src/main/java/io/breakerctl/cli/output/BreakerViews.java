package io.breakerctl.cli.output;

import io.breakerctl.runtime.control.policy.PolicySpec;
import io.breakerctl.runtime.model.FallbackPolicy;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.BreakerEvent;
import io.breakerctl.runtime.store.BreakerHistory;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.FleetCallRates;
import io.breakerctl.runtime.store.NodeHeartbeat;
import io.breakerctl.runtime.store.PolicyEncoding.WarmedPolicy;
import io.breakerctl.runtime.store.ProbeLease;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Turns snapshots of the shared state into the versioned views printed by the commands. */
public final class BreakerViews {
  private static final Set<String> EVENT_HEADER = Set.of("from", "to", "cause", "at");

  private BreakerViews() {}

  /**
   * The status row of a breaker stored under {@code hashKey}; an {@code INVALID} row naming key and
   * field when its stored state cannot be read.
   */
  public static BreakerView status(BreakerSnapshot s, String hashKey) {
    Optional<String> problem = s.problem();
    if (problem.isPresent()) {
      return invalid(
          s.id().toString(),
          s.storedStateText(),
          "key " + hashKey + ": " + problem.get(),
          s.redisTimeMillis());
    }
    if (!s.exists()) {
      return partial(s.id().toString(), hashKey, "its nodes' reports", s.redisTimeMillis());
    }
    return status(s);
  }

  /**
   * The {@code PARTIAL} row of a breaker whose keys are half present: its state hash is missing
   * while {@code kept} (its event stream, its nodes' reports) is there.
   */
  public static BreakerView partial(String id, String hashKey, String kept, long redisTimeMillis) {
    return problemRow(
        id,
        BreakerView.PARTIAL,
        "",
        "keys half present: "
            + hashKey
            + " is missing, "
            + kept
            + " kept (evicted under maxmemory, or deleted by hand: see `breakerctl doctor`); what"
            + " it enforced is unknown until a node puts it back or the next script starts a new"
            + " incarnation",
        redisTimeMillis);
  }

  /** The {@code INVALID} row of a breaker whose stored state cannot be read, and why. */
  public static BreakerView invalid(
      String id, String storedState, String problem, long redisTimeMillis) {
    return problemRow(id, BreakerView.INVALID, storedState, problem, redisTimeMillis);
  }

  private static BreakerView problemRow(
      String id, String state, String storedState, String problem, long redisTimeMillis) {
    return new BreakerView(
        id,
        state,
        storedState,
        new BreakerView.Failures(0, 0, null, null, null, 0),
        null,
        List.of(),
        null,
        null,
        new BreakerView.Nodes(0, List.of(), List.of(), List.of(), List.of()),
        time(redisTimeMillis),
        problem,
        BreakerView.Rates.NONE);
  }

  /**
   * The status row of a breaker whose stored state is readable ({@link BreakerSnapshot#problem}).
   */
  public static BreakerView status(BreakerSnapshot s) {
    State state = s.effectiveState();
    Optional<WarmedPolicy> warmed = s.warmedPolicy();
    return new BreakerView(
        s.id().toString(),
        state.code(),
        s.storedState().code(),
        failures(s, warmed),
        state == State.OPEN ? time(s.openWindow().untilMillis()) : null,
        leases(s, warmed),
        override(s, state),
        warmed.map(w -> new BreakerView.PolicyRef(w.policyId(), w.version())).orElse(null),
        nodes(s, state, warmed),
        time(s.redisTimeMillis()),
        null,
        BreakerView.Rates.NONE,
        null,
        history(s.history()));
  }

  /** Where a breaker's history goes and what holds its keys, as the views show it. */
  public static BreakerView.History history(BreakerHistory h) {
    return new BreakerView.History(
        h.destination().code(),
        h.streamLength() < 0 ? null : h.streamLength(),
        h.unforwarded(),
        time(h.waitingSinceMillis()),
        time(h.holdUntilMillis()),
        h.eventsExpired(),
        time(h.expiredAtMillis()),
        h.held() == BreakerHistory.Held.NONE ? null : h.held().name(),
        time(h.heldSinceMillis()));
  }

  /**
   * The describe document of a breaker stored under {@code hashKey}; when its stored state cannot
   * be read, an {@code INVALID} document naming key and field, with the hash as stored.
   */
  public static BreakerDetailView detail(BreakerSnapshot s, String hashKey) {
    Optional<String> problem = s.problem();
    if (problem.isEmpty()) {
      return detail(s);
    }
    return new BreakerDetailView(
        s.id().toString(),
        BreakerView.INVALID,
        s.storedStateText(),
        s.epoch(),
        0,
        new BreakerView.Failures(0, 0, null, null, null, 0),
        null,
        List.of(),
        null,
        null,
        nodeViews(s, null, Optional.empty()),
        events(s),
        0,
        time(s.redisTimeMillis()),
        "key " + hashKey + ": " + problem.get(),
        new java.util.TreeMap<>(s.fields()),
        BreakerView.Rates.NONE,
        List.of(),
        null);
  }

  /** The fleet's rates of {@code id} from {@code rates}, rounded to hundredths. */
  public static BreakerView.Rates rates(FleetCallRates rates, String id) {
    if (rates.windowMillis() <= 0) {
      return BreakerView.Rates.NONE;
    }
    FleetCallRates.Rates r = rates.of(id);
    return new BreakerView.Rates(
        round(r.calls()), round(r.rejected()), round(r.fallbacks()), rates.windowMillis());
  }

  /** Each live node's rates of {@code id} from {@code rates}, rounded to hundredths. */
  public static List<BreakerDetailView.NodeRates> nodeRates(FleetCallRates rates, String id) {
    List<BreakerDetailView.NodeRates> out = new ArrayList<>();
    for (FleetCallRates.NodeRates n : rates.byNode(id)) {
      out.add(
          new BreakerDetailView.NodeRates(
              n.node(),
              round(n.rates().calls()),
              round(n.rates().rejected()),
              round(n.rates().fallbacks()),
              n.windowMillis()));
    }
    return out;
  }

  private static double round(double perSecond) {
    return Math.round(perSecond * 100) / 100.0;
  }

  /** The describe document of a breaker whose stored state is readable. */
  public static BreakerDetailView detail(BreakerSnapshot s) {
    State state = s.effectiveState();
    Optional<WarmedPolicy> warmed = s.warmedPolicy();
    long openedAt = s.openWindow().openedAtMillis();
    List<BreakerDetailView.NodeView> nodes = nodeViews(s, state, warmed);
    List<BreakerDetailView.EventView> events = events(s);
    return new BreakerDetailView(
        s.id().toString(),
        state.code(),
        s.storedState().code(),
        s.epoch(),
        s.generation(),
        failures(s, warmed),
        openedAt > 0
            ? new BreakerDetailView.OpenWindow(
                time(openedAt),
                time(s.openWindow().untilMillis()),
                s.openWindow().millis(),
                s.backoffHint()
                    .map(
                        h ->
                            new BreakerDetailView.BackoffHintView(
                                h.hint().millis(), h.hint().source().name(), time(h.untilMillis())))
                    .orElse(null))
            : null,
        leases(s, warmed),
        override(s, state),
        warmed
            .map(
                w ->
                    new BreakerDetailView.PolicyView(
                        w.policyId(), w.version(), PolicySpec.toMap(w.policy()), "warmed"))
            .or(
                () ->
                    s.nodeDefaults()
                        .map(
                            p ->
                                new BreakerDetailView.PolicyView(
                                    "", 0, PolicySpec.toMap(p), "node-defaults")))
            .orElse(null),
        nodes,
        events,
        s.eventsDropped(),
        time(s.redisTimeMillis()),
        null,
        null,
        BreakerView.Rates.NONE,
        List.of(),
        history(s.history()));
  }

  private static List<BreakerDetailView.NodeView> nodeViews(
      BreakerSnapshot s, State state, Optional<WarmedPolicy> warmed) {
    List<BreakerDetailView.NodeView> nodes = new ArrayList<>();
    for (NodeHeartbeat n : s.nodes()) {
      nodes.add(
          new BreakerDetailView.NodeView(
              n.node(),
              n.state().code(),
              n.policyId(),
              n.policyVersion(),
              n.degraded(),
              n.degraded() ? n.degradedReason() : "",
              time(n.atMillis()),
              state != null && n.state() != state,
              isOld(n, warmed),
              drifts(n, s, warmed),
              n.idleFallbacks().isEmpty() ? List.of() : List.of(n.idleFallbacks().split(",")),
              n.acceptedKinds().stream().map(Enum::name).toList(),
              refused(n, warmed)));
    }
    return nodes;
  }

  /**
   * The warmed policy's fallback kind when the node's call sites refuse it (they declared what they
   * accept and it is not among it), else empty.
   */
  private static String refused(NodeHeartbeat n, Optional<WarmedPolicy> warmed) {
    if (warmed.isEmpty() || n.acceptedKinds().isEmpty()) {
      return "";
    }
    FallbackPolicy kind = warmed.get().policy().fallbackPolicy();
    return n.acceptedKinds().contains(kind) ? "" : kind.name();
  }

  private static List<BreakerDetailView.EventView> events(BreakerSnapshot s) {
    List<BreakerDetailView.EventView> events = new ArrayList<>();
    for (BreakerEvent e : s.recentEvents()) {
      Map<String, String> rest = new LinkedHashMap<>();
      // a malformed entry (not written by the scripts) says so, and shows every field it holds
      Optional<String> problem = e.problem();
      problem.ifPresent(p -> rest.put("problem", p));
      e.fields().entrySet().stream()
          .filter(f -> problem.isPresent() || !EVENT_HEADER.contains(f.getKey()))
          .sorted(Map.Entry.comparingByKey())
          .forEach(f -> rest.put(f.getKey(), f.getValue()));
      events.add(
          new BreakerDetailView.EventView(
              e.streamId(),
              time(e.atMillis()),
              e.fromText(),
              e.toText(),
              problem.isPresent() ? "MALFORMED" : e.causeText(),
              rest));
    }
    return events;
  }

  private static BreakerView.Failures failures(BreakerSnapshot s, Optional<WarmedPolicy> warmed) {
    long failures = s.window().failures();
    long calls = s.window().calls();
    Optional<Policy> inForce = warmed.map(WarmedPolicy::policy).or(s::nodeDefaults);
    Integer threshold = inForce.map(Policy::failureThreshold).orElse(null);
    Double rateThreshold =
        inForce
            .filter(p -> p.failureRateThreshold().isPresent())
            .map(p -> p.failureRateThreshold().getAsDouble())
            .orElse(null);
    Double rate =
        rateThreshold == null
            ? null
            : calls == 0 ? 0.0 : Math.round(1000.0 * failures / calls) / 10.0;
    return new BreakerView.Failures(
        failures, calls, threshold, rate, rateThreshold, s.failuresTotal());
  }

  private static List<BreakerView.Lease> leases(BreakerSnapshot s, Optional<WarmedPolicy> warmed) {
    List<BreakerView.Lease> out = new ArrayList<>();
    long leaseMillis = warmed.map(w -> w.policy().probeLease().toMillis()).orElse(0L);
    for (ProbeLease l : s.liveLeases()) {
      Optional<BreakerSnapshot.LeaseGrant> grant = s.grantOf(l);
      out.add(
          new BreakerView.Lease(
              l.leaseId(),
              l.owner(),
              grant.isPresent()
                  ? time(grant.get().grantedAtMillis())
                  : leaseMillis > 0 ? time(l.expiresAtMillis() - leaseMillis) : null,
              time(l.expiresAtMillis()),
              grant.map(BreakerSnapshot.LeaseGrant::renewals).orElse(null)));
    }
    return out;
  }

  private static BreakerView.Override override(BreakerSnapshot s, State state) {
    if (!state.isOverride()) {
      return null;
    }
    // an override in force is a stored one (EffectiveState)
    BreakerSnapshot.OverrideDetail o = s.overrideDetail().orElseThrow();
    long until = o.untilMillis();
    return new BreakerView.Override(
        state.code(),
        o.actor(),
        o.reason(),
        time(o.atMillis()),
        until > 0 ? time(until) : null,
        o.correlationId());
  }

  private static BreakerView.Nodes nodes(
      BreakerSnapshot s, State state, Optional<WarmedPolicy> warmed) {
    List<String> disagreeing = new ArrayList<>();
    List<String> degraded = new ArrayList<>();
    List<String> old = new ArrayList<>();
    List<String> drift = new ArrayList<>();
    java.util.Map<String, String> reasons = new java.util.LinkedHashMap<>();
    for (NodeHeartbeat n : s.nodes()) {
      if (drifts(n, s, warmed)) {
        drift.add(n.node());
      }
      if (n.state() != state) {
        disagreeing.add(n.node());
      }
      if (n.degraded()) {
        degraded.add(n.node());
        if (!n.degradedReason().isEmpty()) {
          reasons.put(n.node(), n.degradedReason());
        }
      }
      if (isOld(n, warmed)) {
        old.add(n.node());
      }
    }
    return new BreakerView.Nodes(s.nodes().size(), disagreeing, degraded, old, drift, reasons);
  }

  /**
   * With no policy warmed, a node drifts when it reports registry defaults other than the ones the
   * breaker records (the last node to record wins; any difference shows on the others).
   */
  private static boolean drifts(NodeHeartbeat n, BreakerSnapshot s, Optional<WarmedPolicy> warmed) {
    String recorded = s.nodePolicy().orElse(null);
    return warmed.isEmpty()
        && recorded != null
        && !n.defaults().isEmpty()
        && !n.defaults().equals(recorded);
  }

  private static boolean isOld(NodeHeartbeat n, Optional<WarmedPolicy> warmed) {
    return warmed.isPresent() && n.policyVersion() < warmed.get().version();
  }

  /** The policy spec map (shared with describe's text output). */
  public static Map<String, Object> spec(Policy p) {
    return PolicySpec.toMap(p);
  }

  private static String time(long epochMillis) {
    return epochMillis > 0 ? Style.rfc3339(epochMillis) : null;
  }
}
