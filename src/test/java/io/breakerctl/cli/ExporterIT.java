package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.testing.ChildJvm;
import io.breakerctl.testing.Prometheus;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34, items 1 and 3: {@code breakerctl exporter} against a real redis-server, run as the
 * docs' read-only viewer ACL user, while 20 HYBRID nodes in 2 JVMs (10 here, 10 in a child process)
 * serve one breaker whose dependency fails while a marker file exists. Over HTTP, then through a
 * real Prometheus (Debian's package, from PATH; skipped when absent) scraping it every second: the
 * breaker appears once whatever the number of nodes, open with its open-until while the dependency
 * fails, closed again after it recovers, then forced open by the CLI with the override's actor. The
 * shipped dashboard's queries all parse in that Prometheus and every exporter metric they name is
 * in the live scrape. Faults: a user without read permission, a SIGSTOPped Redis (concurrent
 * scrapes share one bounded read) and a killed one give {@code breakerctl_up 0} with the error,
 * never a hung scrape.
 */
@DisplayName("breakerctl exporter: a fleet scraped over HTTP and by a real Prometheus")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ExporterIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ID = "exp:dep";
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  @RegisterExtension
  static final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);

  @TempDir static Path home;
  static Path marker;
  static ChildJvm child;
  static ExporterNodesMain local;
  static Exporter exporter;
  static de.bwaldvogel.mongo.MongoServer mongo;

  /** Every family name a scrape of this class's exporters showed. */
  static final java.util.Set<String> SEEN = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /** An exporter run in-process by the CLI, on a thread, until interrupted. */
  record Exporter(Thread thread, int port, InProcessRun[] result) {
    static Exporter start(Map<String, String> env, String... options) throws IOException {
      int port;
      try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
        port = s.getLocalPort();
      }
      List<String> args = new ArrayList<>(List.of("exporter", "--listen", "127.0.0.1:" + port));
      args.addAll(List.of(options));
      InProcessRun[] result = new InProcessRun[1];
      Thread t =
          new Thread(
              () -> result[0] = InProcessRun.breakerctl(env, args.toArray(String[]::new)),
              "exporter-under-test");
      t.setDaemon(true);
      t.start();
      Exporter e = new Exporter(t, port, result);
      await(Duration.ofSeconds(30), "the exporter answers on " + port, () -> e.answers());
      return e;
    }

    private boolean answers() {
      try {
        return get("/").statusCode() == 200;
      } catch (IOException e) {
        return false;
      }
    }

    HttpResponse<String> get(String path, String... headers) throws IOException {
      HttpRequest.Builder b =
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
              .timeout(Duration.ofSeconds(30));
      if (headers.length > 0) {
        b.headers(headers);
      }
      try {
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException(e);
      }
    }

    /** One scrape in the text format: every sample by its series. */
    Map<String, Double> scrape() {
      try {
        HttpResponse<String> r = get("/metrics");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type"))
            .hasValue("text/plain; version=0.0.4; charset=utf-8");
        return samples(r.body());
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }

    /** Stops the exporter as SIGINT does (the thread interrupted): exit 5. */
    int stop() throws InterruptedException {
      thread.interrupt();
      thread.join(10_000);
      assertThat(thread.isAlive()).as("the exporter stopped").isFalse();
      return result[0].code();
    }
  }

  static Map<String, String> env(String user, String password) {
    Map<String, String> env = new HashMap<>();
    env.put("XDG_CONFIG_HOME", home.toString());
    env.put("BREAKERCTL_REDIS", redis.uri());
    // the control plane takes the overrides' audits (without one, force waits for it)
    env.put("BREAKERCTL_MONGO", "mongodb://127.0.0.1:" + mongo.getLocalAddress().getPort());
    env.put("BREAKERCTL_TIMEOUT", "10s");
    if (user != null) {
      env.put("BREAKERCTL_REDIS_USER", user);
      env.put("BREAKERCTL_REDIS_PASSWORD", password);
    }
    return env;
  }

  /** Samples of a text-format scrape by series ({@code name{labels}}), in order. */
  static Map<String, Double> samples(String body) {
    Map<String, Double> out = new LinkedHashMap<>();
    for (String line : body.split("\n")) {
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int space = line.lastIndexOf(' ');
      assertThat(out.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1))))
          .as("series written once: %s", line)
          .isNull();
    }
    return out;
  }

  /** Waits for a condition that costs a scrape or a query: checked every 100 ms. */
  static void await(Duration limit, String what, BooleanSupplier condition) {
    Poll.until(limit, Duration.ofMillis(100), what, condition);
  }

  static String state(String s) {
    return "breakerctl_fleet_breaker_state{breaker=\"" + ID + "\",state=\"" + s + "\"}";
  }

  static String series(String name) {
    return name + "{breaker=\"" + ID + "\"}";
  }

  static void ok(String... args) {
    InProcessRun r = InProcessRun.breakerctl(env(null, null), args);
    assertThat(r.code()).as("%s: %s", String.join(" ", args), r.err()).isZero();
  }

  /** The docs' viewer ACL line, as user {@code viewer}. */
  static void viewer() throws Exception {
    String rules = RolesIT.readmeRoles().get("viewer");
    List<String> acl = new ArrayList<>(List.of("ACL", "SETUSER", "viewer", "on", ">viewer-pw"));
    acl.addAll(List.of(rules.split(" ")));
    redis.server().call(acl.toArray(String[]::new));
  }

  @BeforeAll
  static void fleet() throws Exception {
    mongo =
        new de.bwaldvogel.mongo.MongoServer(new de.bwaldvogel.mongo.backend.memory.MemoryBackend());
    mongo.bind("127.0.0.1", 0);
    viewer();
    marker = home.resolve("dependency-down");
    child =
        ChildJvm.start(
            ExporterNodesMain.class, redis.uri(), ID, "10", "exp-child-", marker.toString());
    local = ExporterNodesMain.start(redis.uri(), ID, 10, "exp-local-", marker);
    await(
        Duration.ofSeconds(60),
        "the child's nodes are built",
        () -> child.stdout().contains("READY"));
    exporter = Exporter.start(env("viewer", "viewer-pw"), "--cache", "0", "--scrape-timeout", "2s");
    await(
        Duration.ofSeconds(30),
        "20 nodes report on " + ID,
        () ->
            exporter.scrape().getOrDefault(series("breakerctl_fleet_breaker_nodes_reporting"), 0.0)
                == 20);
  }

  @AfterAll
  static void stop() throws Exception {
    if (exporter != null) {
      assertThat(exporter.stop()).as("SIGINT-like stop: exit 5").isEqualTo(ExitCode.CANCELLED);
    }
    if (local != null) {
      local.close();
    }
    if (child != null) {
      child.close();
    }
    if (mongo != null) {
      mongo.shutdownNow();
    }
  }

  /** What an observer (the exporter over HTTP, or Prometheus) sees of the breaker. */
  interface View {
    /**
     * The values of every series of {@code name} for the breaker (and more matchers), by labels.
     */
    Map<String, Double> of(String selector);
  }

  static View http() {
    return selector -> {
      Map<String, Double> out = new LinkedHashMap<>();
      exporter
          .scrape()
          .forEach(
              (k, v) -> {
                if (k.startsWith(selector)) {
                  out.put(k, v);
                }
              });
      return out;
    };
  }

  /**
   * Trips the fleet (the dependency fails), sees the breaker open once with its open-until,
   * recovers it (the dependency answers), sees it closed, then forces it open by the CLI and sees
   * the override with its actor; {@code view} observes, {@code selector} spells a series.
   */
  static void tripRecoverForce(
      View view, java.util.function.BiFunction<String, String, String> selector) throws Exception {
    InProcessRun.breakerctl(env(null, null), "force", "clear", ID, "--reason", "reset", "--yes");
    Files.writeString(marker, "down");
    String open = selector.apply("breakerctl_fleet_breaker_state", "state=\"open\"");
    await(Duration.ofSeconds(30), "the breaker open", () -> view.of(open).values().contains(1.0));
    Map<String, Double> opened = view.of(open);
    assertThat(opened).as("one series of the open state, whatever the 20 nodes").hasSize(1);
    String until = selector.apply("breakerctl_fleet_breaker_open_until_seconds", "");
    await(Duration.ofSeconds(30), "an open-until", () -> view.of(until).size() == 1);
    assertThat(view.of(until).values().iterator().next())
        .as("open-until is a Unix time in seconds this year")
        .isBetween(
            System.currentTimeMillis() / 1000.0 - 3600, System.currentTimeMillis() / 1000.0 + 3600);

    Files.delete(marker);
    String closed = selector.apply("breakerctl_fleet_breaker_state", "state=\"closed\"");
    await(
        Duration.ofSeconds(30),
        "the breaker closed again",
        () -> view.of(closed).values().contains(1.0));
    String transitions = selector.apply("breakerctl_fleet_breaker_transitions_total", "");
    assertThat(view.of(transitions).values().iterator().next())
        .as("closed -> open -> half-open -> closed at least")
        .isGreaterThanOrEqualTo(3);

    ok("force", "open", ID, "--for", "30m", "--reason", "exporter drill", "--yes");
    String info = selector.apply("breakerctl_fleet_breaker_override_info", "");
    await(Duration.ofSeconds(30), "the override", () -> view.of(info).size() == 1);
    String override = view.of(info).keySet().iterator().next();
    // the actor is the authenticated Redis user, with the OS user and host beside it
    assertThat(override).contains("kind=\"forced_open\"").contains("actor=\"default(tester@");
    String forced = selector.apply("breakerctl_fleet_breaker_state", "state=\"forced_open\"");
    await(
        Duration.ofSeconds(30),
        "forced open in force",
        () -> view.of(forced).values().contains(1.0));
    String expiry = selector.apply("breakerctl_fleet_breaker_override_expiry_seconds", "");
    await(Duration.ofSeconds(30), "the override's expiry", () -> view.of(expiry).size() == 1);
    double inSeconds =
        view.of(expiry).values().iterator().next() - System.currentTimeMillis() / 1000.0;
    assertThat(inSeconds).as("ends in about 30 minutes").isBetween(25 * 60.0, 31 * 60.0);
  }

  @Test
  @Order(1)
  @DisplayName(
      "over HTTP: one breaker for 20 nodes, open with open-until, closed, forced by the CLI")
  void overHttp() throws Exception {
    tripRecoverForce(
        http(),
        (name, matcher) ->
            name + "{breaker=\"" + ID + "\"" + (matcher.isEmpty() ? "" : "," + matcher));
    Map<String, Double> s = exporter.scrape();
    assertThat(s).containsEntry("breakerctl_up", 1.0);
    assertThat(s.get(series("breakerctl_fleet_breaker_nodes_reporting"))).isEqualTo(20.0);
    assertThat(s.get(series("breakerctl_fleet_breaker_failure_threshold"))).isEqualTo(5.0);
    long states =
        s.keySet().stream()
            .filter(k -> k.startsWith("breakerctl_fleet_breaker_state{breaker=\"" + ID))
            .count();
    assertThat(states).as("one series per state, seven states").isEqualTo(7);
    assertThat(
            s.keySet().stream()
                .filter(k -> k.startsWith("breakerctl_fleet_breaker_state{") && s.get(k) == 1.0))
        .as("exactly one state in force")
        .hasSize(1);

    // OpenMetrics when asked, with its counter and info spellings and the end marker
    HttpResponse<String> om =
        exporter.get(
            "/metrics",
            "Accept",
            "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5");
    assertThat(om.headers().firstValue("Content-Type"))
        .hasValue("application/openmetrics-text; version=1.0.0; charset=utf-8");
    assertThat(om.body())
        .contains("# TYPE breakerctl_fleet_breaker_transitions counter\n")
        .contains("# TYPE breakerctl_fleet_breaker_override info\n")
        .contains(
            "breakerctl_fleet_breaker_override_info{breaker=\""
                + ID
                + "\",kind=\"forced_open\",actor=\"default(tester@")
        .endsWith("# EOF\n");
    assertThat(exporter.get("/metrics", "Accept", "text/plain").body()).doesNotContain("# EOF");
    assertThat(
            HTTP.send(
                    HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + exporter.port() + "/metrics"))
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build(),
                    HttpResponse.BodyHandlers.ofString())
                .statusCode())
        .isEqualTo(405);

    // promtool lints the live scrape, when installed
    Optional<Path> promtool = Prometheus.binary("promtool");
    if (promtool.isPresent()) {
      Process p =
          new ProcessBuilder(promtool.get().toString(), "check", "metrics")
              .redirectErrorStream(true)
              .start();
      try (var in = p.getOutputStream()) {
        in.write(exporter.get("/metrics").body().getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
      String out =
          new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      assertThat(p.waitFor()).as("promtool check metrics: %s", out).isZero();
    }
  }

  @Test
  @Order(2)
  @DisplayName("through a real Prometheus: the same, by PromQL; every dashboard query parses")
  void throughPrometheus() throws Exception {
    Optional<Path> binary = Prometheus.binary("prometheus");
    Assumptions.assumeTrue(
        binary.isPresent(),
        "prometheus is not on PATH (Debian: apt-get install prometheus): the Prometheus half is skipped");
    Path rules = home.resolve("breakerctl-alerts.yml");
    Files.copy(Path.of("src/main/resources/io/breakerctl/monitoring/breakerctl-alerts.yml"), rules);
    try (Prometheus prom =
        Prometheus.start(binary.get(), "127.0.0.1:" + exporter.port(), List.of(rules))) {
      View view =
          promql -> {
            Map<String, Double> out = new LinkedHashMap<>();
            for (JsonNode r : prom.vector(promql)) {
              List<String> labels = new ArrayList<>();
              r.path("metric")
                  .fields()
                  .forEachRemaining(
                      f -> labels.add(f.getKey() + "=\"" + f.getValue().asText() + "\""));
              java.util.Collections.sort(labels);
              out.put("{" + String.join(",", labels) + "}", r.path("value").get(1).asDouble());
            }
            return out;
          };
      tripRecoverForce(
          view,
          (name, matcher) ->
              name
                  + "{job=\"breakerctl\",breaker=\""
                  + ID
                  + "\""
                  + (matcher.isEmpty() ? "" : "," + matcher)
                  + "}");
      assertThat(
              view.of(
                      "count(breakerctl_fleet_breaker_state{breaker=\""
                          + ID
                          + "\",state=\"open\"})")
                  .values())
          .as("one series, not one per node")
          .containsExactly(1.0);
      assertThat(view.of("breakerctl_fleet_breaker_override_info{breaker=\"" + ID + "\"}").keySet())
          .singleElement()
          .asString()
          .contains("actor=\"default(tester@");
      assertThat(view.of("breakerctl_up").values()).containsExactly(1.0);

      // the dashboard: every query parses here, every exporter metric it names was scraped (by
      // Prometheus: the names its storage holds from this run's scrapes, open-until included)
      java.util.Set<String> live = new java.util.HashSet<>(SEEN);
      JSON.readTree(
              HTTP.send(
                      HttpRequest.newBuilder(
                              URI.create(prom.base() + "/api/v1/label/__name__/values"))
                          .build(),
                      HttpResponse.BodyHandlers.ofString())
                  .body())
          .path("data")
          .forEach(n -> live.add(n.asText()));
      for (String expr : MonitoringFilesTest.dashboardQueries()) {
        String q = expr.replace("$__rate_interval", "5m").replace("$breaker", ".*");
        JsonNode answer = prom.query(q);
        assertThat(answer.path("status").asText()).as("%s: %s", q, answer).isEqualTo("success");
        for (String name : MonitoringFilesTest.metricNames(expr)) {
          if (name.startsWith("breakerctl_fleet_") || name.equals("breakerctl_up")) {
            assertThat(live.contains(name))
                .as("%s (in the dashboard) is in the live scrape", name)
                .isTrue();
          }
        }
      }
      // the shipped rules load: Prometheus evaluates them (the override ends in 30 minutes: silent)
      JsonNode loaded =
          JSON.readTree(
              HTTP.send(
                      HttpRequest.newBuilder(URI.create(prom.base() + "/api/v1/rules")).build(),
                      HttpResponse.BodyHandlers.ofString())
                  .body());
      assertThat(loaded.path("data").path("groups").findValuesAsText("name"))
          .contains("BreakerctlBreakerOpen", "BreakerctlOverrideExpiringSoon");
    }
  }

  @Test
  @Order(3)
  @DisplayName(
      "faults: no read permission, a SIGSTOPped Redis, a killed one: up 0 and the error, never a hang")
  void faults() throws Exception {
    // a user that may connect but not read: NOPERM, said in the scrape; with --cache 1h the
    // first read answers every later scrape (one read however many scrapes)
    redis
        .server()
        .call("ACL", "SETUSER", "noread", "on", ">noread-pw", "~*", "&*", "-@all", "+@connection");
    Exporter denied =
        Exporter.start(env("noread", "noread-pw"), "--scrape-timeout", "2s", "--cache", "1h");
    try {
      Map<String, Double> s = denied.scrape();
      assertThat(s).containsEntry("breakerctl_up", 0.0);
      assertThat(s.keySet())
          .anyMatch(
              k -> k.startsWith("breakerctl_last_error_info{error=\"") && k.contains("NOPERM"));
      assertThat(s.keySet()).noneMatch(k -> k.startsWith("breakerctl_fleet_breaker_state"));
      assertThat(s).containsEntry("breakerctl_fleet_reads_total", 1.0);
      for (int i = 0; i < 3; i++) {
        assertThat(denied.scrape()).as("cached").isEqualTo(s);
      }
    } finally {
      assertThat(denied.stop()).isEqualTo(ExitCode.CANCELLED);
    }

    // Redis hung (SIGSTOP): eight concurrent scrapes share one read, bounded by --scrape-timeout
    double before = exporter.scrape().get("breakerctl_fleet_reads_total");
    redis.server().suspend();
    List<Map<String, Double>> hung = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<Map<String, Double>>> all = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        all.add(pool.submit((Callable<Map<String, Double>>) exporter::scrape));
      }
      for (Future<Map<String, Double>> f : all) {
        hung.add(f.get(60, java.util.concurrent.TimeUnit.SECONDS));
      }
    } finally {
      redis.server().resume();
      pool.shutdownNow();
    }
    for (Map<String, Double> s : hung) {
      assertThat(s).containsEntry("breakerctl_up", 0.0);
      assertThat(s.keySet()).anyMatch(k -> k.startsWith("breakerctl_last_error_info{"));
    }
    assertThat(hung.stream().map(s -> s.get("breakerctl_fleet_reads_total")).distinct().toList())
        .as("one read for eight concurrent scrapes, or two when some arrived after the first ended")
        .allMatch(n -> n == before + 1 || n == before + 2);
    await(
        Duration.ofSeconds(30),
        "up again after SIGCONT",
        () -> exporter.scrape().get("breakerctl_up") == 1.0);

    // Redis killed: up 0 with the error, and the last error stays named
    redis.server().kill();
    Map<String, Double> down = exporter.scrape();
    assertThat(down).containsEntry("breakerctl_up", 0.0);
    assertThat(down.keySet()).anyMatch(k -> k.startsWith("breakerctl_last_error_info{error=\""));
    assertThat(down.keySet()).noneMatch(k -> k.startsWith("breakerctl_fleet_breaker_state"));
    redis.server().restart(); // same port: the exporter's connection comes back by itself
    viewer(); // ACL users set by command do not survive the restart
    await(
        Duration.ofSeconds(30),
        "up again after a restart",
        () -> exporter.scrape().get("breakerctl_up") == 1.0);
  }
}
