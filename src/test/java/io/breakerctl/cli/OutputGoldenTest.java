package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.cli.output.BreakerDetailView;
import io.breakerctl.cli.output.BreakerTables;
import io.breakerctl.cli.output.BreakerView;
import io.breakerctl.cli.output.BreakerViews;
import io.breakerctl.cli.output.Documents;
import io.breakerctl.cli.output.OutputFormat;
import io.breakerctl.cli.output.Style;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.BreakerEvent;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.FleetCallRates;
import io.breakerctl.runtime.store.NodeCallCounts;
import io.breakerctl.runtime.store.NodeHeartbeat;
import io.breakerctl.runtime.store.ProbeLease;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Pins the versioned machine output (json, yaml) and the plain table to golden files under {@code
 * src/test/resources/golden/}. After an intended change, regenerate with {@code mvn test
 * -Dtest=OutputGoldenTest -Dgolden.update=true} and review the diff: fields may be added, never
 * renamed or removed.
 */
@DisplayName("output golden files")
class OutputGoldenTest {
  static final long NOW = 1_796_000_000_000L;
  static final Path GOLDEN = Path.of("src/test/resources/golden");

  static BreakerSnapshot halfOpen() {
    Map<String, String> f = new LinkedHashMap<>();
    f.put("epoch", "1795999000000000");
    f.put("state", "OPEN");
    f.put("generation", "4");
    f.put("openedAt", Long.toString(NOW - 40_000));
    f.put("openUntil", Long.toString(NOW - 10_000));
    f.put("openMillis", "30000");
    f.put("winFailures", "6");
    f.put("winCalls", "20");
    f.put("failuresTotal", "17");
    f.put("policyId", "claims:*");
    f.put("policyVersion", "3");
    f.put("p.failureThreshold", "5");
    f.put("p.failureRate", "50");
    f.put("p.probeLeaseMillis", "10000");
    // a probe running for 14 s, its lease renewed 3 times (renew.lua): acquired 14 s ago, not 4
    f.put("lease.7|node-a", (NOW - 14_000) + ":3");
    // its history goes to the control plane; the trip waits for the forwarder
    f.put("lastTransitionAt", Long.toString(NOW - 40_000));
    f.put("history", "forward");
    f.put("historyHold", "604800000");
    f.put("lastEvent", "1796000000000-0");
    f.put("unfwdSince", Long.toString(NOW - 40_000));
    f.put("unfwdCount", "1");
    f.put("streamLength", "1");
    List<ProbeLease> leases = List.of(new ProbeLease("7", "node-a", NOW + 6_000));
    List<NodeHeartbeat> nodes =
        List.of(
            new NodeHeartbeat("node-a", State.HALF_OPEN, "claims:*", 3, false, NOW - 2_000),
            new NodeHeartbeat(
                "node-b", State.OPEN, "claims:*", 3, false, NOW - 1_000, "", "", "STATIC_DEFAULT"),
            new NodeHeartbeat("node-c", State.CLOSED, "claims:*", 2, true, NOW - 500, "", "oom"));
    Map<String, String> ev = new LinkedHashMap<>();
    ev.put("epoch", "1795999000000000");
    ev.put("from", "CLOSED");
    ev.put("to", "OPEN");
    ev.put("cause", "FAILURE_THRESHOLD");
    ev.put("at", Long.toString(NOW - 40_000));
    ev.put("failures", "5");
    ev.put("threshold", "5");
    ev.put("node", "node-b");
    BreakerId id = BreakerId.parse("claims:members");
    return new BreakerSnapshot(
        id, f, leases, List.of(new BreakerEvent(id, "1796000000000-0", ev)), nodes, NOW);
  }

