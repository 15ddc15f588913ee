package io.breakerctl.cli.commands;

import io.breakerctl.cli.CliContext;
import io.breakerctl.cli.Durations;
import io.breakerctl.cli.Settings;
import io.breakerctl.cli.output.Documents;
import io.breakerctl.cli.output.HistoryText;
import io.breakerctl.cli.output.OutputOptions;
import io.breakerctl.cli.output.Table;
import io.breakerctl.runtime.connection.Redaction;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.history.Deployments;
import io.breakerctl.runtime.control.history.OverrideGuard;
import io.breakerctl.runtime.control.policy.PolicyDrift;
import io.breakerctl.runtime.store.FleetSelection;
import io.breakerctl.runtime.store.FleetStore;
import io.breakerctl.runtime.store.HistoryTotals;
import io.breakerctl.runtime.store.StoreCheck;
import io.breakerctl.runtime.store.StoreFutures;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code breakerctl doctor}: one line per check of Redis, the scripts, ACLs and MongoDB. */
@Command(
    name = "doctor",
    description = {
      "Check the environment, one line per check: Redis reachable (latency), server versions,"
          + " topology (standalone, Sentinel with its master set, Cluster), replication (each"
          + " master's replicas with their state and lag; a warning while min-replicas-to-write is"
          + " 0, so an override a master acknowledged can be lost in a failover), this build's"
          + " scripts cached on every master, Redis TIME vs the"
          + " local clock, eviction (maxmemory with a policy other than noeviction can evict"
          + " breaker keys), the user's ACL permissions to read and to mutate, the nodes that report"
          + " themselves degraded (with the reason: timeout, unreachable, oom, readonly, noperm,"
          + " ...), the live nodes serving calls of a breaker without a report on it (the"
          + " fleet view after Redis lost its data, until the nodes report again), MongoDB"
          + " reachable (latency, version), the deployment (a Redis without the"
          + " identity MongoDB recorded at its address lost its data), and the policies: every"
          + " breaker's keys"
          + " and live nodes on the version MongoDB holds in force (a Redis that lost its data, a"
          + " warm that failed, a policy warmed that MongoDB no longer holds; `policy warm` puts"
          + " back what MongoDB holds); overrides: every override the audit holds live that"
          + " Redis lost (no keys, an older state: a failover to a replica that missed it; the"
          + " history forwarder's next pass puts it back).",
      "history: where the breakers' history goes (forwarded, not kept, waiting with the oldest"
          + " event's age), the events their streams hold, what holds keys past the idle TTL"
          + " (OPEN, HALF_OPEN, OVERRIDE, UNFORWARDED) and the events that expired unforwarded"
          + " (a warning); it fails when events have waited for the forwarder longer than"
          + " --forwarder-grace while no forwarder holds the lease (<prefix>:forwarder): the"
          + " control plane's forwarder is not running (`breakerctl history sync` forwards once).",
      "Exit 1 when any check fails; warnings do not fail."
    })
public final class DoctorCommand implements Callable<Integer> {

  /**
   * One check's result ({@code kind: DoctorReport} items).
   *
   * @param check what was checked
   * @param status ok, warn or fail
   * @param detail what was found
   */
  public record Check(String check, String status, String detail) {}

  @Spec CommandSpec spec;

  @Mixin OutputOptions output;

  @Option(
      names = "--forwarder-grace",
      paramLabel = "DURATION",
      defaultValue = "10m",
      converter = Durations.class,
      description =
          "How long events may wait for the history forwarder while no forwarder holds the"
              + " lease before the history check fails (default: ${DEFAULT-VALUE}).")
  Duration forwarderGrace;

  private final List<Check> checks = new ArrayList<>();

  @Override
  public Integer call() {
    CliContext root = CliContext.of(spec);
    Settings settings = root.services().settings();
    checkRedis(root, settings);
    checkHistory(root, settings, forwarderGrace);
    checkMongo(root, settings);
    checkPolicies(root, settings);
    PrintWriter out = spec.commandLine().getOut();
    if (output.format().isTable()) {
      Table t = new Table("STATUS", "CHECK", "DETAIL");
      t.flexible(2);
      checks.forEach(c -> t.row(null, c.status(), c.check(), c.detail()));
      t.print(out, root.style(), output.headers());
    } else {
      try (Documents.ListWriter w = Documents.list(output.format(), "DoctorReport", out)) {
        checks.forEach(c -> w.item(c, c.check()));
      }
    }
    return checks.stream().anyMatch(c -> c.status().equals("fail")) ? 1 : 0;
  }

