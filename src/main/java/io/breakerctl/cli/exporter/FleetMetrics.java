package io.breakerctl.cli.exporter;

import io.breakerctl.cli.output.BreakerView;
import io.breakerctl.cli.output.BreakerViews;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.BreakerHistory;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.FleetCallRates;
import io.breakerctl.runtime.store.FleetScan;
import io.breakerctl.runtime.store.FleetSelection;
import io.breakerctl.runtime.store.FleetStore;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The fleet's metrics from one read of Redis: every breaker once, whatever the number of nodes
 * using it, from the same rows {@code status -o json} prints ({@link BreakerViews#status}), so the
 * exporter and {@code status} never disagree. One {@link FleetScan} pass (SCAN, pipelined HGETALL
 * in batches) plus one read of the nodes' call counts, all within one timeout; a read-only (viewer)
 * ACL user can run it.
 *
 * <p>Every family the exporter can write is in {@link #FAMILIES}: the table of src/docs/metrics.md,
 * {@code exporter --help} and the shipped dashboard are checked against it.
 */
public final class FleetMetrics {

  /** One metric family: its name as sampled, type, labels and meaning. */
  public record Family(String name, Exposition.Type type, String labels, String help) {}

  private static final String B = "breaker";

  /** Every family, in the order a scrape writes them. */
  public static final List<Family> FAMILIES =
      List.of(
          new Family(
              "breakerctl_up",
              Exposition.Type.GAUGE,
              "",
              "1 when the last read of Redis covered the whole keyspace, 0 when Redis could not be"
                  + " read (or only part of it) within the scrape timeout"),
          new Family(
              "breakerctl_last_error_info",
              Exposition.Type.INFO,
              "error",
              "the error of the last failed read (present once a read failed; 1)"),
          new Family(
              "breakerctl_fleet_scrape_duration_seconds",
              Exposition.Type.GAUGE,
              "",
              "how long the last read of Redis took"),
          new Family(
              "breakerctl_fleet_reads_total",
              Exposition.Type.COUNTER,
              "",
              "reads of Redis since the exporter started (scrapes within the cache TTL, and"
                  + " concurrent ones, share one)"),
          new Family(
              "breakerctl_fleet_breakers",
              Exposition.Type.GAUGE,
              "",
              "breakers read (unreadable ones included)"),
          new Family(
              "breakerctl_fleet_breaker_state",
              Exposition.Type.GAUGE,
              "breaker, state",
              "1 for the state in force, 0 for the six others; state is closed, open, half_open,"
                  + " forced_open, forced_closed, disabled or metrics_only"),
          new Family(
              "breakerctl_fleet_breaker_open_until_seconds",
              Exposition.Type.GAUGE,
              B,
              "while open: when the open window ends (Unix seconds, Redis time)"),
          new Family(
              "breakerctl_fleet_breaker_backoff_hint_seconds",
              Exposition.Type.GAUGE,
              "breaker, source",
              "while a dependency's back-off hint set the open window (until its end): the wait"
                  + " it asked for, before the maxOpenSeconds cap; source is retry_after,"
                  + " grpc_pushback, caller or classifier"),
          new Family(
              "breakerctl_fleet_breaker_window_failures",
              Exposition.Type.GAUGE,
              B,
              "failures in the shared window"),
          new Family(
              "breakerctl_fleet_breaker_window_calls",
              Exposition.Type.GAUGE,
              B,
              "calls in the shared window"),
          new Family(
              "breakerctl_fleet_breaker_failure_threshold",
              Exposition.Type.GAUGE,
              B,
              "failures that trip the breaker (the warmed policy, else the nodes' defaults; absent"
                  + " when neither is known)"),
          new Family(
              "breakerctl_fleet_breaker_probe_leases",
              Exposition.Type.GAUGE,
              B,
              "half-open probe leases held now"),
          new Family(
              "breakerctl_fleet_breaker_override_info",
              Exposition.Type.INFO,
              "breaker, kind, actor",
              "the live override: kind (forced_open, forced_closed, disabled, metrics_only) and"
                  + " the actor that set it (absent without one)"),
          new Family(
              "breakerctl_fleet_breaker_override_since_seconds",
              Exposition.Type.GAUGE,
              B,
              "when the live override was set (Unix seconds)"),
          new Family(
              "breakerctl_fleet_breaker_override_expiry_seconds",
              Exposition.Type.GAUGE,
              B,
              "when the live override ends (Unix seconds; absent when it lasts until cleared)"),
          new Family(
              "breakerctl_fleet_breaker_policy_version",
              Exposition.Type.GAUGE,
              B,
              "version of the policy warmed into the breaker's keys (0: none, the nodes' defaults)"),
          new Family(
              "breakerctl_fleet_breaker_nodes_reporting",
              Exposition.Type.GAUGE,
              B,
              "live nodes reporting on the breaker"),
          new Family(
              "breakerctl_fleet_breaker_nodes_disagreeing",
              Exposition.Type.GAUGE,
              B,
              "reporting nodes whose local state differs from the state in force"),
          new Family(
              "breakerctl_fleet_breaker_nodes_degraded",
              Exposition.Type.GAUGE,
              B,
              "reporting nodes that lost Redis and decide locally"),
          new Family(
              "breakerctl_fleet_breaker_nodes_old_policy",
              Exposition.Type.GAUGE,
              B,
              "reporting nodes on an older policy version than the warmed one"),
          new Family(
              "breakerctl_fleet_breaker_nodes_policy_drift",
              Exposition.Type.GAUGE,
              B,
              "with no policy warmed: reporting nodes whose defaults differ from the recorded ones"),
          new Family(
              "breakerctl_fleet_breaker_calls_per_second",
              Exposition.Type.GAUGE,
              B,
              "calls admitted per second, summed over the live nodes' last beats"),
          new Family(
              "breakerctl_fleet_breaker_rejected_per_second",
              Exposition.Type.GAUGE,
              B,
              "calls rejected per second, summed over the live nodes' last beats"),
          new Family(
              "breakerctl_fleet_breaker_fallbacks_per_second",
              Exposition.Type.GAUGE,
              B,
              "calls answered by a fallback per second, summed over the live nodes' last beats"),
          new Family(
              "breakerctl_fleet_breaker_transitions_total",
              Exposition.Type.COUNTER,
              B,
              "state transitions of the breaker's keys (their generation: restarts at 0 when the"
                  + " keys are re-created)"),
          new Family(
              "breakerctl_fleet_breaker_failures_total",
              Exposition.Type.COUNTER,
              B,
              "failures recorded by the fleet (since the keys were created)"),
          new Family(
              "breakerctl_fleet_breaker_events_dropped_total",
              Exposition.Type.COUNTER,
              B,
              "transition events dropped unforwarded by the stream's cap"),
          new Family(
              "breakerctl_fleet_breaker_events_expired_total",
              Exposition.Type.COUNTER,
              B,
              "transition events given up unforwarded when their history hold ended"),
          new Family(
              "breakerctl_fleet_breaker_history_unforwarded",
              Exposition.Type.GAUGE,
              B,
              "events waiting for the history forwarder"),
          new Family(
              "breakerctl_fleet_breaker_history_unforwarded_age_seconds",
              Exposition.Type.GAUGE,
              B,
              "age of the oldest event waiting for the history forwarder (0: none waiting)"),
          new Family(
              "breakerctl_fleet_breaker_unreadable",
              Exposition.Type.GAUGE,
              "breaker, problem",
              "1 for a breaker whose keys cannot be read: problem invalid (a value no script"
                  + " writes) or partial (its state hash missing)"));

  /** The lower-case state label values, in {@link State} order. */
  private static final List<State> STATES = List.of(State.values());

  private FleetMetrics() {}

  /** A fresh exposition with every family declared. */
  static Exposition declared() {
    Exposition e = new Exposition();
    for (Family f : FAMILIES) {
      e.family(f.name(), f.type(), f.help());
    }
    return e;
  }

  /** What one read produced: the breakers' samples, or why the read failed. */
  record Read(Exposition samples, int breakers, String error, double seconds) {}

  /**
   * Reads every breaker {@code selection} selects, within {@code timeout} as a whole.
   *
   * @return the samples; {@code error} is set (and the samples hold what was read) when part of the
   *     keyspace or the call rates could not be read
   */
  static Read read(FleetStore store, FleetSelection selection, Duration timeout, int batch) {
    long start = System.nanoTime();
    Exposition e = declared();
    int[] count = {0};
    FleetScan fleet = store.fleet(timeout, batch);
    FleetCallRates r = store.callRatesOrNone(fleet.remaining());
    fleet.snapshots(
        selection,
        s -> {
          count[0]++;
          BreakerView v = BreakerViews.status(s, store.location(s.id()));
          if (v.problem() != null) {
            unreadable(e, v);
          } else {
            breaker(e, s, v.withRates(BreakerViews.rates(r, v.id())));
          }
        },
        (id, problem) -> {
          count[0]++;
          e.sample(
              "breakerctl_fleet_breaker_unreadable", 1, B, id.toString(), "problem", "invalid");
        });
    fleet.halfPresent(
        selection,
        id -> {
          count[0]++;
          e.sample(
              "breakerctl_fleet_breaker_unreadable", 1, B, id.toString(), "problem", "partial");
        });
    String error = fleet.missing().isEmpty() ? null : FleetScan.describe(fleet.missing());
    return new Read(e, count[0], error, (System.nanoTime() - start) / 1e9);
  }

  private static void unreadable(Exposition e, BreakerView v) {
    e.sample(
        "breakerctl_fleet_breaker_unreadable",
        1,
        B,
        v.id(),
        "problem",
        v.state().toLowerCase(Locale.ROOT));
  }

  /** The samples of one readable breaker. */
  private static void breaker(Exposition e, BreakerSnapshot s, BreakerView v) {
    String id = v.id();
    State inForce = State.fromCode(v.state());
    for (State st : STATES) {
      e.sample(
          "breakerctl_fleet_breaker_state",
          st == inForce ? 1 : 0,
          B,
          id,
          "state",
          st.name().toLowerCase(Locale.ROOT));
    }
    if (inForce == State.OPEN) {
      e.sample(
          "breakerctl_fleet_breaker_open_until_seconds",
          seconds(s.openWindow().untilMillis()),
          B,
          id);
    }
    s.backoffHint()
        .ifPresent(
            h ->
                e.sample(
                    "breakerctl_fleet_breaker_backoff_hint_seconds",
                    h.hint().millis() / 1000.0,
                    B,
                    id,
                    "source",
                    h.hint().source().name().toLowerCase(Locale.ROOT)));
    e.sample("breakerctl_fleet_breaker_window_failures", v.failures().window(), B, id);
    e.sample("breakerctl_fleet_breaker_window_calls", v.failures().calls(), B, id);
    if (v.failures().threshold() != null) {
      e.sample("breakerctl_fleet_breaker_failure_threshold", v.failures().threshold(), B, id);
    }
    e.sample("breakerctl_fleet_breaker_probe_leases", v.leases().size(), B, id);
    if (v.override() != null) {
      e.sample(
          "breakerctl_fleet_breaker_override_info",
          1,
          B,
          id,
          "kind",
          v.override().state().toLowerCase(Locale.ROOT),
          "actor",
          v.override().actor());
      e.sample(
          "breakerctl_fleet_breaker_override_since_seconds",
          seconds(s.overrideDetail().map(BreakerSnapshot.OverrideDetail::atMillis).orElse(0L)),
          B,
          id);
      long until = s.overrideDetail().map(BreakerSnapshot.OverrideDetail::untilMillis).orElse(0L);
      if (until > 0) {
        e.sample("breakerctl_fleet_breaker_override_expiry_seconds", seconds(until), B, id);
      }
    }
    e.sample(
        "breakerctl_fleet_breaker_policy_version",
        v.policy() == null ? 0 : v.policy().version(),
        B,
        id);
    BreakerView.Nodes n = v.nodes();
    e.sample("breakerctl_fleet_breaker_nodes_reporting", n.reporting(), B, id);
    e.sample("breakerctl_fleet_breaker_nodes_disagreeing", n.disagreeing().size(), B, id);
    e.sample("breakerctl_fleet_breaker_nodes_degraded", n.degraded().size(), B, id);
    e.sample("breakerctl_fleet_breaker_nodes_old_policy", n.oldPolicy().size(), B, id);
    e.sample("breakerctl_fleet_breaker_nodes_policy_drift", n.policyDrift().size(), B, id);
    BreakerView.Rates r = v.rates();
    e.sample("breakerctl_fleet_breaker_calls_per_second", r.callsPerSecond(), B, id);
    e.sample("breakerctl_fleet_breaker_rejected_per_second", r.rejectedPerSecond(), B, id);
    e.sample("breakerctl_fleet_breaker_fallbacks_per_second", r.fallbacksPerSecond(), B, id);
    e.sample("breakerctl_fleet_breaker_transitions_total", s.generation(), B, id);
    e.sample("breakerctl_fleet_breaker_failures_total", v.failures().total(), B, id);
    BreakerHistory h = s.history();
    e.sample("breakerctl_fleet_breaker_events_dropped_total", h.eventsDropped(), B, id);
    e.sample("breakerctl_fleet_breaker_events_expired_total", h.eventsExpired(), B, id);
    e.sample("breakerctl_fleet_breaker_history_unforwarded", h.unforwarded(), B, id);
    long waiting = h.waitingSinceMillis();
    e.sample(
        "breakerctl_fleet_breaker_history_unforwarded_age_seconds",
        waiting > 0 ? Math.max(0, s.redisTimeMillis() - waiting) / 1000.0 : 0,
        B,
        id);
  }

  private static double seconds(long epochMillis) {
    return epochMillis / 1000.0;
  }
}
