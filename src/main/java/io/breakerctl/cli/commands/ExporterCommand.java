package io.breakerctl.cli.commands;

import io.breakerctl.cli.BreakerSelector;
import io.breakerctl.cli.CliContext;
import io.breakerctl.cli.CliException;
import io.breakerctl.cli.Durations;
import io.breakerctl.cli.ExitCode;
import io.breakerctl.cli.Inputs;
import io.breakerctl.cli.exporter.FleetExporter;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code breakerctl exporter}: the fleet's metrics over HTTP for Prometheus, read from Redis. */
@Command(
    name = "exporter",
    sortOptions = false,
    description = {
      "Serve the fleet's metrics for Prometheus on http://LISTEN/metrics (text format 0.0.4, or"
          + " OpenMetrics 1.0.0 when the Accept header asks for application/openmetrics-text),"
          + " read from Redis: every breaker once, whatever the number of nodes using it (the"
          + " rows `status -o json` prints). Runs until SIGINT or SIGTERM (exit 5).",
      "Reads only (SCAN, HGETALL, ZRANGE, MGET, TIME): works for the viewer ACL. One read at a"
          + " time: a scrape that arrives during a read waits for it, and a read answers every"
          + " scrape for --cache after it ends, so concurrent scrapers cost one read. A read is"
          + " bounded by --scrape-timeout; when Redis cannot be read in that time (down, a"
          + " refused permission, part of a Cluster down) the scrape answers at once with"
          + " breakerctl_up 0 and breakerctl_last_error_info{error=\"...\"}. The exporter starts"
          + " while Redis is down and connects at the next scrape.",
      "Alert rules and a Grafana dashboard over these metrics ship in the jar and the source"
          + " tree: src/main/resources/io/breakerctl/monitoring/ (src/docs/metrics.md: Monitoring)."
    },
    footerHeading = "%nMetrics (labels; src/docs/metrics.md: Monitoring has the meanings):%n",
    footer = {
      "  breakerctl_up, breakerctl_last_error_info{error}, breakerctl_fleet_reads_total,",
      "  breakerctl_fleet_scrape_duration_seconds, breakerctl_fleet_breakers;",
      "  per breaker{breaker}: breakerctl_fleet_breaker_state{state} (0/1: closed, open,",
      "  half_open, forced_open, forced_closed, disabled, metrics_only),",
      "  breakerctl_fleet_breaker_open_until_seconds, _backoff_hint_seconds{source},",
      "  _window_failures, _window_calls,",
      "  _failure_threshold, _probe_leases, _override_info{kind,actor}, _override_since_seconds,",
      "  _override_expiry_seconds, _policy_version, _nodes_reporting, _nodes_disagreeing,",
      "  _nodes_degraded, _nodes_old_policy, _nodes_policy_drift, _calls_per_second,",
      "  _rejected_per_second, _fallbacks_per_second, _transitions_total, _failures_total,",
      "  _events_dropped_total, _events_expired_total, _history_unforwarded,",
      "  _history_unforwarded_age_seconds, _unreadable{problem} (each breakerctl_fleet_breaker_...)."
    })
public final class ExporterCommand implements Callable<Integer> {

  private static final Pattern LISTEN =
      Pattern.compile("(\\[[0-9a-fA-F:.]+\\]|[^:\\[\\]]+):(\\d{1,5})");

  /** Reads in flight per round trip (status's default). */
  private static final int BATCH = 1000;

  @Spec CommandSpec spec;

  @Parameters(
      index = "0",
      arity = "0..1",
      paramLabel = "PATTERN",
      description = "A breaker id or a glob on ids, e.g. 'claims:*' (default: every breaker).")
  String pattern;

  @Option(
      names = "--listen",
      paramLabel = "HOST:PORT",
      defaultValue = "127.0.0.1:9464",
      description =
          "Address to serve on (default: ${DEFAULT-VALUE}, loopback only; 0.0.0.0:9464 for every"
              + " interface; port 0 takes a free port, printed on stderr).")
  String listen;

  @Option(
      names = "--scrape-timeout",
      paramLabel = "DURATION",
      converter = Durations.class,
      defaultValue = "5s",
      description =
          "Bound of one read of Redis (default: ${DEFAULT-VALUE}); keep it below Prometheus's"
              + " scrape_timeout.")
  Duration scrapeTimeout;

  @Option(
      names = "--cache",
      paramLabel = "DURATION",
      converter = Durations.class,
      defaultValue = "1s",
      description =
          "How long a finished read answers scrapes (default: ${DEFAULT-VALUE}; 0: only scrapes"
              + " that arrive during a read share it).")
  Duration cache;

  @Override
  public Integer call() {
    BreakerSelector selector = new BreakerSelector(pattern, null, null);
    if (scrapeTimeout.isZero()) {
      throw CliException.usage("--scrape-timeout must be more than 0");
    }
    InetSocketAddress address = address(listen);
    CliContext root = CliContext.of(spec);
    root.services().settings().requireRedisIdentity();
    FleetExporter exporter;
    try {
      exporter =
          new FleetExporter(
              address, () -> root.services().redis(), selector, scrapeTimeout, cache, BATCH);
    } catch (IOException e) {
      throw CliException.usage(
          "--listen " + Inputs.cut(listen) + ": cannot serve there: " + e.getMessage());
    }
    try (exporter) {
      InetSocketAddress bound = exporter.address();
      PrintWriter err = spec.commandLine().getErr();
      err.println(
          "breakerctl exporter: serving http://"
              + host(bound)
              + ":"
              + bound.getPort()
              + "/metrics (Ctrl-C stops)");
      err.flush();
      Thread.sleep(Long.MAX_VALUE);
      return ExitCode.OK;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return ExitCode.CANCELLED;
    }
  }

  private static String host(InetSocketAddress a) {
    String h = a.getAddress().getHostAddress();
    return h.contains(":") ? "[" + h + "]" : h;
  }

  /** {@code HOST:PORT} ({@code [v6]:PORT} for IPv6), resolved; a clear usage error otherwise. */
  static InetSocketAddress address(String listen) {
    Matcher m = LISTEN.matcher(listen == null ? "" : listen.trim());
    if (!m.matches()) {
      throw CliException.usage(
          "--listen '"
              + Inputs.cut(listen)
              + "' is not HOST:PORT (e.g. 127.0.0.1:9464, [::1]:9464, 0.0.0.0:9464)");
    }
    int port = Integer.parseInt(m.group(2));
    if (port > 65535) {
      throw CliException.usage("--listen '" + Inputs.cut(listen) + "': port must be 0..65535");
    }
    String host = m.group(1).replace("[", "").replace("]", "");
    InetSocketAddress a = new InetSocketAddress(host, port);
    if (a.isUnresolved()) {
      throw CliException.usage(
          "--listen '" + Inputs.cut(listen) + "': unknown host '" + Inputs.cut(host) + "'");
    }
    return a;
  }
}
