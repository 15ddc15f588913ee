package io.breakerctl.runtime.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@DisplayName("a dependency's back-off hint: parsed strictly, bad values named")
class BackoffHintTest {
  private static final Instant NOW = Instant.parse("2026-12-07T10:00:00Z");

  @Nested
  @DisplayName("Retry-After")
  class RetryAfterValues {
    @Test
    @DisplayName("delta-seconds and an HTTP-date, counted from now")
    void secondsAndDates() {
      assertThat(BackoffHint.retryAfter("7", NOW))
          .contains(new BackoffHint(7000, BackoffHint.Source.RETRY_AFTER));
      assertThat(BackoffHint.retryAfter(" 86400 ", NOW).map(BackoffHint::millis))
          .contains(86_400_000L);
      assertThat(BackoffHint.retryAfter("Mon, 07 Dec 2026 10:00:30 GMT", NOW))
          .contains(new BackoffHint(30_000, BackoffHint.Source.RETRY_AFTER));
    }

    @Test
    @DisplayName("zero and a date already past are no hint")
    void zeroIsNone() {
      assertThat(BackoffHint.retryAfter("0", NOW)).isEmpty();
      assertThat(BackoffHint.retryAfter("Mon, 07 Dec 2026 09:59:00 GMT", NOW)).isEmpty();
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(
        strings = {
          "-1",
          "86401",
          "99999999999999999999",
          "7s",
          "soon",
          "1.5",
          "Mon, 07 Dec 2026 10:00:30",
          "Tue, 08 Dec 2026 10:00:01 GMT"
        })
    @DisplayName("negative, above a day or not a number: an error naming the value")
    void badValues(String v) {
      assertThatThrownBy(() -> BackoffHint.retryAfter(v, NOW))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("Retry-After")
          .hasMessageContaining(v);
    }

    @Test
    @DisplayName("an empty value is an error too")
    void empty() {
      assertThatThrownBy(() -> BackoffHint.retryAfter(" ", NOW))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("Retry-After must not be empty");
    }
  }

  @Test
  @DisplayName("grpc-retry-pushback-ms: whole milliseconds, bad values named")
  void grpcPushback() {
    assertThat(BackoffHint.grpcPushback("1500"))
        .contains(new BackoffHint(1500, BackoffHint.Source.GRPC_PUSHBACK));
    assertThat(BackoffHint.grpcPushback("0")).isEmpty();
    for (String v : new String[] {"-5", "86400001", "1e3", "fast"}) {
      assertThatThrownBy(() -> BackoffHint.grpcPushback(v))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("grpc-retry-pushback-ms")
          .hasMessageContaining(v);
    }
  }

  @Test
  @DisplayName("a caller's value: negative or above a day is refused, naming it")
  void callerValues() {
    assertThat(BackoffHint.of(Duration.ofSeconds(3), BackoffHint.Source.CALLER))
        .contains(new BackoffHint(3000, BackoffHint.Source.CALLER));
    assertThat(BackoffHint.of(Duration.ZERO, BackoffHint.Source.CALLER)).isEmpty();
    assertThatThrownBy(() -> BackoffHint.of(Duration.ofSeconds(-3), BackoffHint.Source.CALLER))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PT-3S");
    assertThatThrownBy(() -> BackoffHint.of(Duration.ofDays(2), BackoffHint.Source.CALLER))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PT48H");
    assertThatThrownBy(() -> new BackoffHint(-1, BackoffHint.Source.CALLER))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-1 ms");
  }

  @Test
  @DisplayName("lenient: an upstream's bad header is no hint, never an error")
  void lenient() {
    assertThat(BackoffHint.lenient(() -> BackoffHint.retryAfter("soon", NOW)))
        .isEqualTo(Optional.empty());
    assertThat(BackoffHint.lenient(() -> BackoffHint.retryAfter("2", NOW)).map(BackoffHint::millis))
        .contains(2000L);
  }
}
