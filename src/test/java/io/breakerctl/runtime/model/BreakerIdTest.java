package io.breakerctl.runtime.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@DisplayName("BreakerId")
class BreakerIdTest {

  private static final String SEG_63 = "a".repeat(63);
  private static final String SEG_64 = "a".repeat(64);

  @Nested
  @DisplayName("parses valid ids")
  class Valid {

    @Test
    @DisplayName("caller:dependency has no scope")
    void twoSegments() {
      // when
      BreakerId id = BreakerId.parse("checkout:payments");

      // then
      assertThat(id.caller()).isEqualTo("checkout");
      assertThat(id.dependency()).isEqualTo("payments");
      assertThat(id.scope()).isEmpty();
    }

    @Test
    @DisplayName("caller:dependency:scope carries the scope")
    void threeSegments() {
      BreakerId id = BreakerId.parse("checkout:payments:authorize");

      assertThat(id.caller()).isEqualTo("checkout");
      assertThat(id.dependency()).isEqualTo("payments");
      assertThat(id.scope()).contains("authorize");
    }

    @ParameterizedTest
    @ValueSource(
        strings = {"a:b", "0:9", "a.b:c-d", "a_b:c.d:e_f-g", "svc1:db-2:v1.get", "a-:b.:c_"})
    @DisplayName("digits, dots, dashes and underscores after the first character")
    void allowedCharacters(String text) {
      assertThat(BreakerId.isValid(text)).isTrue();
      assertThat(BreakerId.parse(text).toString()).isEqualTo(text);
    }

    @Test
    @DisplayName("a 63-character segment is the longest accepted")
    void longestSegment() {
      String text = SEG_63 + ":" + SEG_63 + ":" + SEG_63;

      BreakerId id = BreakerId.parse(text);

      assertThat(id.caller()).hasSize(63);
      assertThat(id.scope()).contains(SEG_63);
    }

    @Test
    @DisplayName("of(caller, dependency, scope) equals the parsed id")
    void ofEqualsParse() {
      assertThat(BreakerId.of("a", "b", null)).isEqualTo(BreakerId.parse("a:b"));
      assertThat(BreakerId.of("a", "b", "c")).isEqualTo(BreakerId.parse("a:b:c"));
    }

