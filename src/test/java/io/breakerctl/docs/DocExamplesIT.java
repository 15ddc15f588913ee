package io.breakerctl.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import io.breakerctl.BreakerCtl;
import io.breakerctl.cli.Environment;
import io.breakerctl.cli.commands.SandboxCommand;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.sandbox.Sandbox;
import io.breakerctl.sandbox.SandboxState;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.BufferedReader;
import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Runs every {@code breakerctl} command line of the shell blocks of README.md and src/docs/*.md on
 * a sandbox (a real redis-server and the MongoDB-wire server, as {@code breakerctl sandbox up}
 * starts them), page by page in document order, and checks the exit code and the key facts each
 * page claims of its output (substrings, never the whole output). Each page starts from an empty
 * Redis and MongoDB with four breakers that have counted a success ({@code checkout:payments},
 * {@code checkout:inventory}, {@code checkout:search}, {@code claims:members}).
 *
 * <p>What a page's prose says happened before a block is set up by a {@code <!-- docs-test: ...
 * -->} line above it: {@code trip ID} (five failures recorded), {@code flushall}, {@code bad-policy
 * ID} (a version with {@code failureThreshold: 1} applied), {@code env K=V ...} (for that block's
 * commands) or {@code breakerctl ARGS} (a command run first, exit 0). Commands run in this JVM
 * through the CLI's own command line ({@code BreakerCtl.commandLine}), with stdin not a terminal
 * and the repository as the working directory; {@code exporter}, which runs until interrupted, runs
 * as the packaged jar with its {@code --listen} port replaced by a free one, and is checked by one
 * scrape. {@code demo} is not run here: the README's first command is run on a fresh clone by
 * {@code SandboxCleanCloneDemoIT}, and {@code SandboxDemoFleetIT} checks its table.
 *
 * <p>Every command a page holds must have its fact below, in order: a command added to a page
 * without one fails here, and so does a renamed command or option (the CLI refuses it, exit 2).
 */
@DisplayName("every documented breakerctl command runs on the sandbox and says what the docs say")
class DocExamplesIT {

  /** What one command must do: the line it is, its exit codes, what its output contains. */
  record Fact(String line, Set<Integer> codes, List<String> contains) {
    static Fact of(String line, int code, String... contains) {
      return new Fact(line, Set.of(code), List.of(contains));
    }
  }

