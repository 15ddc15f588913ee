package io.breakerctl.testing;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A MongoDB wire server in memory on a free loopback port, one per test ({@code
 * RegisterExtension}): for the CLI tests whose control plane is a bystander (audits, the policies
 * in force). Tests of MongoDB's own failure modes start a real one.
 */
public final class MemoryMongo implements BeforeEachCallback, AfterEachCallback {
  private MongoServer server;
  private String uri;

  @Override
  public void beforeEach(ExtensionContext context) {
    server = new MongoServer(new MemoryBackend());
    server.bind("127.0.0.1", 0);
    uri = "mongodb://127.0.0.1:" + server.getLocalAddress().getPort();
  }

  @Override
  public void afterEach(ExtensionContext context) {
    server.shutdownNow();
  }

  /** The server's connection string. */
  public String uri() {
    return uri;
  }
}
