package io.breakerctl.runtime.conformance;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisClusterProcess;
import io.breakerctl.testing.RedisExtension;
import io.breakerctl.testing.RedisServerProcess;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The conformance suite ({@link ConformanceSuite}) on the Lua scripts, through {@code
 * RedisFleetStore}, on real redis-server processes this test starts: a standalone server and a
 * 3-master cluster (skip the cluster with {@code -Dconformance.cluster=false}). The scripts take
 * time only from Redis {@code TIME}, so the hooks wait for it ({@link RedisStoreUnderTest}); every
 * duration is a multiple of {@code -Dconformance.unitMillis} (150 by default), and a case that
 * proves itself late is repeated with the unit doubled, so the verdicts hold on a loaded host.
 * {@code InProcessConformanceTest} runs the same cases on the Java machine: a case that passes
 * there and fails here (or the reverse) is a disagreement between the machine and the scripts.
 */
@DisplayName("Conformance suite on the Lua scripts (real redis-server)")
class RedisConformanceIT {

  @RegisterExtension static final RedisExtension redis = RedisExtension.manual();

  @Nested
  @DisplayName("standalone")
  class Standalone extends ConformanceSuite {
    @Override
    protected StoreUnderTest open() {
      RedisServerProcess server = redis.manage(RedisServerProcess.start(RedisBinary.embedded()));
      return new RedisStoreUnderTest(
          "redis " + server.version() + " standalone",
          server.uri(),
          java.util.List.of(server),
          key -> server,
          server);
    }
  }

  @Nested
  @DisplayName("3-master cluster")
  class Cluster extends ConformanceSuite {
    @Override
    protected StoreUnderTest open() {
      assumeTrue(
          Boolean.parseBoolean(System.getProperty("conformance.cluster", "true")),
          "-Dconformance.cluster=false");
      RedisClusterProcess cluster = redis.manage(RedisClusterProcess.start(RedisBinary.embedded()));
      return new RedisStoreUnderTest(
          "redis cluster " + cluster.nodes().get(0).version(),
          cluster.uri(),
          cluster.nodes(),
          cluster::masterFor,
          cluster);
    }
  }
}
