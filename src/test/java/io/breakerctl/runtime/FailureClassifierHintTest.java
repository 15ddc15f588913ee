package io.breakerctl.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.breakerctl.runtime.model.BackoffHint;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import javax.net.ssl.SSLSession;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("the classifier finds a failure's back-off hint")
class FailureClassifierHintTest {
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-12-07T10:00:00Z"), ZoneOffset.UTC);

  /** An HTTP answer with these headers (what HttpClient hands back). */
  private record Answer(int statusCode, HttpHeaders headers) implements HttpResponse<Void> {
    static Answer of(int status, String... nameValue) {
      Map<String, List<String>> h = new java.util.HashMap<>();
      for (int i = 0; i < nameValue.length; i += 2) {
        h.put(nameValue[i], List.of(nameValue[i + 1]));
      }
      return new Answer(status, HttpHeaders.of(h, (a, b) -> true));
    }

    @Override
    public HttpRequest request() {
      return HttpRequest.newBuilder(URI.create("http://dependency/")).build();
    }

    @Override
    public Optional<HttpResponse<Void>> previousResponse() {
      return Optional.empty();
    }

    @Override
    public Void body() {
      return null;
    }

    @Override
    public Optional<SSLSession> sslSession() {
      return Optional.empty();
    }

    @Override
    public URI uri() {
      return request().uri();
    }

    @Override
    public HttpClient.Version version() {
      return HttpClient.Version.HTTP_1_1;
    }
  }

  private static Optional<BackoffHint> hint(Object o) {
    return FailureClassifier.DEFAULT.backoffHint(o, CLOCK);
  }

  @Test
  @DisplayName("Retry-After in seconds or as a date, grpc-retry-pushback-ms")
  void headers() {
    assertThat(hint(Answer.of(429, "Retry-After", "7")))
        .contains(new BackoffHint(7_000, BackoffHint.Source.RETRY_AFTER));
    assertThat(hint(Answer.of(503, "Retry-After", "Mon, 07 Dec 2026 10:00:20 GMT")))
        .contains(new BackoffHint(20_000, BackoffHint.Source.RETRY_AFTER));
    assertThat(hint(Answer.of(503, "grpc-retry-pushback-ms", "1500")))
        .contains(new BackoffHint(1_500, BackoffHint.Source.GRPC_PUSHBACK));
    assertThat(hint(Answer.of(503))).isEmpty();
    assertThat(hint("a result of another kind")).isEmpty();
  }

  @Test
  @DisplayName("an upstream's bad header is no hint, never an error of the caller's call")
  void badHeadersAreNoHint() {
    for (String v : List.of("-1", "soon", "86401", "99999999999999", "1.5")) {
      assertThat(hint(Answer.of(429, "Retry-After", v))).as(v).isEmpty();
    }
    for (String v : List.of("-1", "soon", "86400001", "1e3")) {
      assertThat(hint(Answer.of(503, "grpc-retry-pushback-ms", v))).as(v).isEmpty();
    }
  }

  @Test
  @DisplayName("the caller's own code: a DependencyStatus or the builder's function, unwrapped")
  void callersCode() {
    DependencyStatus status =
        new DependencyStatus() {
          @Override
          public int statusCode() {
            return 429;
          }

          @Override
          public Optional<Duration> retryAfter() {
            return Optional.of(Duration.ofSeconds(3));
          }
        };
    assertThat(hint(status)).contains(new BackoffHint(3_000, BackoffHint.Source.RETRY_AFTER));
    FailureClassifier own =
        FailureClassifier.builder()
            .backoffHint(
                o ->
                    o instanceof IllegalStateException e && e.getMessage().startsWith("wait ")
                        ? Optional.of(
                            Duration.ofMillis(Long.parseLong(e.getMessage().substring(5))))
                        : Optional.empty())
            .build();
    assertThat(
            own.backoffHint(new CompletionException(new IllegalStateException("wait 250")), CLOCK))
        .contains(new BackoffHint(250, BackoffHint.Source.CLASSIFIER));
    assertThat(own.backoffHint(Answer.of(429, "Retry-After", "2"), CLOCK))
        .as("the defaults when the function says nothing")
        .contains(new BackoffHint(2_000, BackoffHint.Source.RETRY_AFTER));
    assertThatThrownBy(() -> own.backoffHint(new IllegalStateException("wait -5"), CLOCK))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PT-0.005S");
  }
}
