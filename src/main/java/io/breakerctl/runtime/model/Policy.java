package io.breakerctl.runtime.model;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * The tunables of one breaker. Immutable; build with {@link #builder()}. Every field has a
 * documented default, so {@code Policy.DEFAULT} is a working policy.
 *
 * <p>Durations are whole milliseconds; the policy document spells them in seconds (fractions
 * allowed) except {@code slowCallMillis}. Setters validate at once and name the field and the bad
 * value, e.g. {@code failureThreshold must be >= 1 but was 0}.
 */
public final class Policy {

  /** Default {@code failureThreshold}: 5 failures in the window trip the breaker. */
  public static final int DEFAULT_FAILURE_THRESHOLD = 5;

  /** Default {@code windowSeconds}: a 60 s sliding window (10 buckets of 6 s). */
  public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(60);

  /** Default {@code minimumCalls} before {@code failureRateThreshold} applies. */
  public static final int DEFAULT_MINIMUM_CALLS = 20;

  /** Default {@code openSeconds}: the first open window lasts 30 s. */
  public static final Duration DEFAULT_OPEN = Duration.ofSeconds(30);

  /** Default {@code maxOpenSeconds}: repeated failed probes back off up to 5 min. */
  public static final Duration DEFAULT_MAX_OPEN = Duration.ofMinutes(5);

  /** Default {@code halfOpenPermits}: one probe fleet-wide per half-open window. */
  public static final int DEFAULT_HALF_OPEN_PERMITS = 1;

  /** Default {@code probeLeaseSeconds}: a probe that has not reported after 10 s frees its slot. */
  public static final Duration DEFAULT_PROBE_LEASE = Duration.ofSeconds(10);

  /**
   * Default {@code maxProbeSeconds}: a probe still running after 30 s (longer than most clients'
   * timeouts) counts as failed and the breaker reopens; 0 sets no bound.
   */
  public static final Duration DEFAULT_MAX_PROBE = Duration.ofSeconds(30);

  /** Upper bound of every duration field: one day (maxOpenSeconds: seven days). */
  public static final Duration MAX_DURATION = Duration.ofDays(1);

  /** Number of buckets the sliding window is divided into (its resolution). */
  public static final int WINDOW_BUCKETS = 10;

  /** The syntax of a {@code staticDefault} name (a breaker id segment's). */
  public static final java.util.regex.Pattern NAME =
      java.util.regex.Pattern.compile("[a-z0-9][a-z0-9._-]{0,62}");

  /** The policy with every field at its default. */
  public static final Policy DEFAULT = builder().build();

  private final int failureThreshold;
  private final Duration window;
  private final Double failureRateThreshold;
  private final int minimumCalls;
  private final Long slowCallMillis;
  private final Duration open;
  private final Duration maxOpen;
  private final int halfOpenPermits;
  private final Duration probeLease;
  private final Duration maxProbe;
  private final StoreFailureMode storeFailureMode;
  private final FallbackPolicy fallbackPolicy;
  private final String staticDefault;
  private final boolean enabled;
  private final Criticality criticality;
  private final RateLimitAction rateLimited;
  private int hash;

  private Policy(Builder b) {
    this.failureThreshold = b.failureThreshold;
    this.window = b.window;
    this.failureRateThreshold = b.failureRateThreshold;
    this.minimumCalls = b.minimumCalls;
    this.slowCallMillis = b.slowCallMillis;
    this.open = b.open;
    this.maxOpen = b.maxOpen;
    this.halfOpenPermits = b.halfOpenPermits;
    this.probeLease = b.probeLease;
    this.maxProbe = b.maxProbe;
    this.storeFailureMode = b.storeFailureMode;
    this.fallbackPolicy = b.fallbackPolicy;
    this.staticDefault = b.staticDefault;
    this.enabled = b.enabled;
    this.criticality = b.criticality;
    this.rateLimited = b.rateLimited;
  }

  /** A builder with every field at its default. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from this policy's values. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.failureThreshold = failureThreshold;
    b.window = window;
    b.failureRateThreshold = failureRateThreshold;
    b.minimumCalls = minimumCalls;
    b.slowCallMillis = slowCallMillis;
    b.open = open;
    b.maxOpen = maxOpen;
    b.halfOpenPermits = halfOpenPermits;
    b.probeLease = probeLease;
    b.maxProbe = maxProbe;
    b.storeFailureMode = storeFailureMode;
    b.fallbackPolicy = fallbackPolicy;
    b.staticDefault = staticDefault;
    b.enabled = enabled;
    b.criticality = criticality;
    b.rateLimited = rateLimited;
    return b;
  }

  /** Failures in the sliding window that trip the breaker (default 5). */
  public int failureThreshold() {
    return failureThreshold;
  }

  /** Length of the sliding failure window (default 60 s). */
  public Duration window() {
    return window;
  }

  /** Failure rate in percent that trips the breaker, if configured (default: off). */
  public OptionalDouble failureRateThreshold() {
    return failureRateThreshold == null
        ? OptionalDouble.empty()
        : OptionalDouble.of(failureRateThreshold);
  }

  /** Calls the window must hold before the failure rate applies (default 20). */
  public int minimumCalls() {
    return minimumCalls;
  }

  /** Calls slower than this count as failures, if configured (default: off). */
  public OptionalInt slowCallMillis() {
    return slowCallMillis == null
        ? OptionalInt.empty()
        : OptionalInt.of(Math.toIntExact(slowCallMillis));
  }

  /** The first open window (default 30 s). */
  public Duration open() {
    return open;
  }

  /** The longest open window after repeated failed probes (default 5 min). */
  public Duration maxOpen() {
    return maxOpen;
  }

  /** Probe leases fleet-wide per half-open window, and successes needed to close (default 1). */
  public int halfOpenPermits() {
    return halfOpenPermits;
  }

  /** How long a probe lease lives before its slot returns (default 10 s). */
  public Duration probeLease() {
    return probeLease;
  }

  /**
   * How long a probe may hold its slot (default 30 s; {@link Duration#ZERO}: no bound). Its node
   * keeps the lease alive while the call runs; past this the probe counts as failed and the breaker
   * reopens with backoff, so a call that never returns cannot keep the breaker half-open.
   */
  public Duration maxProbe() {
    return maxProbe;
  }

  /** What nodes do while Redis is unreachable (default LOCAL_ONLY). */
  public StoreFailureMode storeFailureMode() {
    return storeFailureMode;
  }

  /** What a rejected call gets (default NONE). */
  public FallbackPolicy fallbackPolicy() {
    return fallbackPolicy;
  }

  /**
   * The name of the static safe default a STATIC_DEFAULT fallback serves, as registered in code
   * ({@code Fallbacks.Builder.staticDefault(name, supplier)}); empty (the default) serves the one
   * registered without a name.
   */
  public Optional<String> staticDefault() {
    return Optional.ofNullable(staticDefault);
  }

  /** False turns the breaker off: every call passes (default true). */
  public boolean enabled() {
    return enabled;
  }

  /**
   * How critical the dependency is (default {@link Criticality#NONE}): a tag on the breaker's
   * meters, never a change in behaviour.
   */
  public Criticality criticality() {
    return criticality;
  }

  /** What a rate-limit answer does (default {@link RateLimitAction#IGNORE}). */
  public RateLimitAction rateLimited() {
    return rateLimited;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof Policy p)) {
      return false;
    }
    return failureThreshold == p.failureThreshold
        && window.equals(p.window)
        && Objects.equals(failureRateThreshold, p.failureRateThreshold)
        && minimumCalls == p.minimumCalls
        && Objects.equals(slowCallMillis, p.slowCallMillis)
        && open.equals(p.open)
        && maxOpen.equals(p.maxOpen)
        && halfOpenPermits == p.halfOpenPermits
        && probeLease.equals(p.probeLease)
        && maxProbe.equals(p.maxProbe)
        && storeFailureMode == p.storeFailureMode
        && fallbackPolicy == p.fallbackPolicy
        && Objects.equals(staticDefault, p.staticDefault)
        && enabled == p.enabled
        && criticality == p.criticality
        && rateLimited == p.rateLimited;
  }

  @Override
  public int hashCode() {
    int h = hash;
    if (h == 0) {
      h =
          Objects.hash(
              failureThreshold,
              window,
              failureRateThreshold,
              minimumCalls,
              slowCallMillis,
              open,
              maxOpen,
              halfOpenPermits,
              probeLease,
              maxProbe,
              storeFailureMode,
              fallbackPolicy,
              staticDefault,
              enabled,
              criticality,
              rateLimited);
      hash = h;
    }
    return h;
  }

  @Override
  public String toString() {
    return "Policy{failureThreshold="
        + failureThreshold
        + ", windowSeconds="
        + seconds(window)
        + (failureRateThreshold == null
            ? ""
            : ", failureRateThreshold=" + failureRateThreshold + ", minimumCalls=" + minimumCalls)
        + (slowCallMillis == null ? "" : ", slowCallMillis=" + slowCallMillis)
        + ", openSeconds="
        + seconds(open)
        + ", maxOpenSeconds="
        + seconds(maxOpen)
        + ", halfOpenPermits="
        + halfOpenPermits
        + ", probeLeaseSeconds="
        + seconds(probeLease)
        + ", maxProbeSeconds="
        + seconds(maxProbe)
        + ", storeFailureMode="
        + storeFailureMode
        + ", fallbackPolicy="
        + fallbackPolicy
        + (staticDefault == null ? "" : ", staticDefault=" + staticDefault)
        + ", enabled="
        + enabled
        + (criticality == Criticality.NONE ? "" : ", criticality=" + criticality)
        + (rateLimited == RateLimitAction.IGNORE ? "" : ", rateLimited=" + rateLimited)
        + "}";
  }

  /** Formats a duration as seconds the way the policy document spells it ("0.5", "30"). */
  public static String seconds(Duration d) {
    long ms = d.toMillis();
    if (ms % 1000 == 0) {
      return Long.toString(ms / 1000);
    }
    return java.math.BigDecimal.valueOf(ms, 3).stripTrailingZeros().toPlainString();
  }

  /** Builds a {@link Policy}; every setter validates its argument. */
  public static final class Builder {
    private int failureThreshold = DEFAULT_FAILURE_THRESHOLD;
    private Duration window = DEFAULT_WINDOW;
    private Double failureRateThreshold;
    private int minimumCalls = DEFAULT_MINIMUM_CALLS;
    private Long slowCallMillis;
    private Duration open = DEFAULT_OPEN;
    private Duration maxOpen = DEFAULT_MAX_OPEN;
    private int halfOpenPermits = DEFAULT_HALF_OPEN_PERMITS;
    private Duration probeLease = DEFAULT_PROBE_LEASE;
    private Duration maxProbe = DEFAULT_MAX_PROBE;
    private StoreFailureMode storeFailureMode = StoreFailureMode.LOCAL_ONLY;
    private FallbackPolicy fallbackPolicy = FallbackPolicy.NONE;
    private String staticDefault;
    private boolean enabled = true;
    private Criticality criticality = Criticality.NONE;
    private RateLimitAction rateLimited = RateLimitAction.IGNORE;

    private Builder() {}

    /** Failures in the window that trip the breaker; 1 to 1,000,000. */
    public Builder failureThreshold(int value) {
      range("failureThreshold", value, 1, 1_000_000);
      this.failureThreshold = value;
      return this;
    }

    /** Sliding window length; 0.01 s to one day, whole milliseconds. */
    public Builder window(Duration value) {
      this.window = duration("windowSeconds", value, Duration.ofMillis(10), MAX_DURATION);
      return this;
    }

    /** Failure rate (percent, above 0 and at most 100) that trips; null turns it off. */
    public Builder failureRateThreshold(Double percent) {
      if (percent != null && (!(percent > 0) || percent > 100)) {
        throw new IllegalArgumentException(
            "failureRateThreshold must be > 0 and <= 100 but was " + percent);
      }
      this.failureRateThreshold = percent;
      return this;
    }

    /** Calls needed in the window before the failure rate applies; 1 to 1,000,000. */
    public Builder minimumCalls(int value) {
      range("minimumCalls", value, 1, 1_000_000);
      this.minimumCalls = value;
      return this;
    }

    /** Calls at least this slow count as failures; 1 to 3,600,000 ms; null turns it off. */
    public Builder slowCallMillis(Integer value) {
      if (value != null) {
        range("slowCallMillis", value, 1, 3_600_000);
      }
      this.slowCallMillis = value == null ? null : value.longValue();
      return this;
    }

    /** The first open window; 0.001 s to one day. */
    public Builder open(Duration value) {
      this.open = duration("openSeconds", value, Duration.ofMillis(1), MAX_DURATION);
      return this;
    }

    /** The longest open window; at least {@code openSeconds}, at most seven days. */
    public Builder maxOpen(Duration value) {
      this.maxOpen = duration("maxOpenSeconds", value, Duration.ofMillis(1), Duration.ofDays(7));
      return this;
    }

    /** Probes fleet-wide per half-open window; 1 to 1,000. */
    public Builder halfOpenPermits(int value) {
      range("halfOpenPermits", value, 1, 1000);
      this.halfOpenPermits = value;
      return this;
    }

    /** Lifetime of a probe lease; 0.001 s to one hour. */
    public Builder probeLease(Duration value) {
      this.probeLease =
          duration("probeLeaseSeconds", value, Duration.ofMillis(1), Duration.ofHours(1));
      return this;
    }

    /** The longest a probe may hold its slot; 0 (no bound) or 0.001 s to one day. */
    public Builder maxProbe(Duration value) {
      this.maxProbe =
          value != null && value.isZero()
              ? Duration.ZERO
              : duration("maxProbeSeconds", value, Duration.ofMillis(1), MAX_DURATION);
      return this;
    }

    /** Behaviour while Redis is unreachable. */
    public Builder storeFailureMode(StoreFailureMode value) {
      this.storeFailureMode = Objects.requireNonNull(value, "storeFailureMode");
      return this;
    }

    /** What a rejected call gets. */
    public Builder fallbackPolicy(FallbackPolicy value) {
      this.fallbackPolicy = Objects.requireNonNull(value, "fallbackPolicy");
      return this;
    }

    /**
     * The static safe default a STATIC_DEFAULT fallback serves, by the name code registers it
     * under; {@code [a-z0-9][a-z0-9._-]{0,62}}; null: the one registered without a name.
     */
    public Builder staticDefault(String name) {
      if (name != null && !NAME.matcher(name).matches()) {
        throw new IllegalArgumentException(
            "staticDefault must be a name matching [a-z0-9][a-z0-9._-]{0,62} but was \""
                + name
                + "\"");
      }
      this.staticDefault = name;
      return this;
    }

    /** False turns the breaker off. */
    public Builder enabled(boolean value) {
      this.enabled = value;
      return this;
    }

    /** How critical the dependency is (a meter tag). */
    public Builder criticality(Criticality value) {
      this.criticality = Objects.requireNonNull(value, "criticality");
      return this;
    }

    /** What a rate-limit answer does. */
    public Builder rateLimited(RateLimitAction value) {
      this.rateLimited = Objects.requireNonNull(value, "rateLimited");
      return this;
    }

    /**
     * Builds the policy.
     *
     * @throws IllegalArgumentException when fields contradict each other (maxOpenSeconds below
     *     openSeconds)
     */
    public Policy build() {
      if (maxOpen.compareTo(open) < 0) {
        throw new IllegalArgumentException(
            "maxOpenSeconds must be >= openSeconds ("
                + seconds(open)
                + ") but was "
                + seconds(maxOpen));
      }
      return new Policy(this);
    }

    private static void range(String field, long value, long min, long max) {
      if (value < min) {
        throw new IllegalArgumentException(field + " must be >= " + min + " but was " + value);
      }
      if (value > max) {
        throw new IllegalArgumentException(field + " must be <= " + max + " but was " + value);
      }
    }

    private static Duration duration(String field, Duration value, Duration min, Duration max) {
      Objects.requireNonNull(value, field);
      if (value.compareTo(min) < 0) {
        throw new IllegalArgumentException(
            field + " must be >= " + seconds(min) + " but was " + secondsOf(value));
      }
      if (value.compareTo(max) > 0) {
        throw new IllegalArgumentException(
            field + " must be <= " + seconds(max) + " but was " + secondsOf(value));
      }
      if (value.toNanos() % 1_000_000 != 0) {
        throw new IllegalArgumentException(
            field + " must be a whole number of milliseconds but was " + secondsOf(value));
      }
      return value;
    }

    private static String secondsOf(Duration value) {
      return value.isNegative() || value.toNanos() % 1_000_000 != 0
          ? java.math.BigDecimal.valueOf(value.toNanos(), 9).stripTrailingZeros().toPlainString()
          : seconds(value);
    }
  }
}
