package io.breakerctl.cli;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisServerProcess;
import java.nio.file.Path;

/**
 * What a contract test runs the packaged jar against: a redis-server process, the in-process
 * MongoDB-wire server (stoppable and restartable on the same port and backend), a store for setting
 * up state, and the CLI with both in its environment ({@code --timeout 2s}).
 */
final class CliServers implements AutoCloseable {
  final RedisServerProcess redis;
  final RedisFleetStore store;
  final int mongoPort;
  final CliProcess cli;
  private final MemoryBackend mongoBackend = new MemoryBackend();
  private MongoServer mongo;

  private CliServers(Path home) {
    redis = RedisServerProcess.start(RedisBinary.embedded());
    mongo = new MongoServer(mongoBackend);
    mongo.bind("127.0.0.1", 0);
    mongoPort = mongo.getLocalAddress().getPort();
    store = RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build());
    cli =
        new CliProcess(home)
            .env("BREAKERCTL_REDIS", redis.uri())
            .env("BREAKERCTL_MONGO", mongoUri())
            .env("BREAKERCTL_TIMEOUT", "2s");
  }

  /** Starts the servers; {@code home} is the CLI's isolated config dir. */
  static CliServers start(Path home) {
    return new CliServers(home);
  }

  /** {@code mongodb://127.0.0.1:<port>}. */
  String mongoUri() {
    return "mongodb://127.0.0.1:" + mongoPort;
  }

  /** Stops MongoDB ("MongoDB down"); the memory backend starts empty again on restart. */
  void stopMongo() {
    mongo.shutdownNow();
  }

  /** Starts MongoDB again on the same port. */
  void startMongo() {
    mongo = new MongoServer(mongoBackend);
    mongo.bind("127.0.0.1", mongoPort);
  }

  @Override
  public void close() {
    store.close();
    mongo.shutdownNow();
    redis.close();
  }
}
