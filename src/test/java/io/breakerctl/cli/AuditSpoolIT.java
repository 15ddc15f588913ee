package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import io.breakerctl.runtime.control.ControlConfig;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.audit.AuditAction;
import io.breakerctl.runtime.control.audit.AuditLog;
import io.breakerctl.runtime.control.audit.AuditRecord;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * No audit only where Redis may drop it (issue 44, item 3): {@code force open} while MongoDB is
 * stopped keeps the audit record in the CLI's local spool (mode 0600, directory 0700) besides the
 * breaker's stream; the breaker's keys are then deleted (an eviction, a FLUSHALL), MongoDB starts
 * again, and {@code history sync} delivers the record from the spool: who forced what survives.
 */
@DisplayName("an override's audit taken while MongoDB is down survives the loss of its stream")
class AuditSpoolIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @RegisterExtension final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);
  @TempDir Path home;
  private final MemoryBackend backend = new MemoryBackend();
  private MongoServer mongo;
  private int port;

  @AfterEach
  void stopMongo() {
    if (mongo != null) {
      mongo.shutdownNow();
    }
  }

  private InProcessRun run(String... args) {
    Map<String, String> env = new HashMap<>();
    env.put("XDG_CONFIG_HOME", home.resolve("config").toString());
    env.put("XDG_STATE_HOME", home.resolve("state").toString());
    env.put("BREAKERCTL_REDIS", redis.uri());
    env.put("BREAKERCTL_MONGO", "mongodb://127.0.0.1:" + port);
    env.put("BREAKERCTL_TIMEOUT", "2s");
    return InProcessRun.breakerctl(env, args);
  }

  private List<Path> spooled() throws Exception {
    Path spool = home.resolve("state/breakerctl/audit-spool");
    if (!Files.isDirectory(spool)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(spool)) {
      return files.filter(p -> p.toString().endsWith(".json")).toList();
    }
  }

  @Test
  void spooledAuditReachesMongo() throws Exception {
    mongo = new MongoServer(backend);
    mongo.bind("127.0.0.1", 0);
    port = mongo.getLocalAddress().getPort();
    mongo.shutdownNow(); // MongoDB down from the start: the port is kept for its restart

    InProcessRun force =
        run("force", "open", "spool:dep", "--reason", "mongo down drill", "--yes", "-o", "json");
    assertThat(force.code()).as(force.out() + force.err()).isZero();
    assertThat(force.err()).contains("local audit spool");
    JsonNode row = JSON.readTree(force.out()).path("items").path(0);
    assertThat(row.path("auditStored").asBoolean()).isFalse();
    String corr = row.path("correlationId").asText();
    assertThat(corr).isNotEmpty();
    List<Path> files = spooled();
    assertThat(files).hasSize(1);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(files.get(0))))
        .isEqualTo("rw-------");
    assertThat(
            PosixFilePermissions.toString(Files.getPosixFilePermissions(files.get(0).getParent())))
        .isEqualTo("rwx------");

    // the breaker's keys go (an eviction, a FLUSHALL): the stream held the only other copy
    redis.server().flushAll();

    mongo = new MongoServer(backend);
    mongo.bind("127.0.0.1", port);
    InProcessRun sync = run("history", "sync");
    assertThat(sync.code()).as(sync.out() + sync.err()).isZero();
    assertThat(sync.out()).contains("1 audit record(s) from the local spool");
    assertThat(spooled()).as("the spool is empty once delivered").isEmpty();
    try (ControlDatabase db =
        ControlDatabase.connect(
            ControlConfig.builder().uri("mongodb://127.0.0.1:" + port).build())) {
      Optional<AuditRecord> stored = new AuditLog(db).find(corr);
      assertThat(stored).isPresent();
      assertThat(stored.get().action()).isEqualTo(AuditAction.FORCE);
      assertThat(stored.get().target()).isEqualTo("spool:dep");
      assertThat(stored.get().reason()).isEqualTo("mongo down drill");
      assertThat(stored.get().after()).containsEntry("override", "FORCED_OPEN");
    }
    InProcessRun again = run("history", "sync");
    assertThat(again.code()).isZero();
    assertThat(again.out()).doesNotContain("from the local spool");
  }
}