  static BreakerSnapshot forced() {
    Map<String, String> f = new LinkedHashMap<>();
    f.put("epoch", "1795990000000000");
    f.put("state", "CLOSED");
    f.put("generation", "1");
    f.put("override", "FORCED_OPEN");
    f.put("overrideUntil", Long.toString(NOW + 1_800_000));
    f.put("overrideActor", "alice");
    f.put("overrideReason", "incident 42");
    f.put("overrideAt", Long.toString(NOW - 60_000));
    f.put("overrideCorrelationId", "c0ffee");
    // forwarded, after a stopped forwarder's hold ended with two events unforwarded
    f.put("history", "forward");
    f.put("lastEvent", "1795999000000-0");
    f.put("forwarded", "1795999000000-0");
    f.put("streamLength", "3");
    f.put("eventsExpired", "2");
    f.put("expiredAt", Long.toString(NOW - 120_000));
    return new BreakerSnapshot(
        BreakerId.parse("pay:ledger"), f, List.of(), List.of(), List.of(), NOW);
  }

  private static String render(Consumer<PrintWriter> body) {
    StringWriter w = new StringWriter();
    PrintWriter out = new PrintWriter(w);
    body.accept(out);
    out.flush();
    return w.toString();
  }

  /**
   * The rates two nodes reported over their beats: the half-open breaker busy (rejecting, with
   * fallbacks), the forced one only rejecting.
   */
  private static final FleetCallRates RATES =
      new FleetCallRates(
          Map.of(
              "node-a",
              new NodeCallCounts(
                  60_000,
                  Map.of(
                      "claims:members", new NodeCallCounts.Counts(7_200, 1_500, 300),
                      "pay:ledger", new NodeCallCounts.Counts(0, 90, 0))),
              "node-b",
              new NodeCallCounts(
                  30_000, Map.of("claims:members", new NodeCallCounts.Counts(150, 0, 0)))));

  private static BreakerView rated(BreakerView v) {
    return v.withRates(BreakerViews.rates(RATES, v.id()));
  }

  private static BreakerDetailView ratedDetail() {
    BreakerDetailView d = BreakerViews.detail(halfOpen());
    return d.withRates(BreakerViews.rates(RATES, d.id()), BreakerViews.nodeRates(RATES, d.id()));
  }

  private static String list(OutputFormat format) {
    return render(
        out -> {
          try (Documents.ListWriter l = Documents.list(format, "BreakerList", out)) {
            for (BreakerSnapshot s : List.of(halfOpen(), forced())) {
              l.item(rated(BreakerViews.status(s)), s.id().toString());
            }
          }
        });
  }

  static void assertGolden(String name, String actual) throws Exception {
    Path file = GOLDEN.resolve(name);
    if (Boolean.getBoolean("golden.update")) {
      Files.createDirectories(GOLDEN);
      Files.writeString(file, actual, StandardCharsets.UTF_8);
    }
    assertThat(file).as("golden file (regenerate with -Dgolden.update=true)").exists();
    assertThat(actual).isEqualTo(Files.readString(file, StandardCharsets.UTF_8));
  }

  @Test
  void statusJson() throws Exception {
    assertGolden("status.json", list(OutputFormat.JSON));
  }

  @Test
  void statusYaml() throws Exception {
    assertGolden("status.yaml", list(OutputFormat.YAML));
  }

  @Test
  void describeJson() throws Exception {
    assertGolden(
        "describe.json",
        render(out -> Documents.single(OutputFormat.JSON, "Breaker", ratedDetail(), out)));
  }

