package io.breakerctl.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SandboxRedisExecutableIT {

  @TempDir Path dir;

  @Test
  void theBundledBinaryIsExtractedOnceAndIsSixTwo() throws Exception {
    RedisExecutable first = RedisExecutable.embedded(dir);
    long modified = Files.getLastModifiedTime(first.path()).toMillis();

    RedisExecutable second = RedisExecutable.embedded(dir);

    assertThat(first.version()).startsWith("6.2.");
    assertThat(first.atLeast(6, 2)).isTrue();
    assertThat(first.atLeast(7, 0)).isFalse();
    assertThat(Files.getLastModifiedTime(second.path()).toMillis()).isEqualTo(modified);
  }

  @Test
  void findPrefersPathWhenRecentEnough() {
    RedisExecutable found = RedisExecutable.find(dir);

    assertThat(found.atLeast(6, 2)).isTrue();
    RedisExecutable.onPath().ifPresent(p -> assertThat(found).isEqualTo(p));
  }
}
