package io.breakerctl.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("URI redaction")
class RedactionTest {
  @Test
  @DisplayName("the password of every URI is ***; users, hosts and the rest stay")
  void hidesPasswords() {
    assertThat(Redaction.uri("redis://viewer:s3cret@h:6379/0"))
        .isEqualTo("redis://viewer:***@h:6379/0");
    assertThat(Redaction.uri("redis://s3cret@h:6379")).isEqualTo("redis://***@h:6379");
    assertThat(Redaction.uri("redis://a:x@h1:1,redis://b:y@h2:2"))
        .isEqualTo("redis://a:***@h1:1,redis://b:***@h2:2");
    assertThat(Redaction.uri("mongodb://u:p@m1:27017,m2:27017/db?authSource=admin"))
        .isEqualTo("mongodb://u:***@m1:27017,m2:27017/db?authSource=admin");
    assertThat(Redaction.uri("connect to rediss://u:p@h:6380: refused"))
        .isEqualTo("connect to rediss://u:***@h:6380: refused");
    assertThat(Redaction.uri("redis://u:p@ss@h:1")).isEqualTo("redis://u:***@h:1");
    assertThat(Redaction.uri("redis://h:6379")).isEqualTo("redis://h:6379");
    assertThat(Redaction.uri(null)).isNull();
    assertThat(Redaction.hasSecret("redis://u:p@h")).isTrue();
    assertThat(Redaction.hasSecret("redis://h:1")).isFalse();
  }
}
