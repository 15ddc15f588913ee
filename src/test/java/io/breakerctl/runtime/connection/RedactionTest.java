package io.breakerctl.runtime.connection;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URISyntaxException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

@DisplayName("URI redaction")
class RedactionTest {
  /** A password with every character that ended the old redaction's user info. */
  static final String RAW = "p,a/s#s?w o%rd";

  static final String ENCODED = "p%2Ca%2Fs%23s%3Fw%20o%25rd";

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
    assertThat(Redaction.uri("mongodb+srv://u:p@cluster0.example.net/db"))
        .isEqualTo("mongodb+srv://u:***@cluster0.example.net/db");
    assertThat(Redaction.uri("connect to rediss://u:p@h:6380: refused"))
        .isEqualTo("connect to rediss://u:***@h:6380: refused");
    assertThat(Redaction.uri("redis://u:p@ss@h:1")).isEqualTo("redis://u:***@h:1");
    // a word:// inside a password is user info, as the drivers read it (jqwik found the first;
    // the list reading showed "X" and "Y, Z" of the password)
    assertThat(Redaction.uri("redis://viewer:@X://@h1:6379"))
        .isEqualTo("redis://viewer:***@h1:6379");
    assertThat(Redaction.uri("redis://viewer:X@Y,Z://@h1")).isEqualTo("redis://viewer:***@h1");
    assertThat(ConnectionUris.split("redis://viewer:X@Y,Z://@h1"))
        .as("split as it is redacted: one URI")
        .containsExactly("redis://viewer:X@Y,Z://@h1");
    assertThat(ConnectionUris.split("redis://a:x@h1:1, rediss://b:y@h2:2"))
        .containsExactly("redis://a:x@h1:1", "rediss://b:y@h2:2");
    assertThat(Redaction.uri("redis://h:6379")).isEqualTo("redis://h:6379");
    assertThat(Redaction.uri(null)).isNull();
    assertThat(Redaction.hasSecret("redis://u:p@h")).isTrue();
    assertThat(Redaction.hasSecret("redis://@h")).isTrue();
    assertThat(Redaction.hasSecret("redis://h:1")).isFalse();
  }

  @Nested
  @DisplayName("a password holding , / # ? space or % (raw or percent-encoded)")
  class SpecialCharacters {
    @Test
    @DisplayName("is hidden whole in one URI, as Lettuce and the MongoDB driver read it")
    void oneUri() {
      for (String pw : new String[] {RAW, ENCODED}) {
        assertThat(Redaction.uri("redis://viewer:" + pw + "@127.0.0.1:6379"))
            .isEqualTo("redis://viewer:***@127.0.0.1:6379");
        assertThat(Redaction.uri("rediss://" + pw + "@h:6380/0"))
            .isEqualTo("rediss://***@h:6380/0");
        assertThat(Redaction.uri("mongodb://u:" + pw + "@h1,h2/db?authSource=admin"))
            .isEqualTo("mongodb://u:***@h1,h2/db?authSource=admin");
        assertThat(Redaction.uri("mongodb+srv://u:" + pw + "@c.example.net"))
            .isEqualTo("mongodb+srv://u:***@c.example.net");
      }
    }

    @Test
    @DisplayName("is hidden in every URI of a list of cluster seeds")
    void seedList() {
      String seeds = "redis://a:" + RAW + "@h1:1,redis://b:" + RAW + "@h2:2, redis://h3:3";
      assertThat(Redaction.uri(seeds))
          .isEqualTo("redis://a:***@h1:1,redis://b:***@h2:2, redis://h3:3");
    }

    @Test
    @DisplayName("is hidden in a message quoting the URI, and in a parser's exception")
    void inMessages() {
      String uri = "redis://viewer:" + RAW + "@127.0.0.1:6379";
      assertThat(Redaction.uri("bad Redis URI '" + uri + "': refused"))
          .isEqualTo("bad Redis URI 'redis://viewer:***@127.0.0.1:6379': refused")
          .doesNotContain("rd");
      String trace =
          Redaction.trace(new IllegalStateException("x", new URISyntaxException(uri, "bad")));
      assertThat(trace).contains("redis://viewer:***@127.0.0.1:6379").doesNotContain("o%rd");
    }

    @Test
    @DisplayName("is hidden when it holds a scheme (read with the next URI: more is hidden)")
    void passwordWithScheme() {
      assertThat(Redaction.uri("redis://u:x,redis://y@h:1")).isEqualTo("redis://***@h:1");
      assertThat(Redaction.uri("redis://h1:1,redis://u:p@h2:2")).isEqualTo("redis://***@h2:2");
    }

    @Test
    @DisplayName("a line break ends a URI: the next line is not hidden")
    void lines() {
      assertThat(Redaction.uri("redis://h:1 failed\nmail ops@example.com"))
          .isEqualTo("redis://h:1 failed\nmail ops@example.com");
      assertThat(Redaction.uri("a redis://u:" + RAW + "@h:1\nb"))
          .isEqualTo("a redis://u:***@h:1\nb");
    }
  }

  @Nested
  @DisplayName("ConnectionUris")
  class Uris {
    @Test
    @DisplayName("splits a list only where a scheme follows the comma")
    void split() {
      assertThat(ConnectionUris.split("redis://a:p,q@h1:1,redis://h2:2, rediss://h3:3"))
          .containsExactly("redis://a:p,q@h1:1", "redis://h2:2", "rediss://h3:3");
      assertThat(ConnectionUris.split("redis://h:1")).containsExactly("redis://h:1");
      assertThat(ConnectionUris.split("redis://h1:1,h2:2")).containsExactly("redis://h1:1,h2:2");
    }

    @Test
    @DisplayName("a user info the drivers cannot read raw is named, never quoted")
    void userInfo() {
      assertThat(ConnectionUris.userInfoProblem("redis://u:" + ENCODED + "@h:1")).isNull();
      assertThat(ConnectionUris.userInfoProblem("redis://u:p,a;b=c!@h:1")).isNull();
      assertThat(ConnectionUris.userInfoProblem("redis://h:1")).isNull();
      assertThat(ConnectionUris.userInfoProblem("redis://u:" + RAW + "@h:1"))
          .contains("percent-encoded")
          .doesNotContain("o%rd", "p,a");
      assertThat(ConnectionUris.userInfoProblem("mongodb://u:wo%rd@h/db"))
          .contains("%25")
          .doesNotContain("wo%", "%rd");
      assertThat(ConnectionUris.userInfoProblem("redis://u:x@y@h:1"))
          .contains("%40")
          .doesNotContain("@");
    }
  }
}
