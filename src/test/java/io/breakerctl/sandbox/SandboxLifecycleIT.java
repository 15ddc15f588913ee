package io.breakerctl.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sandbox as a library: a real daemon JVM, redis-server and MongoDB-wire server. */
class SandboxLifecycleIT {

  @TempDir Path stateHome;
  private Sandbox sandbox;

  private Sandbox sandbox() {
    if (sandbox == null) {
      sandbox =
          new Sandbox(
              stateHome.resolve("breakerctl").resolve("sandbox"),
              Duration.ofSeconds(60),
              Duration.ofSeconds(20));
    }
    return sandbox;
  }

  @AfterEach
  void stopEverything() {
    if (sandbox != null) {
      sandbox.down();
    }
  }

  @Test
  @DisplayName("up: both ports answer; data written before down survives the next up")
  void upDownUpKeepsData() {
    // Given a fresh sandbox
    SandboxStart first = sandbox().up();
    SandboxState s = first.state();
    assertThat(first.alreadyRunning()).isFalse();
    assertThat(s.dataDir()).isEqualTo(sandbox().dir());
    assertThat(Files.exists(sandbox().dir().resolve(SandboxState.FILE_NAME))).isTrue();

    // When we write to both servers and stop the sandbox
    assertThat(redis(s, "PING")).isEqualTo("PONG");
    redisSet(s, "sandbox:key", "kept");
    try (MongoClient mongo = mongo(s)) {
      assertThat(mongo.getDatabase("admin").runCommand(new Document("ping", 1)).get("ok"))
          .isIn(1, 1.0);
      notes(mongo).insertOne(new Document("_id", "n1").append("text", "survives a restart"));
    }
    SandboxShutdown stopped = sandbox().down();

    // Then both processes are gone and the state file removed
    assertThat(stopped.outcome()).isEqualTo(SandboxShutdown.Outcome.STOPPED);
    assertThat(ProcessHandle.of(s.daemonPid()).map(ProcessHandle::isAlive))
        .isNotEqualTo(java.util.Optional.of(true));
    assertGone(s.redisPid());
    assertThat(sandbox().status().running()).isFalse();
    assertThat(Files.exists(sandbox().dir().resolve(SandboxState.FILE_NAME))).isFalse();

    // And a new sandbox on the same directory still has the data
    SandboxState again = sandbox().up().state();
    assertThat(again.daemonPid()).isNotEqualTo(s.daemonPid());
    try (MongoClient mongo = mongo(again)) {
      Document doc = notes(mongo).find(new Document("_id", "n1")).first();
      assertThat(doc).isNotNull();
      assertThat(doc.getString("text")).isEqualTo("survives a restart");
    }
    assertThat(redis(again, "GET sandbox:key")).isEqualTo("kept");
  }

  @Test
  @DisplayName("status: ports, pids and data dir while running; up again returns the running one")
  void statusAndIdempotentUp() {
    SandboxState s = sandbox().up().state();

    SandboxStatus status = sandbox().status();
    assertThat(status.running()).isTrue();
    assertThat(status.summary()).isEqualTo("running");
    assertThat(status.state()).contains(s);
    assertThat(s.redisPort()).isPositive().isNotEqualTo(6379);
    assertThat(s.mongoPort()).isPositive().isNotEqualTo(27017);
    assertThat(s.redisPid()).isNotEqualTo(s.daemonPid());

    SandboxStart again = sandbox().up();
    assertThat(again.alreadyRunning()).isTrue();
    assertThat(again.state()).isEqualTo(s);
  }

  @Test
  @DisplayName("down when nothing runs says so and changes nothing")
  void downWhenNotRunning() {
    SandboxShutdown result = sandbox().down();

    assertThat(result.outcome()).isEqualTo(SandboxShutdown.Outcome.NOT_RUNNING);
    assertThat(result.state()).isEmpty();
    assertThat(sandbox().status().summary()).isEqualTo("not running");
  }

  @Test
  @DisplayName("a SIGKILLed daemon takes redis-server with it; down cleans up the state file")
  void killedDaemonTakesRedisAlong() throws Exception {
    SandboxState s = sandbox().up().state();

    ProcessHandle daemon = ProcessHandle.of(s.daemonPid()).orElseThrow();
    daemon.destroyForcibly();
    daemon.onExit().get(10, TimeUnit.SECONDS);

    assertGone(s.redisPid());
    SandboxStatus status = sandbox().status();
    assertThat(status.degraded()).isTrue();
    assertThat(status.summary()).contains("daemon gone").contains("sandbox down");
    assertThat(sandbox().down().outcome()).isEqualTo(SandboxShutdown.Outcome.CLEANED_UP);
    assertThat(sandbox().status().state()).isEmpty();
  }

  private static void assertGone(long pid) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
      assertThat(System.nanoTime()).as("pid %d still alive after 10 s", pid).isLessThan(deadline);
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  private static MongoCollection<Document> notes(MongoClient mongo) {
    return mongo.getDatabase("sandbox_it").getCollection("notes");
  }

  private static MongoClient mongo(SandboxState s) {
    return MongoClients.create(
        MongoClientSettings.builder()
            .applyConnectionString(new ConnectionString(s.mongoUri()))
            .applyToClusterSettings(b -> b.serverSelectionTimeout(5, TimeUnit.SECONDS))
            .applyToSocketSettings(b -> b.connectTimeout(5, TimeUnit.SECONDS))
            .build());
  }

  private static String redis(SandboxState s, String command) {
    RedisClient client = RedisClient.create(s.redisUri());
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      String[] parts = command.split(" ");
      return parts[0].equals("PING") ? c.sync().ping() : c.sync().get(parts[1]);
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  private static void redisSet(SandboxState s, String key, String value) {
    RedisClient client = RedisClient.create(s.redisUri());
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      c.sync().set(key, value);
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }
}
