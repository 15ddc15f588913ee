package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@code exporter} refuses a bad {@code --listen} (not HOST:PORT, a port out of range, an unknown
 * host, an address already in use) and a zero timeout with exit 2 naming the option, and serves
 * nothing; it never reaches Redis for it (the address is checked before any scrape).
 */
@DisplayName("exporter: bad input")
class ExporterCommandTest {

  private static InProcessRun run(String... args) {
    // a closed port: nothing here may need Redis
    return InProcessRun.breakerctl(Map.of("BREAKERCTL_REDIS", "redis://127.0.0.1:1"), args);
  }

  private static void refused(InProcessRun r, String... said) {
    assertThat(r.code()).as(r.err()).isEqualTo(ExitCode.USAGE);
    assertThat(r.err()).contains(said).doesNotContain("Exception").doesNotContain("\tat ");
    assertThat(r.out()).isEmpty();
  }

  @Test
  @DisplayName("--listen not HOST:PORT, port out of range, unknown host: exit 2 naming it")
  void badListen() {
    refused(run("exporter", "--listen", "9464"), "--listen '9464' is not HOST:PORT");
    refused(run("exporter", "--listen", "127.0.0.1:99999"), "port must be 0..65535");
    refused(run("exporter", "--listen", "no-such-host.invalid:9464"), "unknown host");
    refused(run("exporter", "--scrape-timeout", "0s"), "--scrape-timeout must be more than 0");
    refused(run("exporter", "--cache", "soon"), "--cache", "invalid duration");
  }

  @Test
  @DisplayName("an address in use: exit 2, cannot serve there")
  void inUse() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      refused(
          run("exporter", "--listen", "127.0.0.1:" + taken.getLocalPort()),
          "--listen 127.0.0.1:" + taken.getLocalPort() + ": cannot serve there");
    }
  }
}
