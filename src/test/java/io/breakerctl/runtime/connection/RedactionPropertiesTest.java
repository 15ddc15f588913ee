package io.breakerctl.runtime.connection;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Passwords drawn from the letters X, Y, Z and every character that ends a URI part ({@code : / , #
 * ? @ %} and a space), in one URI, a list of seeds or a message: no password letter ever survives
 * the redaction (nothing else in the texts holds an X, Y or Z).
 */
class RedactionPropertiesTest {

  @Property(tries = 500)
  void noPasswordLetterSurvives(@ForAll("texts") String text) {
    assertThat(Redaction.uri(text)).doesNotContain("X", "Y", "Z");
    assertThat(Redaction.hasSecret(text)).isTrue();
  }

  @Provide
  Arbitrary<String> texts() {
    // user:password, or a password alone (without ':', else its start is a user name)
    Arbitrary<String> userInfo =
        Arbitraries.oneOf(
            Combinators.combine(Arbitraries.of("viewer:", ":"), password(":"))
                .as((user, pw) -> user + pw),
            password(""));
    Arbitrary<String> uri =
        Combinators.combine(
                Arbitraries.of("redis://", "rediss://", "mongodb://", "mongodb+srv://"),
                userInfo,
                Arbitraries.of("h1:6379", "127.0.0.1:1", "m1,m2/db?authSource=admin", "h"))
            .as((scheme, info, host) -> scheme + info + "@" + host);
    return Combinators.combine(
            uri.list().ofMinSize(1).ofMaxSize(3),
            Arbitraries.of(", ", ","),
            Arbitraries.of("", "connect to '", "error: bad URI "),
            Arbitraries.of("", "': refused", " (Unable to connect)"))
        .as((uris, sep, before, after) -> before + String.join(sep, uris) + after);
  }

  private static Arbitrary<String> password(String colon) {
    return Arbitraries.strings().withChars("XYZ/,#?@% " + colon).ofMinLength(1).ofMaxLength(12);
  }
}