  static final Map<String, List<Fact>> FACTS =
      Map.of(
          "README.md",
          List.of(
              Fact.of("breakerctl sandbox up", 0, "sandbox already running: redis redis://"),
              Fact.of("breakerctl status", 0, "claims:members", "OPEN"),
              Fact.of("breakerctl describe claims:members", 0, "Id:", "claims:members", "OPEN"),
              Fact.of(
                  "breakerctl force open claims:members",
                  0,
                  "FORCED_OPEN",
                  "SET",
                  "undo: breakerctl force clear claims:members"),
              Fact.of(
                  "breakerctl history claims:members",
                  0,
                  "CLOSED -> OPEN",
                  "FAILURE_THRESHOLD",
                  "OPEN -> FORCED_OPEN",
                  "member-service outage, INC-1"),
              Fact.of("breakerctl force clear claims:members", 0, "CLEARED"),
              Fact.of("breakerctl policy validate", 0, "ok:", "checkout:payments", "checkout:*"),
              Fact.of("breakerctl policy apply", 0, "2 changed, 0 unchanged of 2 policies"),
              Fact.of(
                  "breakerctl policy history checkout:payments", 0, "VERSION", "first rollout")),
          "src/docs/ci-rollouts.md",
          List.of(
              Fact.of("breakerctl policy validate", 0, "ok:"),
              Fact.of(
                  "breakerctl policy apply",
                  1,
                  "+ spec.failureThreshold: (none) -> 5",
                  "2 would change, 0 unchanged of 2 policies (dry run: nothing written)")),
          "src/docs/metrics.md",
          List.of(
              Fact.of("breakerctl exporter --listen", 0, "breakerctl_up 1"),
              Fact.of("breakerctl exporter 'claims:*'", 0, "breakerctl_up 1", "claims:members")),
          "src/docs/operations.md",
          List.of(
              // first look
              Fact.of("breakerctl status", 0, "checkout:payments", "CLOSED"),
              Fact.of("breakerctl doctor", 0, "redis", "mongodb", "ok"),
              // a dependency is down
              Fact.of("breakerctl status --check", 1, "checkout:payments", "OPEN", "0/5"),
              Fact.of("breakerctl describe checkout:payments", 0, "State:", "OPEN"),
              Fact.of(
                  "breakerctl history checkout:payments --since 1h",
                  0,
                  "TRANSITION",
                  "CLOSED -> OPEN",
                  "FAILURE_THRESHOLD"),
              Fact.of(
                  "breakerctl force open checkout:payments",
                  0,
                  "BEFORE",
                  "FORCED_OPEN",
                  "SET",
                  "undo: breakerctl force clear checkout:payments"),
              Fact.of("breakerctl note checkout:payments", 0, "added to checkout:payments"),
              Fact.of("breakerctl force clear checkout:payments", 0, "CLEARED", "OPEN"),
              // a breaker flaps
              Fact.of(
                  "breakerctl history checkout:payments --since 1h --kind", 0, "CLOSED -> OPEN"),
              Fact.of("breakerctl status checkout:payments -o wide", 0, "HISTORY", "HELD"),
              // roll back a bad policy
              Fact.of("breakerctl policy history checkout:payments", 0, "2*", "hand"),
              Fact.of(
                  "breakerctl policy diff checkout:payments", 1, "~ spec.failureThreshold: 5 -> 1"),
              Fact.of(
                  "breakerctl policy rollback checkout:payments",
                  0,
                  "v2 -> v3",
                  "rollback to v1",
                  "ci-rollout"),
              // restore after a flush
              Fact.of(
                  "breakerctl replay restore --dry-run",
                  0,
                  "From deployment d-",
                  "nothing written",
                  "checkout:payments",
                  "RESTORE"),
              Fact.of("breakerctl replay restore --reason", 0, "Restored:", "RESTORED"),
              Fact.of("breakerctl status", 0, "checkout:payments", "FORCED_OPEN"),
              // Redis failed over
              Fact.of(
                  "breakerctl doctor",
                  1,
                  "deployment",
                  "overrides",
                  "checkout:search",
                  "checkout:payments"),
              Fact.of(
                  "breakerctl history sync",
                  0,
                  "put back the override(s) Redis lost",
                  "checkout:search"),
              Fact.of("breakerctl policy warm", 0, "checkout:search", "WARMED"),
              // MongoDB is down
              Fact.of("breakerctl force open checkout:inventory", 0, "FORCED_OPEN", "audit spool"),
              Fact.of("breakerctl doctor", 1, "fail", "mongodb"),
              Fact.of("breakerctl history sync", 0, "forwarded"),
              Fact.of(
                  "breakerctl history checkout:inventory",
                  0,
                  "FORCED_OPEN",
                  "inventory timeouts, INC-1240"),
              // after the incident
              Fact.of(
                  "breakerctl history checkout:payments --since 2h -o json",
                  0,
                  "TimelineEntryList"),
              Fact.of("breakerctl replay 'checkout:*' --at now", 0, "checkout:payments")));

  static final List<String> SEEDED =
      List.of("checkout:payments", "checkout:inventory", "checkout:search", "claims:members");

  /** The sandbox's directory, the config and the CLI's state: one temporary home for the run. */
  static Path home;

  static Sandbox sandbox;
  static SandboxState state;

  /**
   * One sandbox for every page, as {@code breakerctl sandbox up} starts it; its context current.
   */
  @BeforeAll
  static void sandboxUp() throws Exception {
    home = Files.createTempDirectory("breakerctl-docs");
    state = (sandbox = new Sandbox(home.resolve("state/breakerctl/sandbox"))).up().state();
    SandboxCommand.useSandboxContext(env(Map.of()), state);
  }

