package io.breakerctl.runtime.redis;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("store credentials")
class StoreCredentialsTest {
  @Test
  @DisplayName("a user without a password is refused before connecting, never sent as default")
  void userWithoutPassword() {
    // nothing listens on port 1: the refusal comes before any connection is tried
    StoreConfig config =
        StoreConfig.builder().uri("redis://127.0.0.1:1").username("viewer").build();
    assertThatThrownBy(() -> RedisBreakerStore.connect(config))
        .isInstanceOf(StorePermissionException.class)
        .hasMessageContaining("'viewer'")
        .hasMessageContaining("without a password");
  }

  @Test
  @DisplayName("connect errors hide the URI's password and Lettuce's <unresolved>")
  void connectErrorsAreClean() {
    StoreConfig config =
        StoreConfig.builder()
            .uri("redis://viewer:s3cret@127.0.0.1:1")
            .timeout(Duration.ofMillis(500))
            .build();
    assertThatThrownBy(() -> RedisBreakerStore.connect(config))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("viewer:***@")
        .hasMessageNotContaining("s3cret")
        .hasMessageNotContaining("<unresolved>");
  }
}
