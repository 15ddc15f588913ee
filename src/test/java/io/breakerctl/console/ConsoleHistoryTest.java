package io.breakerctl.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The console's history: private, and never a line that carries a secret (no server). */
@DisplayName("console history")
class ConsoleHistoryTest {

  @Nested
  @DisplayName("a line that carries a secret")
  class Secrets {
    @ParameterizedTest
    @ValueSource(
        strings = {
          "status --redis redis://viewer:PW@127.0.0.1:6380",
          "--redis rediss://PW@redis.internal:6380 status",
          "status --redis 'redis://viewer:p w,/#?%@127.0.0.1:1'",
          "status --redis \"redis://viewer:it's@h:1\"",
          "status --redis redis://h1:6379,redis://viewer:PW@h2:6379",
          "policy list --mongo mongodb://ops:PW@mongo:27017/breakerctl",
          "status --redis-password PW",
          "status --redis-password=PW",
          "status --PASSWORD PW",
          "status '--password=PW'",
          "config set-context x --secret PW",
          "status password=PW",
        })
    void isNotKept(String line) {
      assertThat(ConsoleHistory.carriesSecret(line)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(
        strings = {
          "status --redis redis://127.0.0.1:6380",
          "status --redis-password-file /run/secrets/redis.pw",
          "status --redis-password",
          "note orders:pricing \"rotated the password of viewer\"",
          "describe checkout:payments",
          "use staging",
        })
    void withoutOneIsKept(String line) {
      assertThat(ConsoleHistory.carriesSecret(line)).isFalse();
    }
  }

  @Test
  @DisplayName("add keeps a line without a secret and drops one with a secret")
  void addDropsSecrets(@TempDir Path dir) {
    ConsoleHistory history = new ConsoleHistory(dir.resolve("history"));

    history.add(Instant.now(), "status --redis redis://viewer:PW@h:1");
    history.add(Instant.now(), "describe checkout:payments");

    assertThat(history.size()).isEqualTo(1);
    assertThat(history.get(history.first())).isEqualTo("describe checkout:payments");
  }

  @Test
  @DisplayName("clean creates the file 0600 in a 0700 directory")
  void cleanCreatesAPrivateFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("state/breakerctl/history");

    new ConsoleHistory(file).clean();

    assertThat(Files.getPosixFilePermissions(file))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    assertThat(Files.getPosixFilePermissions(file.getParent()))
        .isEqualTo(PosixFilePermissions.fromString("rwx------"));
  }

  @Test
  @DisplayName("clean tightens an existing 0644 file and removes the lines with a secret")
  void cleanTightensAndScrubs(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("history");
    Files.writeString(
        file,
        "1733000000000:status claims:*\n"
            + "1733000000001:status --redis redis://viewer:OLD-PW@h:1\n"
            + "1733000000002:describe checkout:payments\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));

    new ConsoleHistory(file).clean();

    assertThat(Files.getPosixFilePermissions(file))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    assertThat(Files.readAllLines(file))
        .containsExactly(
            "1733000000000:status claims:*", "1733000000002:describe checkout:payments");
  }
}