  @AfterAll
  static void sandboxDown() {
    if (sandbox != null) {
      sandbox.down();
    }
  }

  static Map<String, String> baseEnv() {
    Map<String, String> e = new HashMap<>();
    e.put("XDG_CONFIG_HOME", home.resolve("config").toString());
    e.put("XDG_STATE_HOME", home.resolve("state").toString());
    e.put("HOME", home.toString());
    e.put("NO_COLOR", "1");
    return e;
  }

  static Environment env(Map<String, String> extra) {
    Map<String, String> e = baseEnv();
    e.putAll(extra);
    return new Environment(
        Map.copyOf(e), false, Clock.systemUTC(), new BufferedReader(new StringReader("")), "docs");
  }

  record Run(int code, String out, String err) {
    @Override
    public String toString() {
      return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  static Run run(Map<String, String> extra, List<String> args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    picocli.CommandLine cl = BreakerCtl.commandLine(env(extra));
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args.toArray(String[]::new));
    return new Run(code, out.toString(), err.toString());
  }

  // --- the state a page's prose assumes ---

  static RedisFleetStore store() {
    return RedisFleetStore.connect(
        StoreConfig.builder().uri(state.redisUri()).timeout(Duration.ofSeconds(5)).build());
  }

  static void flushAll() {
    RedisClient client = RedisClient.create(state.redisUri());
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      c.sync().flushall();
    } finally {
      client.shutdown();
    }
  }

  /** An empty Redis and MongoDB, and the four breakers the pages name, each with one success. */
  static void freshFleet() throws Exception {
    flushAll();
    try (MongoClient mongo = MongoClients.create(state.mongoUri())) {
      for (String db : mongo.listDatabaseNames()) {
        if (!Set.of("admin", "local", "config").contains(db)) {
          mongo.getDatabase(db).drop();
        }
      }
    }
    try (RedisFleetStore store = store()) {
      for (String id : SEEDED) {
        StoreFutures.await(
            store.record(BreakerId.parse(id), Outcome.successes("docs-node", 1), Policy.DEFAULT));
      }
    }
  }

  static void trip(String id) throws Exception {
    try (RedisFleetStore store = store()) {
      for (int i = 0; i < Policy.DEFAULT.failureThreshold(); i++) {
        StoreFutures.await(
            store.record(BreakerId.parse(id), Outcome.failure("docs-node", ""), Policy.DEFAULT));
      }
    }
    Run status = run(Map.of(), List.of("status", id));
    assertThat(status.out()).as("tripped: " + status).contains("OPEN");
  }

  static void badPolicy(String id) throws Exception {
    Path dir = Files.createTempDirectory(home, "bad-policy");
    Files.writeString(
        dir.resolve("bad.yaml"),
        "apiVersion: breakerctl/v1\nkind: Policy\nmetadata:\n  id: "
            + id
            + "\nspec:\n  failureThreshold: 1\n");
    Run r =
        run(
            Map.of(),
            List.of("policy", "apply", "-f", dir.toString(), "--reason", "tighter", "--yes"));
    assertThat(r.code()).as("bad policy applied: " + r).isZero();
  }

  /** Runs a block's directives; returns the environment its commands get. */
  static Map<String, String> directives(DocPages.Block b) throws Exception {
    Map<String, String> extra = new HashMap<>();
    for (String d : b.directives()) {
      List<String> w = DocPages.words(d);
      switch (w.get(0)) {
        case "trip" -> trip(w.get(1));
        case "flushall" -> flushAll();
        case "bad-policy" -> badPolicy(w.get(1));
        case "env" -> {
          for (String kv : w.subList(1, w.size())) {
            extra.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
          }
        }
        case "breakerctl" -> {
          Run r = run(Map.of(), w.subList(1, w.size()));
          assertThat(r.code()).as(b.where() + ": set-up " + d + "\n" + r).isZero();
        }
        default -> throw new AssertionError(b.where() + ": unknown docs-test directive " + d);
      }
    }
    return extra;
  }

