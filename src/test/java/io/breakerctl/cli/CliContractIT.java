package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.NodeHeartbeat;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisClusterProcess;
import io.breakerctl.testing.RedisServerProcess;
import io.breakerctl.testing.TcpProxy;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLI contract against real redis-server processes and the MongoDB-wire server; exit code,
 * stdout and stderr asserted apart. The packaged jar runs as a process ({@code NO_COLOR=1}, an
 * isolated config dir, stdin not a terminal) where the process is part of what is checked: a stderr
 * that must stay empty (nothing a library prints either), exit codes through {@code Main}, no
 * terminal, the version and help of the jar. The other runs are the same command line in-process
 * ({@link CliProcess#inProcess}), with the environment a process gets; a silent Redis's wall time
 * among them, which a JVM's start would blur.
 */
@DisplayName("breakerctl contract (packaged jar, and in-process)")
class CliContractIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  static CliServers servers;
  static RedisServerProcess redis;
  static int mongoPort;
  static RedisFleetStore store;
  static CliProcess cli;
  @TempDir static Path home;

  @BeforeAll
  static void start() {
    servers = CliServers.start(home);
    redis = servers.redis;
    mongoPort = servers.mongoPort;
    store = servers.store;
    cli = servers.cli;
  }

  @AfterAll
  static void stop() {
    if (servers != null) {
      servers.close();
    }
  }

  private static boolean exists(RedisServerProcess server, String key) {
    return ((Long) server.call("EXISTS", key)) == 1L;
  }

  @Test
  @DisplayName("status and describe show heartbeats of real nodes, including a disagreeing one")
  void heartbeats() throws Exception {
    BreakerId id = BreakerId.parse("fleet:hb");
    StoreFutures.await(store.warm(id, "fleet:*", 2, Policy.DEFAULT, "test"));
    beat(id, "node-a", State.CLOSED, 2, false);
    beat(id, "node-b", State.OPEN, 2, false);
    beat(id, "node-c", State.CLOSED, 1, true);

    CliProcess.Result json = cli.run("status", "fleet:hb", "-o", "json");
    assertThat(json.code()).as(json.toString()).isZero();
    assertThat(json.err()).isEmpty();
    JsonNode doc = JSON.readTree(json.out());
    assertThat(doc.path("apiVersion").asText()).isEqualTo("breakerctl/v1");
    assertThat(doc.path("kind").asText()).isEqualTo("BreakerList");
    JsonNode nodes = doc.path("items").get(0).path("nodes");
    assertThat(nodes.path("reporting").asInt()).isEqualTo(3);
    assertThat(nodes.path("disagreeing").toString()).isEqualTo("[\"node-b\"]");
    assertThat(nodes.path("degraded").toString()).isEqualTo("[\"node-c\"]");
    assertThat(nodes.path("oldPolicy").toString()).isEqualTo("[\"node-c\"]");
    assertThat(nodes.path("degradedReasons").toString()).isEqualTo("{\"node-c\":\"readonly\"}");
    assertThat(doc.path("items").get(0).path("policy").path("version").asLong()).isEqualTo(2);

    CliProcess.Result table = cli.inProcess("status", "fleet:*", "-o", "wide");
    assertThat(table.code()).as(table.toString()).isZero();
    assertThat(table.out())
        .contains("DISAGREE")
        .contains("fleet:hb")
        .contains("node-b")
        .contains("node-c(readonly)");
    CliProcess.Result narrow = cli.inProcess("status", "fleet:hb");
    assertThat(narrow.out()).contains("3 (1 disagree, 1 degraded, 1 old policy)");
    assertThat(table.out()).doesNotContain("\u001b[");

    CliProcess.Result describe = cli.inProcess("describe", "fleet:hb");
    assertThat(describe.code()).as(describe.toString()).isZero();
    assertThat(describe.out())
        .contains("node-b")
        .contains("disagrees")
        .contains("old-policy")
        .contains("fleet:* v2")
        .contains("yes (readonly)");

    CliProcess.Result doctor = cli.inProcess("doctor", "-o", "json");
    JsonNode check = null;
    for (JsonNode c : JSON.readTree(doctor.out()).path("items")) {
      if (c.path("check").asText().equals("nodes")) {
        check = c;
      }
    }
    assertThat(check).as(doctor.toString()).isNotNull();
    assertThat(check.path("status").asText()).isEqualTo("warn");
    assertThat(check.path("detail").asText()).contains("node-c (readonly, 1 breaker(s))");
  }

  private static void beat(BreakerId id, String node, State s, long version, boolean degraded) {
    StoreFutures.await(
        store.record(
            id,
            Outcome.successes(node, 1),
            Policy.DEFAULT,
            new NodeHeartbeat(
                node, s, "fleet:*", version, degraded, 0, "", degraded ? "readonly" : "")));
  }

  @Test
  @DisplayName("unknown breaker: 7; bad id or flag: 2 with a usage hint")
  void notFoundAndUsage() {
    CliProcess.Result unknown = cli.inProcess("describe", "nobody:nothing");
    assertThat(unknown.code()).as(unknown.toString()).isEqualTo(7);
    assertThat(unknown.out()).isEmpty();
    assertThat(unknown.err()).contains("not found");

    CliProcess.Result badId = cli.inProcess("describe", "Bad_Id");
    assertThat(badId.code()).as(badId.toString()).isEqualTo(2);
    assertThat(badId.out()).isEmpty();
    assertThat(badId.err()).contains("breaker id").contains("Run 'breakerctl describe --help'");

    CliProcess.Result badFlag = cli.run("status", "--bogus");
    assertThat(badFlag.code()).as(badFlag.toString()).isEqualTo(2);
    assertThat(badFlag.out()).isEmpty();
    assertThat(badFlag.err()).contains("--bogus").contains("Run 'breakerctl status --help'");

    CliProcess.Result noMatch = cli.inProcess("force", "open", "zzz:*", "--reason", "x", "--yes");
    assertThat(noMatch.code()).as(noMatch.toString()).isEqualTo(7);
  }

  @Test
  @DisplayName(
      "force: without --yes off a terminal 2 and nothing written; --dry-run writes nothing")
  void forceConfirmationAndDryRun() {
    CliProcess.Result noYes =
        cli.run("force", "open", "pre:empt", "--new", "--reason", "incident 42");
    assertThat(noYes.code()).as(noYes.toString()).isEqualTo(2);
    assertThat(noYes.err()).contains("--yes");
    assertThat(exists(redis, "cb:{pre:empt}")).isFalse();

    CliProcess.Result dry =
        cli.inProcess(
            "force",
            "open",
            "pre:empt",
            "--new",
            "--reason",
            "incident 42",
            "--for",
            "30m",
            "--dry-run");
    assertThat(dry.code()).as(dry.toString()).isZero();
    assertThat(dry.out()).contains("WOULD_SET").contains("FORCED_OPEN");
    CliProcess.Result dryClear =
        cli.inProcess(
            "force", "clear", "pre:empt", "--new", "--reason", "over", "--dry-run", "-o", "json");
    assertThat(dryClear.code()).as(dryClear.toString()).isEqualTo(3);
    assertThat(dryClear.out()).contains("NOT_OVERRIDDEN");
    assertThat(exists(redis, "cb:{pre:empt}")).isFalse();
    assertThat(exists(redis, "cb:{pre:empt}:ev")).isFalse();
  }

  @Test
  @DisplayName("Redis refusing the work (a replica: readonly): exit 6 naming it, nothing written")
  void refusalsExitSixNamingTheCause() throws Exception {
    BreakerId id = BreakerId.parse("refused:dep");
    StoreFutures.await(store.record(id, Outcome.successes("n1", 1), Policy.DEFAULT, null));
    long audits = auditCount();
    // not maxmemory: Redis checks it only at a script's first write, and a force on a full
    // Redis was seen to apply (exit 0, the override set), which is what an operator needs there;
    // CoordinatorFaultIT covers oom for the runtime's record and acquire scripts, which are refused
    for (String cause : List.of("readonly")) {
      if (cause.equals("oom")) {
        redis.call("CONFIG", "SET", "maxmemory-policy", "noeviction");
        redis.call("CONFIG", "SET", "maxmemory", "1");
      } else {
        redis.call("REPLICAOF", "127.0.0.1", "1"); // a master that is never there
      }
      try {
        CliProcess.Result forced =
            cli.inProcess("force", "open", "refused:dep", "--reason", "incident 9", "--yes");
        assertThat(forced.code()).as(forced.toString()).isEqualTo(6);
        assertThat(forced.err()).as(forced.toString()).contains(cause).doesNotContain("at io.");
        CliProcess.Result read = cli.inProcess("status", "refused:dep", "-o", "name");
        assertThat(read.code()).as("reads still work: %s", read).isZero();
      } finally {
        if (cause.equals("oom")) {
          redis.call("CONFIG", "SET", "maxmemory", "0");
        } else {
          redis.call("REPLICAOF", "NO", "ONE");
        }
      }
      assertThat(redis.call("HGET", "cb:{refused:dep}", "override")).as(cause).isNull();
      assertThat(auditCount()).as("no audit of a refused force (%s)", cause).isEqualTo(audits);
    }
  }

  @Test
  @DisplayName("force applies with an audit; MongoDB down: reads work, force applies and warns")
  void forceAndMongoDown() throws Exception {
    CliProcess.Result forced =
        cli.run(
            "force",
            "open",
            "pay:ledger",
            "--new",
            "--reason",
            "incident 7",
            "--for",
            "30m",
            "--yes");
    assertThat(forced.code()).as(forced.toString()).isZero();
    assertThat(forced.err()).isEmpty();
    assertThat(forced.out()).contains("pay:ledger").contains("FORCED_OPEN").contains("SET");
    assertThat(redis.call("HGET", "cb:{pay:ledger}", "override")).isEqualTo("FORCED_OPEN");
    assertThat(auditCount()).isEqualTo(1);

    CliProcess.Result check = cli.inProcess("status", "pay:*", "--check");
    assertThat(check.code()).as(check.toString()).isEqualTo(1);

    servers.stopMongo();
    try {
      CliProcess.Result read = cli.inProcess("status", "pay:ledger", "-o", "name");
      assertThat(read.code()).as(read.toString()).isZero();
      assertThat(read.out()).isEqualTo("pay:ledger\n");
      CliProcess.Result down =
          cli.run("force", "closed", "pay:ledger", "--new", "--reason", "recovered", "--yes");
      assertThat(down.code()).as(down.toString()).isZero();
      assertThat(down.err()).contains("warning").contains("event stream");
      assertThat(redis.call("HGET", "cb:{pay:ledger}", "override")).isEqualTo("FORCED_CLOSED");
    } finally {
      servers.startMongo();
    }
    CliProcess.Result back =
        cli.run("force", "clear", "pay:ledger", "--new", "--reason", "done", "--yes");
    assertThat(back.code()).as(back.toString()).isZero();
    assertThat(back.err()).isEmpty();
    // the memory backend starts empty again after a shutdown: the new record is there
    assertThat(auditCount("done")).isEqualTo(1);
  }

  private static long auditCount() {
    try (MongoClient c = MongoClients.create("mongodb://127.0.0.1:" + mongoPort)) {
      return c.getDatabase("breakerctl").getCollection("audit").countDocuments();
    }
  }

  private static long auditCount(String reason) {
    try (MongoClient c = MongoClients.create("mongodb://127.0.0.1:" + mongoPort)) {
      return c.getDatabase("breakerctl")
          .getCollection("audit")
          .countDocuments(com.mongodb.client.model.Filters.eq("reason", reason));
    }
  }

  @Test
  @DisplayName("Redis down or silent: 6 within --timeout, never a hang")
  void redisDown() throws Exception {
    int closed;
    try (ServerSocket s = new ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    CliProcess.Result refused =
        cli.run("status", "--redis", "redis://127.0.0.1:" + closed, "--timeout", "1s");
    assertThat(refused.code()).as(refused.toString()).isEqualTo(6);
    assertThat(refused.err()).contains("unavailable");
    try (TcpProxy proxy = TcpProxy.to(redis.port())) {
      proxy.drop();
      CliProcess.Result silent =
          cli.inProcess("describe", "a:b", "--redis", proxy.uri(), "--timeout", "1s");
      assertThat(silent.code()).as(silent.toString()).isEqualTo(6);
      assertThat(silent.took()).isLessThan(Duration.ofSeconds(10));
    }
  }

  @Test
  @DisplayName("viewer ACL: status, describe and doctor work; force exits 4 naming the command")
  void viewerAcl() throws Exception {
    try (RedisServerProcess acl =
        RedisServerProcess.builder(RedisBinary.embedded())
            .config("user viewer on >viewer-secret ~* &* -@all +@read +@connection +time +info\n")
            .start()) {
      try (RedisFleetStore admin =
          RedisFleetStore.connect(StoreConfig.builder().uri(acl.uri()).build())) {
        StoreFutures.await(
            admin.override(
                BreakerId.parse("acl:seen"),
                new OverrideRequest(OverrideKind.FORCED_OPEN, "admin", "test", Duration.ZERO, "")));
      }
      Path pw = home.resolve("viewer.pw");
      Files.writeString(pw, "viewer-secret\n");
      Map<String, String> env = Map.of("BREAKERCTL_REDIS", acl.uri());
      String[] as = {"--redis-user", "viewer", "--redis-password-file", pw.toString()};
      CliProcess.Result status = cli.inProcess(env, concat(new String[] {"status"}, as));
      assertThat(status.code()).as(status.toString()).isZero();
      assertThat(status.out()).contains("acl:seen").contains("FORCED_OPEN");
      CliProcess.Result describe =
          cli.inProcess(env, concat(new String[] {"describe", "acl:seen"}, as));
      assertThat(describe.code()).as(describe.toString()).isZero();
      CliProcess.Result doctor = cli.inProcess(env, concat(new String[] {"doctor"}, as));
      assertThat(doctor.code()).as(doctor.toString()).isZero();
      assertThat(doctor.out()).contains("acl read").contains("read-only user");
      CliProcess.Result force =
          cli.run(
              env,
              concat(new String[] {"force", "clear", "acl:seen", "--reason", "x", "--yes"}, as));
      assertThat(force.code()).as(force.toString()).isEqualTo(4);
      assertThat(force.err()).contains("NOPERM").containsIgnoringCase("evalsha");
      CliProcess.Result wrong =
          cli.inProcess(
              Map.of("BREAKERCTL_REDIS", acl.uri(), "BREAKERCTL_REDIS_PASSWORD", "wrong"),
              "status",
              "--redis-user",
              "viewer");
      assertThat(wrong.code()).as(wrong.toString()).isEqualTo(4);
    }
  }

  private static String[] concat(String[] a, String[] b) {
    List<String> all = new ArrayList<>(List.of(a));
    all.addAll(List.of(b));
    return all.toArray(new String[0]);
  }

  @Test
  @DisplayName("TLS: rediss:// with the test CA works; without it the handshake fails (6)")
  void tls(@TempDir Path dir) throws Exception {
    Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/openssl")), "openssl not found");
    Path ca = dir.resolve("ca.crt");
    sh(
        dir,
        "openssl",
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.crt",
        "-days",
        "1",
        "-subj",
        "/CN=breakerctl-test-ca");
    sh(
        dir,
        "openssl",
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
        "-subj",
        "/CN=localhost");
    Files.writeString(dir.resolve("san.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
    sh(
        dir,
        "openssl",
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.crt",
        "-days",
        "1",
        "-extfile",
        "san.ext");
    int tlsPort;
    try (ServerSocket s = new ServerSocket(0)) {
      tlsPort = s.getLocalPort();
    }
    try (RedisServerProcess tls =
        RedisServerProcess.builder(RedisBinary.embedded())
            .args(
                "--tls-port", Integer.toString(tlsPort),
                "--tls-cert-file", dir.resolve("server.crt").toString(),
                "--tls-key-file", dir.resolve("server.key").toString(),
                "--tls-ca-cert-file", ca.toString(),
                "--tls-auth-clients", "no")
            .start()) {
      String uri = "rediss://127.0.0.1:" + tlsPort;
      CliProcess.Result ok =
          cli.inProcess(
              "force",
              "open",
              "tls:dep",
              "--new",
              "--reason",
              "tls",
              "--yes",
              "--redis",
              uri,
              "--redis-ca-file",
              ca.toString(),
              "--mongo",
              "mongodb://127.0.0.1:" + mongoPort);
      assertThat(ok.code()).as(ok.toString()).isZero();
      CliProcess.Result status =
          cli.inProcess("status", "--redis", uri, "--redis-ca-file", ca.toString(), "-o", "name");
      assertThat(status.code()).as(status.toString()).isZero();
      assertThat(status.out()).isEqualTo("tls:dep\n");
      assertThat(tls.call("HGET", "cb:{tls:dep}", "override")).isEqualTo("FORCED_OPEN");
      CliProcess.Result untrusted = cli.inProcess("status", "--redis", uri, "--timeout", "2s");
      assertThat(untrusted.code()).as(untrusted.toString()).isEqualTo(6);
    }
  }

  private static void sh(Path dir, String... cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
  }

  @Test
  @DisplayName("status on a 3-master cluster lists breakers from every master")
  void cluster() throws Exception {
    try (RedisClusterProcess cluster = RedisClusterProcess.start(RedisBinary.embedded());
        RedisFleetStore c =
            RedisFleetStore.connect(StoreConfig.builder().uri(cluster.uri()).build())) {
      Set<String> expected = new HashSet<>();
      Set<Integer> masters = new HashSet<>();
      for (int i = 0; i < 30; i++) {
        BreakerId id = BreakerId.parse("svc" + i + ":db");
        StoreFutures.await(c.record(id, Outcome.successes("n1", 1), Policy.DEFAULT));
        expected.add(id.toString());
        masters.add(cluster.masterFor("cb:{" + id + "}").port());
      }
      assertThat(masters).hasSize(3);
      CliProcess.Result r = cli.inProcess("status", "-o", "name", "--redis", cluster.uri());
      assertThat(r.code()).as(r.toString()).isZero();
      assertThat(Set.of(r.out().split("\n"))).isEqualTo(expected);
      CliProcess.Result one =
          cli.inProcess(
              "status",
              "--redis",
              cluster.nodes().get(0).uri(),
              "--caller",
              "svc1*",
              "-o",
              "name",
              "--sort",
              "id");
      assertThat(one.code()).as(one.toString()).isZero();
      assertThat(one.out().split("\n")).hasSize(11);
      CliProcess.Result doctor = cli.inProcess("doctor", "--redis", cluster.uri());
      assertThat(doctor.code()).as(doctor.toString()).isZero();
      assertThat(doctor.out()).contains("3 master(s), 16384/16384 slots covered");
    }
  }

  @Test
  @DisplayName("doctor, version, help and contexts")
  void doctorVersionContexts() {
    CliProcess.Result doctor = cli.run("doctor");
    assertThat(doctor.code()).as(doctor.toString()).isZero();
    assertThat(doctor.out()).contains("redis").contains("mongodb").contains("acl mutate");
    assertThat(doctor.err()).isEmpty();

    CliProcess.Result version = cli.run("version");
    assertThat(version.code()).isZero();
    assertThat(version.out()).matches("breakerctl \\d+\\.\\d+\\.\\d+.*\n");

    CliProcess.Result help = cli.run("--help");
    assertThat(help.code()).isZero();
    assertThat(help.out()).contains("Exit codes:").contains("BREAKERCTL_REDIS");

    Map<String, String> noEnv =
        Map.of("BREAKERCTL_REDIS", CliProcess.UNSET, "BREAKERCTL_MONGO", CliProcess.UNSET);
    CliProcess.Result set =
        cli.inProcess(noEnv, "config", "set-context", "lab", "--redis", redis.uri(), "--current");
    assertThat(set.code()).as(set.toString()).isZero();
    CliProcess.Result viaContext = cli.inProcess(noEnv, "status", "-o", "name");
    assertThat(viaContext.code()).as(viaContext.toString()).isZero();
    CliProcess.Result missing = cli.inProcess(noEnv, "--context", "nope", "status");
    assertThat(missing.code()).as(missing.toString()).isEqualTo(2);
    CliProcess.Result current = cli.inProcess(noEnv, "config", "current-context");
    assertThat(current.out()).isEqualTo("lab\n");
  }
}
