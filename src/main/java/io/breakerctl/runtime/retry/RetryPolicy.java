package io.breakerctl.runtime.retry;

import io.breakerctl.runtime.CallOutcome;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * How a call is retried under its breaker: capped attempts, exponential backoff with full jitter (a
 * wait drawn uniformly from 0 to {@code min(maxDelay, baseDelay * 2^(retry-1))}, at least the
 * dependency's {@code Retry-After}), an optional timeout per attempt, and a retry budget (retries
 * at most {@code budgetRatio} times the first attempts over {@code budgetWindow}, on this node).
 * Immutable; build with {@link #builder()}.
 *
 * @param maxAttempts attempts per call, the first included (1 to 10; default 3)
 * @param baseDelay the first retry's backoff cap (default 50 ms)
 * @param maxDelay the cap of every backoff (default 2 s)
 * @param attemptTimeout how long one attempt may run before it is abandoned (a failure), when set
 * @param budgetRatio retries allowed per first attempt over the window (0 to 1; default 0.2)
 * @param budgetWindow the retry budget's window (default 10 s)
 * @param retryOn the outcomes that are retried (default failure, timeout, rate limited)
 */
public record RetryPolicy(
    int maxAttempts,
    Duration baseDelay,
    Duration maxDelay,
    Optional<Duration> attemptTimeout,
    double budgetRatio,
    Duration budgetWindow,
    Set<CallOutcome> retryOn) {

  /** The defaults: 3 attempts, 50 ms to 2 s backoff, budget 0.2 over 10 s. */
  public static final RetryPolicy DEFAULT = builder().build();

  /** Copies the set of retried outcomes. */
  public RetryPolicy {
    retryOn = Set.copyOf(retryOn);
  }

  /** A builder with the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link RetryPolicy}; setters validate and quote the bad value. */
  public static final class Builder {
    private int maxAttempts = 3;
    private Duration baseDelay = Duration.ofMillis(50);
    private Duration maxDelay = Duration.ofSeconds(2);
    private Duration attemptTimeout;
    private double budgetRatio = 0.2;
    private Duration budgetWindow = Duration.ofSeconds(10);
    private Set<CallOutcome> retryOn =
        EnumSet.of(CallOutcome.FAILURE, CallOutcome.TIMEOUT, CallOutcome.RATE_LIMITED);

    private Builder() {}

    /** Attempts per call, the first included (1 to 10). */
    public Builder maxAttempts(int value) {
      if (value < 1 || value > 10) {
        throw new IllegalArgumentException("maxAttempts must be 1..10 but was " + value);
      }
      this.maxAttempts = value;
      return this;
    }

    /** The first retry's backoff cap (> 0). */
    public Builder baseDelay(Duration value) {
      this.baseDelay = positive("baseDelay", value);
      return this;
    }

    /** The cap of every backoff (> 0). */
    public Builder maxDelay(Duration value) {
      this.maxDelay = positive("maxDelay", value);
      return this;
    }

    /** How long one attempt may run before it is abandoned and counted as a failure (> 0). */
    public Builder attemptTimeout(Duration value) {
      this.attemptTimeout = positive("attemptTimeout", value);
      return this;
    }

    /** Retries allowed per first attempt over the window (0 to 1; 0: never retry). */
    public Builder budgetRatio(double value) {
      if (!(value >= 0 && value <= 1)) {
        throw new IllegalArgumentException("budgetRatio must be 0..1 but was " + value);
      }
      this.budgetRatio = value;
      return this;
    }

    /** The retry budget's window (> 0). */
    public Builder budgetWindow(Duration value) {
      this.budgetWindow = positive("budgetWindow", value);
      return this;
    }

    /** The outcomes retried (of failure, timeout, rate limited). */
    public Builder retryOn(Set<CallOutcome> outcomes) {
      for (CallOutcome o : outcomes) {
        if (o != CallOutcome.FAILURE && o != CallOutcome.TIMEOUT && o != CallOutcome.RATE_LIMITED) {
          throw new IllegalArgumentException(
              "retryOn takes failure, timeout, rate_limited but was " + o.code());
        }
      }
      this.retryOn = EnumSet.noneOf(CallOutcome.class);
      this.retryOn.addAll(outcomes);
      return this;
    }

    /** The policy. */
    public RetryPolicy build() {
      if (maxDelay.compareTo(baseDelay) < 0) {
        throw new IllegalArgumentException(
            "maxDelay must be >= baseDelay (" + baseDelay + ") but was " + maxDelay);
      }
      return new RetryPolicy(
          maxAttempts,
          baseDelay,
          maxDelay,
          Optional.ofNullable(attemptTimeout),
          budgetRatio,
          budgetWindow,
          retryOn);
    }

    private static Duration positive(String name, Duration d) {
      Objects.requireNonNull(d, name);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(name + " must be > 0 but was " + d);
      }
      return d;
    }
  }
}
