package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.testing.MemoryMongo;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import io.breakerctl.testing.RedisServerProcess;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code doctor}'s replication check against a real master and replica: it names each replica with
 * its state and lag, warns while nothing guards against writes lost in a failover ({@code
 * min-replicas-to-write 0}: an override a master acknowledged can be gone on the promoted replica)
 * and passes once it is set; a master without replicas is said as such. Warnings do not fail.
 */
@DisplayName("doctor names the replicas and what guards against lost writes")
class DoctorReplicationIT {
  @RegisterExtension final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);
  @RegisterExtension final MemoryMongo mongo = new MemoryMongo();
  @TempDir Path home;

  private InProcessRun doctor() {
    return InProcessRun.breakerctl(home, redis.uri(), mongo.uri(), "doctor");
  }

  @Test
  void replicasAndLostWrites() {
    InProcessRun alone = doctor();
    assertThat(alone.code()).as(alone.out() + alone.err()).isZero();
    assertThat(alone.out()).containsPattern("ok +replication +:\\d+ no replicas");

    try (RedisServerProcess replica = RedisServerProcess.replicaOf(redis.server())) {
      InProcessRun unguarded = doctor();
      assertThat(unguarded.code()).as("a warning does not fail: " + unguarded.out()).isZero();
      assertThat(unguarded.out())
          .containsPattern("warn +replication +:\\d+ has min-replicas-to-write 0")
          .contains("127.0.0.1:" + replica.port() + " online lag");

      redis.server().call("CONFIG", "SET", "min-replicas-to-write", "1");
      InProcessRun guarded = doctor();
      assertThat(guarded.code()).as(guarded.out() + guarded.err()).isZero();
      assertThat(guarded.out())
          .containsPattern(
              "ok +replication +:\\d+ 1 replica\\(s\\) \\(127\\.0\\.0\\.1:"
                  + replica.port()
                  + " online lag \\d+ s\\), min-replicas-to-write 1");
    } finally {
      redis.server().call("CONFIG", "SET", "min-replicas-to-write", "0");
    }
  }
}