  // --- the exporter, as a process ---

  static Path jar() throws Exception {
    try (DirectoryStream<Path> s =
        Files.newDirectoryStream(Path.of("target"), "breakerctl-*-all.jar")) {
      for (Path p : s) {
        return p;
      }
    }
    throw new AssertionError("no target/breakerctl-*-all.jar: run mvn package first");
  }

  static Run exporter(List<String> documented) throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    List<String> args = new ArrayList<>(documented);
    int at = args.indexOf("--listen");
    if (at >= 0) {
      args.set(at + 1, "127.0.0.1:" + port);
    } else {
      args.addAll(List.of("--listen", "127.0.0.1:" + port));
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(List.of("-XX:TieredStopAtLevel=1", "-jar", jar().toString()));
    cmd.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().keySet().removeIf(k -> k.startsWith("BREAKERCTL_"));
    pb.environment().putAll(baseEnv());
    Path log = Files.createTempFile(home, "exporter", ".log");
    pb.redirectOutput(log.toFile());
    Process p = pb.start();
    try {
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (true) {
        try {
          HttpResponse<String> r =
              http.send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                      .timeout(Duration.ofSeconds(10))
                      .build(),
                  HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
          return new Run(r.statusCode() == 200 ? 0 : r.statusCode(), r.body(), "");
        } catch (java.io.IOException e) {
          if (!p.isAlive() || System.nanoTime() > deadline) {
            return new Run(p.isAlive() ? -1 : p.exitValue(), "", Files.readString(log));
          }
          Thread.sleep(100);
        }
      }
    } finally {
      p.destroy();
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
  }

  // --- the pages ---

  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  @DisplayName("each page's commands in order: exit code and key facts")
  void everyDocumentedCommandRuns() throws Exception {
    List<String> failures = new ArrayList<>();
    int ran = 0;
    for (Path page : DocPages.pages()) {
      List<Fact> facts = FACTS.getOrDefault(page.toString(), List.of());
      int next = 0;
      boolean fresh = false;
      for (DocPages.Block b : DocPages.blocks(page)) {
        if (!List.of("", "sh").contains(b.info())) {
          continue;
        }
        List<DocPages.Command> commands = DocPages.commands(b);
        if (commands.isEmpty() && b.directives().isEmpty()) {
          continue;
        }
        if (!fresh) {
          freshFleet();
          fresh = true;
        }
        Map<String, String> extra = directives(b);
        for (DocPages.Command c : commands) {
          if (c.args().size() == 1 && c.args().get(0).equals("demo")) {
            continue; // SandboxCleanCloneDemoIT runs it on a fresh clone
          }
          if (next >= facts.size()) {
            failures.add(c.where() + ": no fact for this command in DocExamplesIT.FACTS");
            continue;
          }
          Fact f = facts.get(next++);
          if (!c.line().startsWith(f.line())) {
            failures.add(c.where() + ": expected the command of fact '" + f.line() + "' here");
            continue;
          }
          Run r = c.args().get(0).equals("exporter") ? exporter(c.args()) : run(extra, c.args());
          ran++;
          String both = r.out() + r.err();
          if (!f.codes().contains(r.code())) {
            failures.add(c.where() + ": exit " + r.code() + ", expected " + f.codes() + "\n" + r);
            continue;
          }
          for (String s : f.contains()) {
            if (!both.contains(s)) {
              failures.add(c.where() + ": output lacks '" + s + "'\n" + r);
            }
          }
        }
      }
      if (next < facts.size()) {
        failures.add(
            page + ": facts for commands the page no longer holds, from " + facts.get(next));
      }
    }
    assertThat(ran).as("documented commands run").isGreaterThan(30);
    assertThat(failures).as("documented commands that do not do what the docs say").isEmpty();
  }
}
