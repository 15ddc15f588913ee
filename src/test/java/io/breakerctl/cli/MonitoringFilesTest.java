package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.breakerctl.cli.exporter.FleetMetrics;
import io.breakerctl.testing.Prometheus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped monitoring files (src/main/resources/io/breakerctl/monitoring): the alert rules pass
 * {@code promtool check rules} and their unit tests ({@code promtool test rules}: every alert fires
 * on its synthetic series and stays silent on a healthy breaker and a healthy fleet), skipped when
 * promtool is not on PATH, and every dashboard query parses (promtool, as recording rules); the
 * dashboard is valid JSON whose every metric is documented (the exporter's families, the docs' node
 * meters in their Prometheus spelling); src/docs/metrics.md and {@code exporter --help} name every
 * exporter family. {@link ExporterIT} checks the same queries against a live scrape and a real
 * Prometheus.
 */
@DisplayName("shipped alert rules and dashboard")
class MonitoringFilesTest {
  private static final Path DIR = Path.of("src/main/resources/io/breakerctl/monitoring");
  private static final Path RULES = DIR.resolve("breakerctl-alerts.yml");
  private static final Path DASHBOARD = DIR.resolve("breakerctl-dashboard.json");
  private static final Path RULE_TESTS =
      Path.of("src/test/resources/monitoring/breakerctl-alerts-test.yml");
  private static final Pattern METRIC = Pattern.compile("\\bbreakerctl_[a-z0-9_]+");

  /** Every query ({@code expr}) of every panel of the shipped dashboard, in order. */
  static List<String> dashboardQueries() throws Exception {
    JsonNode d = new ObjectMapper().readTree(Files.readString(DASHBOARD));
    List<String> out = new ArrayList<>();
    for (JsonNode panel : d.path("panels")) {
      for (JsonNode t : panel.path("targets")) {
        out.add(t.path("expr").asText());
      }
    }
    return out;
  }

  /** The metric names a query uses (recording rules, {@code breakerctl:...}, are not names). */
  static Set<String> metricNames(String expr) {
    Set<String> out = new LinkedHashSet<>();
    Matcher m = METRIC.matcher(expr);
    while (m.find()) {
      out.add(m.group());
    }
    return out;
  }

  /**
   * The docs' node meters in their Prometheus spelling (Micrometer's: dots to underscores, a
   * counter with {@code _total}, a timer with {@code _seconds_count}, {@code _sum}, {@code _max}).
   */
  static Set<String> nodeMeters() throws Exception {
    Matcher m =
        Pattern.compile("(?m)^\\| `(breakerctl\\.[a-z.]+)` \\| ([a-z ]+) \\|")
            .matcher(Files.readString(Path.of("src/docs/metrics.md")));
    Set<String> out = new HashSet<>();
    while (m.find()) {
      String name = m.group(1).replace('.', '_');
      String type = m.group(2).trim();
      if (type.endsWith("counter")) {
        out.add(name + "_total");
      } else if (type.endsWith("timer")) {
        out.addAll(List.of(name + "_seconds_count", name + "_seconds_sum", name + "_seconds_max"));
      } else {
        out.add(name);
      }
    }
    assertThat(out).as("the docs' meter table").contains("breakerctl_breaker_rejections_total");
    return out;
  }

  private static Set<String> families() {
    Set<String> out = new HashSet<>();
    FleetMetrics.FAMILIES.forEach(f -> out.add(f.name()));
    return out;
  }

