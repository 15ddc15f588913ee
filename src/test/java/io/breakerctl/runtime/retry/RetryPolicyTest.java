package io.breakerctl.runtime.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.breakerctl.runtime.CallOutcome;
import io.breakerctl.runtime.RetryAfter;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The retry policy's validation, the budget's arithmetic and Retry-After parsing (no server). */
class RetryPolicyTest {

  @Nested
  @DisplayName("RetryPolicy")
  class Policy {
    @Test
    @DisplayName("setters quote the bad value")
    void validation() {
      assertThatThrownBy(() -> RetryPolicy.builder().maxAttempts(0))
          .hasMessage("maxAttempts must be 1..10 but was 0");
      assertThatThrownBy(() -> RetryPolicy.builder().budgetRatio(1.5))
          .hasMessage("budgetRatio must be 0..1 but was 1.5");
      assertThatThrownBy(() -> RetryPolicy.builder().baseDelay(Duration.ZERO))
          .hasMessage("baseDelay must be > 0 but was PT0S");
      assertThatThrownBy(() -> RetryPolicy.builder().retryOn(Set.of(CallOutcome.IGNORED)))
          .hasMessage("retryOn takes failure, timeout, rate_limited but was ignored");
      assertThatThrownBy(
              () ->
                  RetryPolicy.builder()
                      .baseDelay(Duration.ofSeconds(3))
                      .maxDelay(Duration.ofSeconds(1))
                      .build())
          .hasMessageContaining("maxDelay must be >= baseDelay");
      assertThat(RetryPolicy.builder().retryOn(Set.of()).build().retryOn()).isEmpty();
    }
  }

  @Nested
  @DisplayName("RetryBudget")
  class Budget {
    @Test
    @DisplayName("retries at most ratio x first attempts in the window")
    void ratio() {
      RetryBudget b = new RetryBudget(0.2, Duration.ofMinutes(1).toNanos());
      assertThat(b.tryRetry()).as("no first attempt yet").isFalse();
      for (int i = 0; i < 4; i++) {
        b.first();
      }
      assertThat(b.tryRetry()).as("1 > 0.2 x 4").isFalse();
      b.first();
      assertThat(b.tryRetry()).as("1 <= 0.2 x 5").isTrue();
      assertThat(b.tryRetry()).as("2 > 0.2 x 5").isFalse();
      for (int i = 0; i < 5; i++) {
        b.first();
      }
      assertThat(b.tryRetry()).as("2 <= 0.2 x 10").isTrue();
    }

    @Test
    @DisplayName("while degraded, only the first attempts made since the degradation earn retries")
    void degraded() {
      RetryBudget b = new RetryBudget(0.2, Duration.ofMinutes(1).toNanos());
      for (int i = 0; i < 1000; i++) {
        b.first(); // healthy traffic before the outage
      }
      assertThat(b.tryRetry(false)).as("healthy: 1 <= 0.2 x 1000").isTrue();
      assertThat(b.tryRetry(true))
          .as("the episode's first ask: the healthy firsts no longer count")
          .isFalse();
      for (int i = 0; i < 4; i++) {
        b.first();
      }
      assertThat(b.tryRetry(true)).as("1 > 0.2 x 4 degraded firsts").isFalse();
      b.first();
      assertThat(b.tryRetry(true)).as("1 <= 0.2 x 5").isTrue();
      assertThat(b.tryRetry(true)).as("2 > 0.2 x 5: the window is not emptied again").isFalse();
      for (int i = 0; i < 5; i++) {
        b.first();
      }
      assertThat(b.tryRetry(false)).as("recovered: the window keeps what it counted").isTrue();
      assertThat(b.tryRetry(false)).as("3 > 0.2 x 10").isFalse();
      assertThat(b.tryRetry(true)).as("a new episode empties it again").isFalse();
    }

    @Test
    @DisplayName("a ratio of 0 never retries")
    void zero() {
      RetryBudget b = new RetryBudget(0, Duration.ofMinutes(1).toNanos());
      for (int i = 0; i < 100; i++) {
        b.first();
      }
      assertThat(b.tryRetry()).isFalse();
    }
  }

  @Nested
  @DisplayName("Retry-After")
  class RetryAfterValues {
    private final Instant now = Instant.parse("2026-12-01T12:00:00Z");

    @Test
    @DisplayName("delta-seconds, an HTTP-date, a past date; malformed values say nothing")
    void parse() {
      assertThat(RetryAfter.parse("120", now)).contains(Duration.ofSeconds(120));
      assertThat(RetryAfter.parse(" 1 ", now)).contains(Duration.ofSeconds(1));
      assertThat(RetryAfter.parse("Tue, 01 Dec 2026 12:00:30 GMT", now))
          .contains(Duration.ofSeconds(30));
      assertThat(RetryAfter.parse("Tue, 01 Dec 2026 11:00:00 GMT", now)).contains(Duration.ZERO);
      assertThat(RetryAfter.parse("soon", now)).isEmpty();
      assertThat(RetryAfter.parse("-5", now)).isEmpty();
      assertThat(RetryAfter.parse("99999999999", now)).isEmpty();
      assertThat(RetryAfter.parse("", now)).isEmpty();
      assertThat(RetryAfter.parse(null, now)).isEmpty();
    }
  }
}
