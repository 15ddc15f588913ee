package io.breakerctl.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SandboxStateTest {

  @TempDir Path dir;

  @Test
  void roundTripsThroughTheStateFile() {
    SandboxState state =
        new SandboxState(
            40001, 40002, 11, 12, "7.0.15", dir, Instant.parse("2026-11-30T12:00:00.123Z"));

    state.write(dir);

    assertThat(SandboxState.read(dir)).contains(state);
    assertThat(state.redisUri()).isEqualTo("redis://127.0.0.1:40001");
    assertThat(state.mongoUri()).isEqualTo("mongodb://127.0.0.1:40002");
  }

  @Test
  void noFileMeansNotRunning() {
    assertThat(SandboxState.read(dir)).isEmpty();
  }

  @Test
  void aDamagedFileIsAClearError() throws Exception {
    Files.writeString(dir.resolve(SandboxState.FILE_NAME), "redis.port=x\n");

    assertThatThrownBy(() -> SandboxState.read(dir))
        .isInstanceOf(SandboxException.class)
        .hasMessageContaining("unreadable sandbox state file");
  }
}
