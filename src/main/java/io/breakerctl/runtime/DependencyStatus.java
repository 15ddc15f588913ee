package io.breakerctl.runtime;

import java.time.Duration;
import java.util.Optional;

/**
 * A result or an exception that carries the dependency's status code, HTTP-style, so the default
 * {@link FailureClassifier} can tell a dependency failure (5xx) from a caller error (4xx) and a
 * rate-limit answer (429). {@link java.net.http.HttpResponse} is understood without implementing
 * this.
 */
public interface DependencyStatus {

  /** The status code (HTTP semantics: 429 rate limited, 4xx caller error, 5xx failure). */
  int statusCode();

  /** How long the dependency asked the caller to wait before retrying, when it said. */
  default Optional<Duration> retryAfter() {
    return Optional.empty();
  }
}