  private void add(String check, String status, String detail) {
    checks.add(new Check(check, status, detail));
  }

  private void checkRedis(CliContext root, Settings settings) {
    FleetStore store;
    long t0 = System.nanoTime();
    try {
      store = root.services().redis();
    } catch (RuntimeException e) {
      add("redis", "fail", Redaction.uri(e.getMessage()));
      return;
    }
    double connectMs = (System.nanoTime() - t0) / 1e6;
    for (StoreCheck c : store.diagnose(Redaction.uri(settings.redis()), connectMs)) {
      add(c.check(), c.status().word(), c.detail());
    }
    if (checks.stream().noneMatch(c -> c.check().equals("redis") && c.status().equals("fail"))) {
      for (StoreCheck c : store.nodeChecks(settings.timeout())) {
        add(c.check(), c.status().word(), c.detail());
      }
    }
  }

  /**
   * Where the fleet's history goes: totals of every breaker's {@link
   * io.breakerctl.runtime.store.BreakerHistory}, and whether events wait longer than a forwarder
   * could explain (none holds the lease).
   */
  private void checkHistory(CliContext root, Settings settings, Duration grace) {
    if (checks.stream().anyMatch(c -> c.check().equals("redis") && c.status().equals("fail"))) {
      return;
    }
    HistoryTotals totals = new HistoryTotals();
    long[] now = {0};
    Optional<String> holder;
    try {
      FleetStore store = root.services().redis();
      store
          .fleet(settings.timeout(), 1000)
          .snapshots(
              FleetSelection.ALL,
              s -> {
                if (s.exists() && s.problem().isEmpty()) {
                  totals.add(s.history());
                  now[0] = Math.max(now[0], s.redisTimeMillis());
                }
              },
              (id, problem) -> {});
      holder = StoreFutures.await(store.forwarderLeaseHolder());
    } catch (RuntimeException e) {
      add("history", "fail", "could not read the breakers: " + e.getMessage());
      return;
    }
    String detail = HistoryText.totals(totals, now[0]).substring("History: ".length());
    long waited = totals.oldestWaitingMillis() == 0 ? 0 : now[0] - totals.oldestWaitingMillis();
    if (waited > grace.toMillis() && holder.isEmpty()) {
      add(
          "history",
          "fail",
          detail
              + "; events have waited "
              + HistoryText.age(totals, now[0])
              + " and no history forwarder holds the lease: is the control plane's forwarder"
              + " running? (`breakerctl history sync` forwards once)");
    } else if (waited > grace.toMillis()) {
      add(
          "history",
          "warn",
          detail
              + "; events have waited "
              + HistoryText.age(totals, now[0])
              + " although "
              + holder.get()
              + " holds the forwarder lease: can it reach MongoDB?");
    } else if (totals.eventsExpired() > 0) {
      add("history", "warn", detail);
    } else {
      add("history", "ok", detail);
    }
  }

  /** Each breaker's keys and live nodes against the versions MongoDB holds in force. */
  private void checkPolicies(CliContext root, Settings settings) {
    if (checks.stream()
        .anyMatch(
            c ->
                (c.check().equals("redis") || c.check().equals("mongodb"))
                    && c.status().equals("fail"))) {
      return; // nothing to compare
    }
    checkDeployment(root);
    checkOverrides(root);
    List<PolicyDrift> drift;
    try {
      drift = root.services().policies(true).drift(settings.timeout());
    } catch (RuntimeException e) {
      add("policies", "fail", "could not compare Redis with MongoDB: " + e.getMessage());
      return;
    }
    if (drift.isEmpty()) {
      add(
          "policies",
          "ok",
          "every breaker's keys and live nodes hold the version MongoDB has in force");
      return;
    }
    StringBuilder d =
        firstThree(
            drift.size() + " breaker(s) out of step with MongoDB: ",
            drift.stream().map(PolicyDrift::describe).toList());
    if (drift.stream().anyMatch(PolicyDrift::notWarmed)) {
      d.append(" (breakerctl policy warm puts back what MongoDB holds)");
    }
    add("policies", "fail", d.toString());
  }

