package io.breakerctl.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Proves the Redis test fixtures work on every available redis-server version. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisFixtureIT {

  @RegisterExtension static final RedisExtension standalone = RedisExtension.standalone();
  @RegisterExtension static final RedisExtension managed = RedisExtension.manual();

  private static ClientResources resources;

  @BeforeAll
  static void clientResources() {
    resources =
        DefaultClientResources.builder().ioThreadPoolSize(2).computationThreadPoolSize(2).build();
  }

  @AfterAll
  static void shutdownResources() {
    resources.shutdown(0, 2, TimeUnit.SECONDS);
  }

  static Stream<RedisBinary> binaries() {
    return RedisBinary.all().stream();
  }

  @Test
  void binariesAreDistinctAndAtLeast62() {
    List<RedisBinary> all = RedisBinary.all();
    assertThat(all).isNotEmpty();
    assertThat(all.get(0)).isEqualTo(RedisBinary.embedded());
    assertThat(RedisBinary.embedded().version()).startsWith("6.2.");
    assertThat(all).allMatch(b -> b.atLeast(6, 2));
    assertThat(all.stream().map(RedisBinary::version).distinct()).hasSize(all.size());
    assertThat(all).allMatch(b -> b.label().equals("redis-" + b.version()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("binaries")
  void standaloneLifecycle(RedisBinary binary) throws Exception {
    RedisServerProcess server = managed.manage(RedisServerProcess.start(binary));
    int port = server.port();
    assertThat(server.uri()).isEqualTo("redis://127.0.0.1:" + port);
    assertThat(server.version()).isEqualTo(binary.version());
    assertThat(server.isAlive()).isTrue();

    RedisClient client = client(server.uri());
    try (StatefulRedisConnection<String, String> conn = client.connect()) {
      RedisCommands<String, String> redis = conn.sync();
      assertThat(redis.info("server")).contains("redis_version:" + binary.version());
      redis.set("k", "v");
      assertThat(redis.get("k")).isEqualTo("v");

      server.pause(Duration.ofMillis(500));
      long start = System.nanoTime();
      assertThat(redis.get("k")).isEqualTo("v");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(Duration.ofMillis(400));

      server.flushAll();
      assertThat(redis.dbsize()).isZero();
    } finally {
      client.shutdown(0, 2, TimeUnit.SECONDS);
    }

    server.kill();
    assertThat(server.isAlive()).isFalse();
    assertThatThrownBy(() -> new Socket(server.host(), port).close())
        .isInstanceOf(ConnectException.class);

    server.restart();
    assertThat(server.port()).isEqualTo(port);
    assertThat(server.isAlive()).isTrue();
    assertThat(server.call("PING")).isEqualTo("PONG");

    server.stop();
    assertThat(server.isAlive()).isFalse();
    server.close();
    assertThat(server.dir()).doesNotExist();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("binaries")
  void clusterForms(RedisBinary binary) {
    RedisClusterProcess cluster = managed.manage(RedisClusterProcess.start(binary));
    assertThat(cluster.nodes()).hasSize(3);
    assertThat(cluster.uri()).isEqualTo(String.join(",", cluster.seedUris()));
    for (RedisServerProcess node : cluster.nodes()) {
      assertThat(node.version()).isEqualTo(binary.version());
      assertThat((String) node.call("CLUSTER", "INFO"))
          .contains("cluster_state:ok", "cluster_slots_assigned:16384", "cluster_known_nodes:3");
      List<String> lines = List.of(((String) node.call("CLUSTER", "NODES")).trim().split("\n"));
      assertThat(lines).hasSize(3).allMatch(l -> l.contains("master") && !l.contains("fail"));
    }

    RedisServerProcess first = cluster.nodes().get(0);
    Map<RedisServerProcess, String> keyPerMaster = new HashMap<>();
    for (String tag : List.of("a", "b", "c", "d", "e", "f", "g", "h", "user:1", "user:2")) {
      String key = "{" + tag + "}:breaker";
      assertThat((long) RedisClusterProcess.slot(key))
          .as("slot of %s", key)
          .isEqualTo(first.call("CLUSTER", "KEYSLOT", key));
      keyPerMaster.putIfAbsent(cluster.masterFor(key), key);
    }
    assertThat(keyPerMaster).as("hash tags spread over all masters").hasSize(3);
    for (Map.Entry<RedisServerProcess, String> e : keyPerMaster.entrySet()) {
      assertThat(e.getKey().call("SET", e.getValue(), "1")).isEqualTo("OK");
      for (RedisServerProcess other : cluster.nodes()) {
        if (other != e.getKey()) {
          assertThatThrownBy(() -> other.call("GET", e.getValue()))
              .isInstanceOf(Resp.ErrorReply.class)
              .hasMessageStartingWith("MOVED")
              .hasMessageEndingWith(":" + e.getKey().port());
        }
      }
    }

    RedisClusterClient client =
        RedisClusterClient.create(
            resources,
            cluster.seedUris().stream().map(RedisURI::create).collect(Collectors.toList()));
    try (StatefulRedisClusterConnection<String, String> conn = client.connect()) {
      Set<String> keys = new HashSet<>(keyPerMaster.values());
      for (String key : keys) {
        conn.sync().set(key, "via-lettuce");
        assertThat(conn.sync().get(key)).isEqualTo("via-lettuce");
      }
    } finally {
      client.shutdown(0, 2, TimeUnit.SECONDS);
    }

    cluster.flushAll();
    for (RedisServerProcess node : cluster.nodes()) {
      assertThat(node.call("DBSIZE")).isEqualTo(0L);
    }
  }

  @Test
  void proxyModes(RedisServerProcess server) throws Exception {
    TcpProxy proxy = managed.manage(TcpProxy.to(server.port()));
    RedisClient client = client(proxy.uri());
    try (StatefulRedisConnection<String, String> conn = client.connect()) {
      RedisCommands<String, String> redis = conn.sync();
      assertThat(redis.ping()).isEqualTo("PONG");

      proxy.delay(Duration.ofMillis(150));
      long start = System.nanoTime();
      assertThat(redis.ping()).isEqualTo("PONG");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(Duration.ofMillis(250));

      proxy.drop();
      conn.setTimeout(Duration.ofMillis(500));
      assertThatThrownBy(() -> redis.get("x")).isInstanceOf(RedisCommandTimeoutException.class);
      assertThatThrownBy(
              () -> Resp.call(server.host(), proxy.port(), Duration.ofMillis(300), "PING"))
          .hasRootCauseInstanceOf(SocketTimeoutException.class);
      assertThat(server.call("PING")).isEqualTo("PONG");

      proxy.pass();
      conn.setTimeout(Duration.ofSeconds(2));
      assertThat(redis.ping()).isEqualTo("PONG");
    } finally {
      client.shutdown(0, 2, TimeUnit.SECONDS);
    }

    try (Socket open = new Socket(server.host(), proxy.port())) {
      open.setSoTimeout(2000);
      assertThat(Resp.call(server.host(), proxy.port(), Duration.ofSeconds(2), "PING"))
          .isEqualTo("PONG");
      proxy.reset();
      assertThatThrownBy(() -> open.getInputStream().read()).isInstanceOf(SocketException.class);
    }
    try (Socket fresh = new Socket(server.host(), proxy.port())) {
      fresh.setSoTimeout(2000);
      InputStream in = fresh.getInputStream();
      assertThatThrownBy(in::read).isInstanceOf(SocketException.class);
    }
    proxy.pass();
    assertThat(Resp.call(server.host(), proxy.port(), Duration.ofSeconds(2), "PING"))
        .isEqualTo("PONG");
  }

  @Test
  void childJvmRunsMainAndReportsExitCodeAndOutput() {
    ChildJvm child =
        managed.manage(ChildJvm.start(List.of("-Dexit=3"), EchoMain.class, "a", "b c"));
    assertThat(child.waitFor(Duration.ofSeconds(30))).isEqualTo(3);
    assertThat(child.stdout()).containsExactly("echo:a", "echo:b c");
    assertThat(child.stderr()).contains("pid:" + child.pid());

    ChildJvm sleeper = managed.manage(ChildJvm.start(List.of("-Dsleep=60000"), EchoMain.class));
    assertThat(sleeper.isAlive()).isTrue();
    sleeper.kill();
    assertThat(sleeper.isAlive()).isFalse();
    assertThat(ProcessHandle.of(sleeper.pid()).map(ProcessHandle::isAlive))
        .isNotEqualTo(Optional.of(true));
  }

  @Test
  void childProcessesDoNotOutliveTheirJvm() throws Exception {
    ChildJvm exiting = managed.manage(ChildJvm.start(OrphanRedisMain.class, "exit"));
    assertThat(exiting.waitFor(Duration.ofSeconds(30))).isZero();
    assertThat(awaitDead(redisPid(exiting))).as("killed by the shutdown hook").isTrue();
    assertThat(Path.of(exiting.stdout().get(1).substring("dir:".length())))
        .as("scratch dir removed by the shutdown hook")
        .doesNotExist();

    ChildJvm crashing = managed.manage(ChildJvm.start(OrphanRedisMain.class));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (crashing.stdout().size() < 2 && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    long orphan = redisPid(crashing);
    crashing.kill(); // SIGKILL: no shutdown hook runs, the redis-server is orphaned
    assertThat(ProcessHandle.of(orphan).map(ProcessHandle::isAlive)).contains(true);
    Path scratch = Path.of(crashing.stdout().get(1).substring("dir:".length()));
    // reapOrphans leaves a marker for the next pass while the dead JVM is still being reaped or
    // its child takes long to exit: poll passes with a deadline, as the next test JVM would
    long reapDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    do {
      TestProcesses.reapOrphans();
      if (!Files.exists(scratch)
          && !ProcessHandle.of(orphan).map(ProcessHandle::isAlive).orElse(false)) {
        break;
      }
      Thread.sleep(100);
    } while (System.nanoTime() < reapDeadline);
    assertThat(awaitDead(orphan)).as("killed by reapOrphans").isTrue();
    assertThat(scratch).as("scratch dir removed by reapOrphans").doesNotExist();
  }

  private static long redisPid(ChildJvm child) {
    assertThat(child.stdout()).as("stderr: %s", child.stderr()).isNotEmpty();
    return Long.parseLong(child.stdout().get(0).substring("pid:".length()));
  }

  private static boolean awaitDead(long pid) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (System.nanoTime() < deadline) {
      if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
        Thread.sleep(50);
      } else {
        return true;
      }
    }
    return false;
  }

  private static RedisClient client(String uri) {
    RedisURI redisUri = RedisURI.create(uri);
    redisUri.setTimeout(Duration.ofSeconds(2));
    return RedisClient.create(resources, redisUri);
  }
}
