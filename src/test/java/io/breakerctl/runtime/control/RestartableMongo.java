package io.breakerctl.runtime.control;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.time.Duration;

/**
 * The in-process MongoDB-wire server on a fixed loopback port that tests stop ("MongoDB down") and
 * start again on the same backend, so the data survives the outage as on a real server.
 */
public final class RestartableMongo implements AutoCloseable {

  /**
   * The server closes its backend when it shuts down, and closing a memory backend drops every
   * database; this one keeps them, as a real server's disk would.
   */
  private static final class SurvivingBackend extends MemoryBackend {
    @Override
    public void close() {
      // the data outlives the server process
    }
  }

  private final MemoryBackend backend = new SurvivingBackend();
  private final int port;
  private MongoServer server;

  public RestartableMongo() {
    server = new MongoServer(backend);
    server.bind("127.0.0.1", 0);
    port = server.getLocalAddress().getPort();
  }

  public String uri() {
    return "mongodb://127.0.0.1:" + port;
  }

  /** A configuration with a short timeout, so calls during an outage fail fast. */
  public ControlConfig config(String database, Duration timeout) {
    return ControlConfig.builder().uri(uri()).database(database).timeout(timeout).build();
  }

  public synchronized void stop() {
    if (server != null) {
      server.shutdownNow();
      server = null;
    }
  }

  public synchronized void start() {
    if (server == null) {
      server = new MongoServer(backend);
      server.bind("127.0.0.1", port);
    }
  }

  @Override
  public synchronized void close() {
    stop();
  }
}