    @Test
    @DisplayName("of() validates its segments like parse()")
    void ofValidates() {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> BreakerId.of("a", "B", null))
          .withMessageContaining("dependency segment 'B'");
    }
  }

  @Nested
  @DisplayName("rejects invalid ids naming the segment")
  class Invalid {

    @Test
    @DisplayName("empty and null")
    void empty() {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> BreakerId.parse(""))
          .withMessage("breaker id must be caller:dependency[:scope] but was empty");
      assertThatIllegalArgumentException()
          .isThrownBy(() -> BreakerId.parse(null))
          .withMessage("breaker id must be caller:dependency[:scope] but was empty");
      assertThat(BreakerId.isValid("")).isFalse();
    }

    @Test
    @DisplayName("one segment")
    void oneSegment() {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> BreakerId.parse("payments"))
          .withMessage(
              "breaker id must be caller:dependency[:scope] (2 or 3 segments) but was"
                  + " 'payments' (1 segment)");
    }

    @Test
    @DisplayName("four segments")
    void fourSegments() {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> BreakerId.parse("a:b:c:d"))
          .withMessage(
              "breaker id must be caller:dependency[:scope] (2 or 3 segments) but was"
                  + " 'a:b:c:d' (4 segments)");
    }

    @Test
    @DisplayName("uppercase letters")
    void uppercase() {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> BreakerId.parse("checkout:Payments"))
          .withMessage(
              "breaker id 'checkout:Payments': dependency segment 'Payments' must match"
                  + " [a-z0-9][a-z0-9._-]{0,62}");
    }

    @Test
    @DisplayName("spaces")
    void spaces() {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> BreakerId.parse("check out:payments"))
          .withMessage(
              "breaker id 'check out:payments': caller segment 'check out' must match"
                  + " [a-z0-9][a-z0-9._-]{0,62}");
    }

    @ParameterizedTest(name = "scope ''{0}''")
    @ValueSource(strings = {"x{y", "x}y", "x*", "{x}", "-x", ".x", "_x", "x/y", "x\ny", "é"})
    @DisplayName("hash-tag braces, glob star, a leading dash, dot or underscore in the scope")
    void forbiddenCharacters(String scope) {
      String text = "a:b:" + scope;

      assertThatIllegalArgumentException()
          .isThrownBy(() -> BreakerId.parse(text))
          .withMessage(
              "breaker id '"
                  + text
                  + "': scope segment '"
                  + scope
                  + "' must match [a-z0-9][a-z0-9._-]{0,62}");
      assertThat(BreakerId.isValid(text)).isFalse();
    }

    @Test
    @DisplayName("a leading dash in the caller")
    void leadingDashCaller() {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> BreakerId.parse("-a:b"))
          .withMessageContaining("caller segment '-a' must match");
    }

    @Test
    @DisplayName("a 64-character segment, with its length")
    void segmentTooLong() {
      String text = "a:" + SEG_64;

      assertThatIllegalArgumentException()
          .isThrownBy(() -> BreakerId.parse(text))
          .withMessageEndingWith(
              "dependency segment '" + SEG_64 + "' is 64 characters long (at most 63)");
    }

    @Test
    @DisplayName("a 300-character id, quoted shortened in the message")
    void veryLongId() {
      String scope = "s".repeat(300 - "a:b:".length());
      String text = "a:b:" + scope;
      assertThat(text).hasSize(300);

      assertThatIllegalArgumentException()
          .isThrownBy(() -> BreakerId.parse(text))
          .withMessage(
              "breaker id '"
                  + text.substring(0, 77)
                  + "...': scope segment '"
                  + scope.substring(0, 77)
                  + "...' is 296 characters long (at most 63)");
    }

    @Test
    @DisplayName("an empty segment between colons")
    void emptyMiddleSegment() {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> BreakerId.parse("a::b"))
          .withMessage("breaker id 'a::b': dependency segment is empty");
    }

    @Test
    @DisplayName("an empty leading or trailing segment")
    void emptyEdgeSegments() {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> BreakerId.parse(":b"))
          .withMessage("breaker id ':b': caller segment is empty");
      assertThatIllegalArgumentException()
          .isThrownBy(() -> BreakerId.parse("a:b:"))
          .withMessage("breaker id 'a:b:': scope segment is empty");
    }
  }

  @Nested
  @DisplayName("value semantics")
  class ValueSemantics {

    @ParameterizedTest
    @ValueSource(strings = {"a:b", "checkout:payments:authorize"})
    @DisplayName("toString round-trips through parse")
    void roundTrip(String text) {
      BreakerId id = BreakerId.parse(text);

      assertThat(id.toString()).isEqualTo(text);
      assertThat(BreakerId.parse(id.toString())).isEqualTo(id);
    }

    @Test
    @DisplayName("equal ids are equal and hash alike")
    void equality() {
      BreakerId one = BreakerId.parse("a:b:c");
      BreakerId two = BreakerId.of("a", "b", "c");

      assertThat(one).isEqualTo(two).hasSameHashCodeAs(two);
      assertThat(one).isNotEqualTo(BreakerId.parse("a:b"));
      assertThat(one).isNotEqualTo(BreakerId.parse("a:b:d"));
      assertThat(one).isNotEqualTo(BreakerId.parse("a:c:c"));
      assertThat(one).isNotEqualTo("a:b:c");
    }

    @Test
    @DisplayName("ordering is by the id text, consistent with equals")
    void ordering() {
      List<BreakerId> ids =
          new ArrayList<>(
              List.of(
                  BreakerId.parse("b:a"),
                  BreakerId.parse("a:b:c"),
                  BreakerId.parse("a:c"),
                  BreakerId.parse("a:b")));

      Collections.sort(ids);

      assertThat(ids).extracting(BreakerId::toString).containsExactly("a:b", "a:b:c", "a:c", "b:a");
      assertThat(BreakerId.parse("a:b").compareTo(BreakerId.of("a", "b", null))).isZero();
      assertThat(BreakerId.parse("a:b").compareTo(BreakerId.parse("a:c"))).isNegative();
      assertThat(BreakerId.parse("b:a").compareTo(BreakerId.parse("a:z"))).isPositive();
    }
  }
}
