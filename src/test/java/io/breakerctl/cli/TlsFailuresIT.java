package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.runtime.store.StoreTlsException;
import io.breakerctl.runtime.store.TlsFailure;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisServerProcess;
import io.breakerctl.testing.TestCertificates;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS failures named by cause, on redis-server processes serving TLS ({@code --tls-port}) with
 * certificates the test makes ({@link TestCertificates}): an untrusted certificate, a bad CA file,
 * a plain server behind {@code rediss://} and a hostname mismatch each get a message of their own
 * (and, in the runtime, a {@link TlsFailure}); the happy path (the right CA, the right host) works.
 */
@DisplayName("TLS failures say what is wrong")
class TlsFailuresIT {
  @TempDir static Path dir;
  static TestCertificates ca;
  static TestCertificates otherCa;
  static RedisServerProcess trusted;
  static int trustedTls;
  static RedisServerProcess elsewhere;
  static int elsewhereTls;
  static RedisServerProcess expired;
  static int expiredTls;
  static Path garbage;

  @BeforeAll
  static void start() throws IOException {
    ca = TestCertificates.authority(dir, "breakerctl-test-ca");
    otherCa = TestCertificates.authority(dir, "other-ca");
    trustedTls = freePort();
    trusted = tlsServer(ca.server("redis-127", "ip:127.0.0.1"), trustedTls);
    elsewhereTls = freePort();
    elsewhere = tlsServer(ca.server("redis-elsewhere", "dns:elsewhere.invalid"), elsewhereTls);
    expiredTls = freePort();
    expired = tlsServer(ca.expiredServer("redis-expired", "ip:127.0.0.1"), expiredTls);
    garbage = dir.resolve("garbage.pem");
    Files.writeString(garbage, "-----BEGIN CERTIFICATE-----\nnot base64 at all\n");
  }

  @AfterAll
  static void stop() {
    for (RedisServerProcess r : new RedisServerProcess[] {trusted, elsewhere, expired}) {
      if (r != null) {
        r.close();
      }
    }
  }

  static RedisServerProcess tlsServer(TestCertificates.Server cert, int tlsPort) {
    return RedisServerProcess.builder(RedisBinary.embedded())
        .args(
            "--tls-port",
            Integer.toString(tlsPort),
            "--tls-cert-file",
            cert.certFile().toString(),
            "--tls-key-file",
            cert.keyFile().toString(),
            "--tls-auth-clients",
            "no")
        .start();
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  static String tls(int port) {
    return "rediss://127.0.0.1:" + port;
  }

  @Nested
  @DisplayName("the runtime: StoreTlsException with the cause named")
  class Store {
    StoreConfig config(String uri, Path caFile) {
      return StoreConfig.builder().uri(uri).timeout(Duration.ofSeconds(2)).caFile(caFile).build();
    }

    TlsFailure failure(String uri, Path caFile) {
      try (RedisFleetStore s = RedisFleetStore.connect(config(uri, caFile))) {
        throw new AssertionError("connected to " + uri);
      } catch (StoreTlsException e) {
        assertThat(e.getMessage()).startsWith("connect to " + uri + ": TLS");
        return e.failure();
      }
    }

    @Test
    @DisplayName("trusted CA and the right host: connected")
    void happyPath() {
      try (RedisFleetStore s = RedisFleetStore.connect(config(tls(trustedTls), ca.caFile()))) {
        assertThat(StoreFutures.await(s.ping())).isNotNull();
      }
    }

    @Test
    @DisplayName("each cause is told apart")
    void causes() {
      assertThat(failure(tls(trustedTls), otherCa.caFile()))
          .isEqualTo(TlsFailure.UNTRUSTED_CERTIFICATE);
      assertThat(failure(tls(trustedTls), null)).isEqualTo(TlsFailure.UNTRUSTED_CERTIFICATE);
      assertThat(failure(tls(elsewhereTls), ca.caFile())).isEqualTo(TlsFailure.HOSTNAME_MISMATCH);
      assertThat(failure(tls(trusted.port()), ca.caFile())).isEqualTo(TlsFailure.PLAIN_SERVER);
      assertThat(failure(tls(expiredTls), ca.caFile())).isEqualTo(TlsFailure.EXPIRED_CERTIFICATE);
    }

    @Test
    @DisplayName("a bad CA file is a configuration error naming the file")
    void badCaFile() {
      assertThatThrownBy(() -> RedisFleetStore.connect(config(tls(trustedTls), garbage)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "CA file "
                  + garbage
                  + " holds no certificate (expected PEM: -----BEGIN"
                  + " CERTIFICATE----- ...)");
    }
  }

  static InProcessRun run(Path caFile, String uri, String... args) {
    Map<String, String> env = new HashMap<>();
    env.put("XDG_CONFIG_HOME", dir.resolve("home").toString());
    env.put("BREAKERCTL_REDIS", uri);
    env.put("BREAKERCTL_MONGO", "mongodb://127.0.0.1:1");
    env.put("BREAKERCTL_TIMEOUT", "2s");
    if (caFile != null) {
      env.put("BREAKERCTL_REDIS_CA_FILE", caFile.toString());
    }
    return InProcessRun.breakerctl(env, args);
  }

  @Nested
  @DisplayName("breakerctl: a message per cause, and its exit code")
  class Cli {
    @Test
    @DisplayName("trusted CA and the right host: status works")
    void happyPath() {
      InProcessRun r = run(ca.caFile(), tls(trustedTls), "status", "-o", "json");
      assertThat(r.code()).as(r.toString()).isZero();
    }

    @Test
    @DisplayName("each cause its message: exit 6 for the connection, exit 2 for the CA file")
    void causes() {
      InProcessRun untrusted = run(otherCa.caFile(), tls(trustedTls), "status");
      InProcessRun mismatch = run(ca.caFile(), tls(elsewhereTls), "status");
      InProcessRun plain = run(ca.caFile(), tls(trusted.port()), "status");
      InProcessRun badCa = run(garbage, tls(trustedTls), "status");
      InProcessRun missingCa = run(dir.resolve("missing.pem"), tls(trustedTls), "status");
      InProcessRun outdated = run(ca.caFile(), tls(expiredTls), "status");

      assertThat(untrusted.code()).as(untrusted.toString()).isEqualTo(ExitCode.UNAVAILABLE);
      assertThat(untrusted.err())
          .contains("TLS: the server's certificate is not trusted")
          .contains("hint: trust the CA that signed the server's certificate with --redis-ca-file");
      assertThat(mismatch.code()).as(mismatch.toString()).isEqualTo(ExitCode.UNAVAILABLE);
      assertThat(mismatch.err())
          .contains("TLS: the server's certificate does not name the host connected to");
      assertThat(plain.code()).as(plain.toString()).isEqualTo(ExitCode.UNAVAILABLE);
      assertThat(plain.err()).contains("TLS: the server does not speak TLS");
      assertThat(badCa.code()).as(badCa.toString()).isEqualTo(ExitCode.USAGE);
      assertThat(badCa.err()).contains("CA file " + garbage + " holds no certificate");
      assertThat(missingCa.code()).as(missingCa.toString()).isEqualTo(ExitCode.USAGE);
      assertThat(missingCa.err()).contains("missing.pem does not exist");
      assertThat(outdated.code()).as(outdated.toString()).isEqualTo(ExitCode.UNAVAILABLE);
      assertThat(outdated.err()).contains("TLS: the server's certificate has expired");

      List<String> firstLines = new ArrayList<>();
      for (InProcessRun r : List.of(untrusted, mismatch, plain, badCa, outdated)) {
        assertThat(r.err()).doesNotContain("Unable to connect");
        firstLines.add(r.err().lines().findFirst().orElseThrow().replaceAll(":\\d+", ":PORT"));
      }
      assertThat(firstLines).doesNotHaveDuplicates();
    }
  }
}
