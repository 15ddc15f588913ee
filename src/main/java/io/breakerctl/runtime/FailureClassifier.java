package io.breakerctl.runtime;

import io.breakerctl.runtime.model.BackoffHint;
import java.io.InterruptedIOException;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Decides what an exception or a result counts as for a breaker, as Resilience4j's {@code
 * recordExceptions}, {@code ignoreExceptions} and {@code recordResult}. Immutable; build with
 * {@link #builder()}, set on a breaker with {@link CircuitBreaker#classifier(FailureClassifier)}.
 *
 * <p>Exceptions, first rule that applies (a {@link CompletionException} or {@link
 * ExecutionException} is judged by its cause):
 *
 * <ol>
 *   <li>a {@link CancellationException}: {@link CallOutcome#IGNORED} (cancellation is not a
 *       failure);
 *   <li>an ignored type or predicate: {@code IGNORED};
 *   <li>a status of 429 ({@link DependencyStatus}): {@link CallOutcome#RATE_LIMITED};
 *   <li>a recorded type or predicate: {@link CallOutcome#FAILURE} ({@code TIMEOUT} for a timeout);
 *       when recorded types or predicates are configured, any other exception counts as a {@link
 *       CallOutcome#SUCCESS}, as in Resilience4j;
 *   <li>a status of 5xx: {@code FAILURE}; another status (4xx, caller errors): {@code IGNORED};
 *   <li>a timeout ({@link TimeoutException}, {@link InterruptedIOException} such as {@code
 *       SocketTimeoutException} and {@code HttpTimeoutException}, {@link CallTimeoutException}):
 *       {@link CallOutcome#TIMEOUT};
 *   <li>anything else (connection failures included): {@code FAILURE}.
 * </ol>
 *
 * <p>Results: a recorded result predicate that matches is a {@code FAILURE}; a {@link
 * DependencyStatus} or {@link HttpResponse} with status 429 is {@code RATE_LIMITED}, with 5xx a
 * {@code FAILURE}, with another 4xx (a caller error) {@code IGNORED}; anything else is a {@code
 * SUCCESS}. Classifying a result allocates nothing.
 *
 * <p>A failure or a rate-limit answer may carry the dependency's back-off hint ({@link
 * #backoffHint}), which backs the whole fleet off ({@link BackoffHint}).
 */
public final class FailureClassifier {

  /** The defaults: timeouts, connection failures, other errors and 5xx results count. */
  public static final FailureClassifier DEFAULT = builder().build();

  private static final int TOO_MANY_REQUESTS = 429;

  private final Class<?>[] recordTypes;
  private final Class<?>[] ignoreTypes;
  private final Predicate<Throwable> recordIf;
  private final Predicate<Throwable> ignoreIf;
  private final Predicate<Object> failingResult;
  private final Function<Object, Optional<Duration>> hintFn;
  private final boolean recordListed;

  private FailureClassifier(Builder b) {
    this.recordTypes = b.recordTypes.toArray(new Class<?>[0]);
    this.ignoreTypes = b.ignoreTypes.toArray(new Class<?>[0]);
    this.recordIf = b.recordIf;
    this.ignoreIf = b.ignoreIf;
    this.failingResult = b.failingResult;
    this.hintFn = b.hintFn;
    this.recordListed = recordTypes.length > 0 || recordIf != null;
  }

  /** A builder starting from the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** What {@code error} counts as. */
  public CallOutcome classify(Throwable error) {
    Throwable t = unwrap(error);
    if (t instanceof CancellationException) {
      return CallOutcome.IGNORED;
    }
    if (matches(ignoreTypes, t) || (ignoreIf != null && ignoreIf.test(t))) {
      return CallOutcome.IGNORED;
    }
    int status = t instanceof DependencyStatus s ? s.statusCode() : -1;
    if (status == TOO_MANY_REQUESTS) {
      return CallOutcome.RATE_LIMITED;
    }
    if (recordListed) {
      if (matches(recordTypes, t) || (recordIf != null && recordIf.test(t))) {
        return timeout(t) ? CallOutcome.TIMEOUT : CallOutcome.FAILURE;
      }
      return CallOutcome.SUCCESS;
    }
    if (status >= 0) {
      return status >= 500 ? CallOutcome.FAILURE : CallOutcome.IGNORED;
    }
    return timeout(t) ? CallOutcome.TIMEOUT : CallOutcome.FAILURE;
  }

  /** What {@code result} counts as. */
  public CallOutcome classifyResult(Object result) {
    if (failingResult != null && failingResult.test(result)) {
      return CallOutcome.FAILURE;
    }
    int status = statusOf(result);
    if (status == TOO_MANY_REQUESTS) {
      return CallOutcome.RATE_LIMITED;
    }
    if (status >= 500) {
      return CallOutcome.FAILURE;
    }
    return status >= 400 ? CallOutcome.IGNORED : CallOutcome.SUCCESS;
  }

  /**
   * The wait a rate-limit answer asked for: {@link DependencyStatus#retryAfter()}, or the {@code
   * Retry-After} header of an {@link HttpResponse} (seconds or an HTTP-date, counted from {@code
   * clock}); empty when it said nothing.
   */
  public static Optional<Duration> retryAfter(Object errorOrResult, Clock clock) {
    Object o = errorOrResult instanceof Throwable t ? unwrap(t) : errorOrResult;
    if (o instanceof DependencyStatus s) {
      return s.retryAfter();
    }
    if (o instanceof HttpResponse<?> r) {
      return r.headers()
          .firstValue("Retry-After")
          .flatMap(v -> RetryAfter.parse(v, clock.instant()));
    }
    return Optional.empty();
  }

  /**
   * The back-off hint a failure or rate-limit answer carries, first that applies: the builder's
   * {@link Builder#backoffHint} function (source CLASSIFIER); {@link DependencyStatus#retryAfter()}
   * (RETRY_AFTER); an {@link HttpResponse}'s {@code Retry-After} header, seconds or an HTTP-date
   * counted from {@code clock} (RETRY_AFTER), or its {@code grpc-retry-pushback-ms} header
   * (GRPC_PUSHBACK). A header the dependency got wrong (negative, above a day, not a number) is no
   * hint: an upstream's bad header never fails the caller's call.
   *
   * @throws IllegalArgumentException naming the value when the caller's code (the function, a
   *     {@link DependencyStatus}) gives a negative wait or one above a day
   */
  public Optional<BackoffHint> backoffHint(Object errorOrResult, Clock clock) {
    Object o = errorOrResult instanceof Throwable t ? unwrap(t) : errorOrResult;
    if (hintFn != null) {
      Optional<Duration> d = hintFn.apply(o);
      if (d != null && d.isPresent()) {
        return BackoffHint.of(d.get(), BackoffHint.Source.CLASSIFIER);
      }
    }
    if (o instanceof DependencyStatus s) {
      Optional<Duration> d = s.retryAfter();
      return d.isPresent()
          ? BackoffHint.of(d.get(), BackoffHint.Source.RETRY_AFTER)
          : Optional.empty();
    }
    if (o instanceof HttpResponse<?> r) {
      Optional<String> ra = r.headers().firstValue("Retry-After");
      if (ra.isPresent()) {
        return BackoffHint.lenient(() -> BackoffHint.retryAfter(ra.get(), clock.instant()));
      }
      return r.headers()
          .firstValue("grpc-retry-pushback-ms")
          .flatMap(v -> BackoffHint.lenient(() -> BackoffHint.grpcPushback(v)));
    }
    return Optional.empty();
  }

  private static int statusOf(Object result) {
    if (result instanceof DependencyStatus s) {
      return s.statusCode();
    }
    if (result instanceof HttpResponse<?> r) {
      return r.statusCode();
    }
    return -1;
  }

  private static boolean timeout(Throwable t) {
    return t instanceof TimeoutException
        || t instanceof InterruptedIOException
        || t instanceof CallTimeoutException;
  }

  private static boolean matches(Class<?>[] types, Throwable t) {
    for (Class<?> c : types) {
      if (c.isInstance(t)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The exception a {@link CompletionException} or {@link ExecutionException} wraps, else {@code
   * t}.
   */
  public static Throwable unwrap(Throwable t) {
    Throwable e = t;
    while ((e instanceof CompletionException || e instanceof ExecutionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  /** Builds a {@link FailureClassifier}. */
  public static final class Builder {
    private final List<Class<?>> recordTypes = new ArrayList<>();
    private final List<Class<?>> ignoreTypes = new ArrayList<>();
    private Predicate<Throwable> recordIf;
    private Predicate<Throwable> ignoreIf;
    private Predicate<Object> failingResult;
    private Function<Object, Optional<Duration>> hintFn;

    private Builder() {}

    /**
     * Exceptions of these types (and subtypes) count as failures; once any are given, exceptions
     * matching no recorded type or predicate count as successes.
     */
    @SafeVarargs
    public final Builder recordExceptions(Class<? extends Throwable>... types) {
      for (Class<? extends Throwable> c : types) {
        recordTypes.add(Objects.requireNonNull(c, "recordExceptions type"));
      }
      return this;
    }

    /** Exceptions of these types (and subtypes) count as neither success nor failure. */
    @SafeVarargs
    public final Builder ignoreExceptions(Class<? extends Throwable>... types) {
      for (Class<? extends Throwable> c : types) {
        ignoreTypes.add(Objects.requireNonNull(c, "ignoreExceptions type"));
      }
      return this;
    }

    /** Exceptions matching {@code predicate} count as failures (see {@link #recordExceptions}). */
    public Builder recordException(Predicate<Throwable> predicate) {
      Objects.requireNonNull(predicate, "recordException");
      recordIf = recordIf == null ? predicate : recordIf.or(predicate);
      return this;
    }

    /** Exceptions matching {@code predicate} count as neither success nor failure. */
    public Builder ignoreException(Predicate<Throwable> predicate) {
      Objects.requireNonNull(predicate, "ignoreException");
      ignoreIf = ignoreIf == null ? predicate : ignoreIf.or(predicate);
      return this;
    }

    /** Results matching {@code predicate} count as failures. */
    public Builder recordResult(Predicate<Object> predicate) {
      Objects.requireNonNull(predicate, "recordResult");
      failingResult = failingResult == null ? predicate : failingResult.or(predicate);
      return this;
    }

    /**
     * Where this caller's errors and results carry the dependency's back-off wait (e.g. a client's
     * own exception type, a gRPC trailer): the function gets the error (unwrapped) or the result
     * and answers the wait, or empty to let the defaults look ({@link #backoffHint}).
     */
    public Builder backoffHint(Function<Object, Optional<Duration>> function) {
      this.hintFn = Objects.requireNonNull(function, "backoffHint");
      return this;
    }

    /** The classifier. */
    public FailureClassifier build() {
      return new FailureClassifier(this);
    }
  }
}