  @Test
  void tablesOffATerminal() throws Exception {
    Style plain = Style.plain(Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC));
    String table =
        render(
            out ->
                BreakerTables.status(
                        List.of(
                            rated(BreakerViews.status(halfOpen())),
                            rated(BreakerViews.status(forced()))),
                        true,
                        plain)
                    .print(out, plain, true));
    String describe = render(out -> BreakerTables.describe(ratedDetail(), plain, out));
    assertGolden("status-wide.txt", table);
    assertGolden("describe.txt", describe);
  }

  @Test
  @DisplayName("on a terminal: relative times, colour by state, fitted to the width")
  void terminalStyle() {
    for (String columns : List.of("200", "80", "72", "60")) {
      Style tty =
          Style.of(true, true, columns, Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC));
      String table =
          render(
              out ->
                  BreakerTables.status(
                          List.of(
                              rated(BreakerViews.status(halfOpen())),
                              rated(BreakerViews.status(forced()))),
                          false,
                          tty)
                      .print(out, tty, true));
      assertThat(table).contains("\u001b[31;1mFORCED_OPEN\u001b[0m");
      assertThat(table).as("the forced row's expiry, at any width").contains("until in 30m");
      if (columns.equals("200")) {
        assertThat(table).contains("3 (2 disagree, 1 degraded");
      }
      for (String line : table.split("\n")) {
        assertThat(line.replaceAll("\u001b\\[[0-9;]*m", "").length())
            .isLessThanOrEqualTo(Integer.parseInt(columns));
      }
    }
  }

  @Test
  @DisplayName(
      "describe after Redis lost the policy: says the live nodes enforce v6, not registry defaults")
  void describeNeverContradictsItsNodeTable() {
    Map<String, String> f = new LinkedHashMap<>();
    f.put("epoch", "1795990000000000");
    f.put("state", "CLOSED");
    f.put("generation", "0");
    BreakerSnapshot flushed =
        new BreakerSnapshot(
            BreakerId.parse("orders:pricing"),
            f,
            List.of(),
            List.of(),
            List.of(
                new NodeHeartbeat(
                    "node-a", State.CLOSED, "orders:pricing", 6, false, NOW - 500, "", ""),
                new NodeHeartbeat(
                    "node-b", State.CLOSED, "orders:pricing", 6, false, NOW - 700, "", "")),
            NOW);
    Style plain = Style.plain(Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC));
    String describe =
        render(out -> BreakerTables.describe(BreakerViews.detail(flushed), plain, out));
    assertThat(describe)
        .contains("none warmed in Redis, but live nodes enforce orders:pricing v6")
        .contains("breakerctl policy warm")
        .doesNotContain("registry defaults");
    String warmedNone =
        render(out -> BreakerTables.describe(BreakerViews.detail(forced()), plain, out));
    assertThat(warmedNone).contains("none warmed (nodes use their registry defaults)");
  }

  private static BreakerView withPolicy(BreakerView b, BreakerView.PolicyRef policy) {
    return new BreakerView(
        b.id(),
        b.state(),
        b.storedState(),
        b.failures(),
        b.openUntil(),
        b.leases(),
        b.override(),
        policy,
        b.nodes(),
        b.redisTime(),
        null,
        b.rates());
  }

  @Test
  @DisplayName("status with MongoDB consulted: POLICY shows what MongoDB holds when out of step")
  void policyAgainstMongo() {
    BreakerView.PolicyRef v5 = new BreakerView.PolicyRef("orders:pricing", 5);
    BreakerView warmed = withPolicy(BreakerViews.status(halfOpen()), v5);
    BreakerView lost = withPolicy(warmed, null);
    assertThat(
            BreakerTables.policyCell(
                warmed.withInForce(BreakerView.InForce.of("orders:pricing", 5, v5))))
        .as("in step: the warmed policy alone")
        .isEqualTo("orders:pricing v5");
    assertThat(
            BreakerTables.policyCell(
                warmed.withInForce(BreakerView.InForce.of("orders:pricing", 6, v5))))
        .isEqualTo("orders:pricing v5 (MongoDB v6)");
    assertThat(
            BreakerTables.policyCell(
                lost.withInForce(BreakerView.InForce.of("orders:pricing", 6, null))))
        .as("Redis lost the policy")
        .isEqualTo("- (MongoDB orders:pricing v6)");
    assertThat(BreakerTables.policyCell(warmed.withInForce(BreakerView.InForce.of(null, 0, v5))))
        .as("warmed, while MongoDB holds none in force")
        .isEqualTo("orders:pricing v5 (MongoDB none)");
    assertThat(
            BreakerTables.policyCell(warmed.withInForce(BreakerView.InForce.of("caller:*", 2, v5))))
        .isEqualTo("orders:pricing v5 (MongoDB caller:* v2)");
    assertThat(BreakerView.InForce.of(null, 0, null).drift()).as("none on either side").isFalse();
  }
}
