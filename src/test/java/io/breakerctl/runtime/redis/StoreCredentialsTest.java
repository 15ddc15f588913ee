package io.breakerctl.runtime.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.breakerctl.runtime.store.StorePermissionException;
import io.breakerctl.runtime.store.StoreUnavailableException;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisCredentialsProvider.ImmediateRedisCredentialsProvider;
import io.lettuce.core.RedisURI;
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
    assertThatThrownBy(() -> RedisFleetStore.connect(config))
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
    assertThatThrownBy(() -> RedisFleetStore.connect(config))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("viewer:***@")
        .hasMessageNotContaining("s3cret")
        .hasMessageNotContaining("<unresolved>");
  }

  @Test
  @DisplayName(
      "every URI is handed to Lettuce with credentials it resolves on the event loop, as given")
  void immediateCredentials() {
    // An asynchronous provider lets the handshake complete off the event loop, before the
    // connection is active: its first command is then rejected (RedisFleetStore.uri).
    record Case(StoreConfig config, String user, String password) {}
    Case[] cases = {
      new Case(StoreConfig.builder().uri("redis://h:1").build(), null, null),
      new Case(StoreConfig.builder().uri("redis://h:1").password("pw").build(), null, "pw"),
      new Case(
          StoreConfig.builder().uri("redis://h:1").username("op").password("pw").build(),
          "op",
          "pw"),
      new Case(StoreConfig.builder().uri("redis://:upw@h:1").build(), null, "upw"),
      new Case(StoreConfig.builder().uri("redis://viewer:upw@h:1").build(), "viewer", "upw"),
      new Case(
          StoreConfig.builder().uri("redis://viewer:upw@h:1").username("op").build(), "op", "upw"),
      new Case(
          StoreConfig.builder().uri("redis://viewer:upw@h:1").password("pw").build(),
          "viewer",
          "pw"),
      // Lettuce reads a user info without a colon as a password (AUTH viewer), as before
      new Case(StoreConfig.builder().uri("redis://viewer@h:1").build(), null, "viewer"),
    };
    for (Case c : cases) {
      RedisURI uri = RedisConnector.uri(c.config().uris().get(0), c.config());
      String what = c.config().uris().get(0) + " " + c.user() + "/" + c.password();
      assertThat(uri.getCredentialsProvider())
          .as(what)
          .isInstanceOf(ImmediateRedisCredentialsProvider.class);
      RedisCredentials got =
          ((ImmediateRedisCredentialsProvider) uri.getCredentialsProvider())
              .resolveCredentialsNow();
      assertThat(got.getUsername()).as(what).isEqualTo(c.user());
      assertThat(got.getPassword() == null ? null : new String(got.getPassword()))
          .as(what)
          .isEqualTo(c.password());
    }
  }
}