  /**
   * Whether Redis still holds the deployment identity MongoDB recorded at its address: a missing
   * key there means Redis lost its data (FLUSHALL, an empty replica promoted) since a forwarder or
   * restore last saw it. Until the fleet's forwarder puts the identity back (its next pass), this
   * is how an operator learns it; the nodes re-assert what they enforce on their own.
   */
  private void checkDeployment(CliContext root) {
    Deployments.Identity who;
    try {
      who = new Deployments(root.services().control()).identify(root.services().redis());
    } catch (RuntimeException e) {
      add("deployment", "warn", "could not read the deployment identity: " + e.getMessage());
      return;
    }
    if (who.key().isEmpty() && who.atAddress().isPresent()) {
      add(
          "deployment",
          "fail",
          "Redis holds no deployment key, but MongoDB recorded "
              + who.atAddress().get().describe()
              + " at its address: Redis lost its data (FLUSHALL, an empty replica promoted);"
              + " running nodes put back what they enforce, `breakerctl replay restore` rebuilds"
              + " the rest from history and `breakerctl policy warm` the policies");
    } else if (who.key().isPresent()
        && who.atAddress().isPresent()
        && !who.key().get().equals(who.atAddress().get().id())) {
      add(
          "deployment",
          "warn",
          "Redis holds "
              + who.key().get()
              + " but MongoDB recorded "
              + who.atAddress().get().describe()
              + " at its address (another deployment took this address over)");
    } else if (who.key().isPresent()) {
      add("deployment", "ok", who.key().get());
    } else {
      add("deployment", "ok", "no identity yet (no history forwarder or restore has run here)");
    }
  }

  /**
   * The overrides MongoDB holds live that Redis lost (a failover to a replica that missed them):
   * the history forwarder's next pass puts them back ({@link OverrideGuard}); until then this is
   * how an operator learns it.
   */
  private void checkOverrides(CliContext root) {
    List<OverrideGuard.Lost> lost;
    List<String> unread = new ArrayList<>();
    try {
      FleetStore redis = root.services().redis();
      String deployment =
          new Deployments(root.services().control()).identify(redis).id().orElse(null);
      lost =
          new OverrideGuard(root.services().control(), redis, "doctor")
              .behind(deployment, root.env().clock().instant(), unread);
    } catch (RuntimeException e) {
      add("overrides", "warn", "could not compare with the audit: " + e.getMessage());
      return;
    }
    if (!lost.isEmpty()) {
      StringBuilder d =
          firstThree(
              lost.size() + " override(s) MongoDB holds live are missing in Redis: ",
              lost.stream().map(OverrideGuard.Lost::describe).toList());
      d.append(
          " (lost in a failover? the history forwarder's next pass puts them back; `breakerctl"
              + " history sync` now)");
      add("overrides", "fail", d.toString());
    } else if (!unread.isEmpty()) {
      add("overrides", "warn", String.join("; ", unread));
    } else {
      add("overrides", "ok", "every override MongoDB holds live is in Redis");
    }
  }

  /** {@code head}, then the first three of {@code items} and how many more. */
  private static StringBuilder firstThree(String head, List<String> items) {
    StringBuilder d = new StringBuilder(head);
    for (int i = 0; i < Math.min(3, items.size()); i++) {
      d.append(i == 0 ? "" : "; ").append(items.get(i));
    }
    if (items.size() > 3) {
      d.append("; ").append(items.size() - 3).append(" more");
    }
    return d;
  }

  private void checkMongo(CliContext root, Settings settings) {
    try {
      ControlDatabase.ServerInfo info = root.services().control().probe();
      add(
          "mongodb",
          "ok",
          String.format(
              "%s: ping %.1f ms, version %s",
              Redaction.uri(settings.mongo()), info.pingMillis(), info.version()));
    } catch (RuntimeException e) {
      Throwable driver = e.getCause() != null ? e.getCause() : e; // what the driver said
      add(
          "mongodb",
          "fail",
          Redaction.uri(settings.mongo()) + ": " + ControlDatabase.describe(driver));
    }
  }
}
