package io.breakerctl.cli;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fixture of a contract test class: {@link CliServers} (a redis-server process, the
 * MongoDB-wire server, the packaged jar as {@link #cli}) started once for the class and stopped
 * after it.
 */
abstract class WithCliServers {
  static CliServers servers;
  static CliProcess cli;
  @TempDir static Path home;

  @BeforeAll
  static void startServers() {
    servers = CliServers.start(home);
    cli = servers.cli;
  }

  @AfterAll
  static void stopServers() {
    if (servers != null) {
      servers.close();
      servers = null;
    }
  }
}
