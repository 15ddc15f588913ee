package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import io.breakerctl.testing.RedisServerProcess;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Reaching Redis through Sentinel: a redis-sentinel:// URI names the master set. */
@DisplayName("breakerctl through Redis Sentinel")
class CliSentinelIT {

  @RegisterExtension final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);

  @TempDir Path home;

  @Test
  @DisplayName("status and force work through a sentinel that monitors the master")
  void throughSentinel() {
    RedisServerProcess master = redis.server();
    RedisServerProcess sentinel =
        redis.manage(
            RedisServerProcess.builder(RedisBinary.embedded())
                .config("sentinel monitor breakers 127.0.0.1 " + master.port() + " 1\n")
                .args("--sentinel")
                .start());
    BreakerId id = BreakerId.parse("sentinel:dep");
    try (RedisFleetStore direct =
        RedisFleetStore.connect(StoreConfig.builder().uri(master.uri()).build())) {
      StoreFutures.await(
          direct.record(
              id, Outcome.failure("n1", ""), Policy.builder().failureThreshold(1).build()));
    }
    String uri = "redis-sentinel://127.0.0.1:" + sentinel.port() + "?sentinelMasterId=breakers";
    CliProcess cli = new CliProcess(home).env("BREAKERCTL_TIMEOUT", "3s");

    CliProcess.Result status = cli.run("--redis", uri, "status", "sentinel:*", "-o", "name");
    CliProcess.Result force =
        cli.run(
            "--redis",
            uri,
            "--mongo",
            "mongodb://127.0.0.1:1",
            "force",
            "closed",
            "sentinel:dep",
            "--reason",
            "drill",
            "--yes");

    CliProcess.Result doctor =
        cli.inProcess("--redis", uri, "--mongo", "mongodb://127.0.0.1:1", "doctor");
    assertThat(doctor.out())
        .as("%s", doctor)
        .containsPattern("ok +topology +sentinel: master set 'breakers' through 1 sentinel");
    assertThat(status.code()).as("%s", status).isZero();
    assertThat(status.out()).contains("sentinel:dep");
    assertThat(force.code()).as("%s", force).isZero();
    assertThat((String) master.call("HGET", "cb:{sentinel:dep}", "override"))
        .isEqualTo("FORCED_CLOSED");
  }
}