  @Test
  @DisplayName(
      "the dashboard is valid JSON, every panel has a query, every metric it names is documented")
  void dashboard() throws Exception {
    JsonNode d = new ObjectMapper().readTree(Files.readString(DASHBOARD));
    assertThat(d.path("uid").asText()).isEqualTo("breakerctl-fleet");
    assertThat(d.path("panels")).isNotEmpty();
    Set<Integer> ids = new HashSet<>();
    for (JsonNode p : d.path("panels")) {
      assertThat(ids.add(p.path("id").asInt())).as("panel ids unique").isTrue();
      assertThat(p.path("targets")).as("panel %s has a query", p.path("title")).isNotEmpty();
    }
    Set<String> known = families();
    known.addAll(nodeMeters());
    List<String> queries = dashboardQueries();
    Set<String> used = new HashSet<>();
    for (String q : queries) {
      used.addAll(metricNames(q));
    }
    assertThat(used).as("metrics the dashboard names").isSubsetOf(known);
    assertThat(used)
        .as("it shows the fleet state, overrides, rejections, probes, Redis latency, flapping")
        .contains(
            "breakerctl_fleet_breaker_state",
            "breakerctl_fleet_breaker_override_info",
            "breakerctl_breaker_rejections_total",
            "breakerctl_breaker_probes_total",
            "breakerctl_redis_commands_seconds_sum",
            "breakerctl_fleet_breaker_transitions_total");
  }

  @Test
  @DisplayName("the docs' exporter table and exporter --help name every family")
  void documented() throws Exception {
    String readme = Files.readString(Path.of("src/docs/metrics.md"));
    InProcessRun help = InProcessRun.breakerctl(java.util.Map.of(), "exporter", "--help");
    assertThat(help.code()).isZero();
    String text = help.out().replace("\n", " ");
    for (FleetMetrics.Family f : FleetMetrics.FAMILIES) {
      assertThat(readme).as("docs name %s", f.name()).contains("| `" + f.name() + "` |");
      String shortName = f.name().replace("breakerctl_fleet_breaker_", "_");
      assertThat(text).as("--help names %s", f.name()).containsAnyOf(f.name(), shortName);
    }
  }

  @Test
  @DisplayName("promtool check rules and promtool test rules pass on the shipped rules")
  void promtool(@TempDir Path dir) throws Exception {
    Optional<Path> promtool = Prometheus.binary("promtool");
    Assumptions.assumeTrue(
        promtool.isPresent(),
        "promtool is not on PATH (Debian: apt-get install prometheus): the rule checks are skipped");
    Files.copy(RULES, dir.resolve("breakerctl-alerts.yml"));
    Files.copy(RULE_TESTS, dir.resolve("breakerctl-alerts-test.yml"));
    assertThat(run(dir, promtool.get().toString(), "check", "rules", "breakerctl-alerts.yml"))
        .contains("SUCCESS");
    assertThat(run(dir, promtool.get().toString(), "test", "rules", "breakerctl-alerts-test.yml"))
        .contains("SUCCESS");
    // each alert has a firing case in the tests
    String tests = Files.readString(RULE_TESTS);
    Matcher alerts =
        Pattern.compile("(?m)^      - alert: (\\w+)$").matcher(Files.readString(RULES));
    int count = 0;
    while (alerts.find()) {
      count++;
      assertThat(tests)
          .as("a test where %s fires", alerts.group(1))
          .containsPattern(
              "alertname: " + alerts.group(1) + "\\n        exp_alerts:\\n          - ");
    }
    assertThat(count).isEqualTo(9);

    // every dashboard query parses: promtool checks each as the expression of a recording rule
    // (Grafana's variables replaced as the IT does; ExporterIT also runs them on a Prometheus)
    StringBuilder rules = new StringBuilder("groups:\n  - name: dashboard\n    rules:\n");
    List<String> queries = dashboardQueries();
    for (int i = 0; i < queries.size(); i++) {
      String q = queries.get(i).replace("$__rate_interval", "5m").replace("$breaker", ".*");
      rules
          .append("      - record: dashboard:query_")
          .append(i)
          .append("\n        expr: '")
          .append(q.replace("'", "''"))
          .append("'\n");
    }
    Files.writeString(dir.resolve("dashboard-queries.yml"), rules);
    assertThat(run(dir, promtool.get().toString(), "check", "rules", "dashboard-queries.yml"))
        .contains("SUCCESS: " + queries.size() + " rules found");
  }

  private static String run(Path dir, String... command) throws Exception {
    Process p =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as("%s: %s", String.join(" ", command), out).isZero();
    return out;
  }
}
