package io.breakerctl.runtime.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("actors: identity(os-user@host)")
class ActorTest {

  @Test
  @DisplayName("the identity first, the OS user and host beside it, one word")
  void shape() {
    String a = Actor.of("operator", "alice", "ci-7");
    assertThat(a).isEqualTo("operator(alice@ci-7)").doesNotContain(" ");
    assertThat(Actor.identity(a)).isEqualTo("operator");
    assertThat(OperatorText.problem(a, OperatorText.MAX_ACTOR_BYTES)).isEmpty();
  }

  @Test
  @DisplayName("history --actor finds it by the whole actor, the identity or the OS user")
  void matches() {
    String a = Actor.of("operator", "alice", "ci-7");
    assertThat(Actor.matches(a, "operator(alice@ci-7)")).isTrue();
    assertThat(Actor.matches(a, "operator")).isTrue();
    assertThat(Actor.matches(a, "alice")).isTrue();
    assertThat(Actor.matches(a, "ci-7")).isFalse();
    assertThat(Actor.matches(a, "oper")).isFalse();
    assertThat(Actor.matches("setup", "setup")).as("an actor recorded before identities").isTrue();
    assertThat(Actor.matches(null, "setup")).isFalse();
  }

  @Test
  @DisplayName("a long host is cut to keep the actor within its bound")
  void bounded() {
    String a = Actor.of("operator", "alice", "h".repeat(500));
    assertThat(a.getBytes(StandardCharsets.UTF_8).length)
        .isLessThanOrEqualTo(OperatorText.MAX_ACTOR_BYTES);
    assertThat(a).startsWith("operator(alice@h").endsWith(")");
    assertThat(Actor.shortHost("Build-7.corp.example.org")).isEqualTo("build-7");
    assertThat(Actor.shortHost("10.0.0.7")).isEqualTo("10.0.0.7");
    assertThat(Actor.shortHost(null)).isEqualTo("unknown");
  }
}
