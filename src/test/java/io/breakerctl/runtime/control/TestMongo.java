package io.breakerctl.runtime.control;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.UUID;

/**
 * A MongoDB for integration tests: the in-process mongo-java-server (memory backend) on a free
 * loopback port, or the real server named by {@code BREAKERCTL_TEST_MONGO_URI}. Each {@link
 * #database()} call returns a configuration for a fresh database, so tests never see each other's
 * data.
 */
public final class TestMongo implements AutoCloseable {

  private final MongoServer server;
  private final String uri;

  private TestMongo(MongoServer server, String uri) {
    this.server = server;
    this.uri = uri;
  }

  public static TestMongo start() {
    String external = System.getenv("BREAKERCTL_TEST_MONGO_URI");
    if (external != null && !external.isBlank()) {
      return new TestMongo(null, external);
    }
    MongoServer server = new MongoServer(new MemoryBackend());
    server.bind("127.0.0.1", 0);
    InetSocketAddress address = server.getLocalAddress();
    return new TestMongo(server, "mongodb://127.0.0.1:" + address.getPort());
  }

  public String uri() {
    return uri;
  }

  /** A configuration for a fresh database with a short timeout. */
  public ControlConfig database() {
    return ControlConfig.builder()
        .uri(uri)
        .database("bt_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12))
        .timeout(Duration.ofSeconds(3))
        .build();
  }

  @Override
  public void close() {
    if (server != null) {
      server.shutdownNow();
    }
  }
}
