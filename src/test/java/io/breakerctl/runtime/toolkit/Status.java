package io.breakerctl.runtime.toolkit;

import io.breakerctl.runtime.DependencyStatus;
import java.time.Duration;
import java.util.Optional;

/** A dependency answer with an HTTP-style status (a result, or thrown as {@link Failure}). */
record Status(int statusCode, Optional<Duration> retryAfter) implements DependencyStatus {

  static Status of(int code) {
    return new Status(code, Optional.empty());
  }

  /** The same status thrown by a client. */
  static final class Failure extends RuntimeException implements DependencyStatus {
    private static final long serialVersionUID = 1L;
    private final int code;
    private final transient Optional<Duration> retryAfter;

    Failure(int code, Optional<Duration> retryAfter) {
      super("status " + code, null, false, false);
      this.code = code;
      this.retryAfter = retryAfter;
    }

    Failure(int code) {
      this(code, Optional.empty());
    }

    @Override
    public int statusCode() {
      return code;
    }

    @Override
    public Optional<Duration> retryAfter() {
      return retryAfter;
    }
  }
}
