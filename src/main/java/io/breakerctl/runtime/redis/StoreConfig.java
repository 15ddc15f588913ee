package io.breakerctl.runtime.redis;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How to reach the shared store. Immutable; build with {@link #builder()}.
 *
 * @param uris one URI for a standalone server (a cluster node is detected and the cluster used), or
 *     several seed nodes of a Redis Cluster
 * @param timeout bounds connecting and every command (the runtime uses 50 ms, the CLI 5 s)
 * @param prefix the key prefix ({@link BreakerKeys#DEFAULT_PREFIX} by default)
 * @param idleTtl how long an unused breaker's keys live (7 days by default)
 * @param commandTimeout bounds every command once connected (by default {@code timeout}); the
 *     runtime connects within {@code timeout} and then bounds each command by 50 ms
 */
public record StoreConfig(
    List<String> uris, Duration timeout, String prefix, Duration idleTtl, Duration commandTimeout) {

  /** Default command and connect timeout: 5 s. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

  /** Default idle expiry of a breaker's keys: 7 days. */
  public static final Duration DEFAULT_IDLE_TTL = Duration.ofDays(7);

  /** Validates the configuration. */
  public StoreConfig {
    uris = List.copyOf(Objects.requireNonNull(uris, "uris"));
    if (uris.isEmpty()) {
      throw new IllegalArgumentException("at least one Redis URI is required");
    }
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be > 0 but was " + timeout);
    }
    BreakerKeys.withPrefix(prefix);
    if (idleTtl.toMillis() < 1000) {
      throw new IllegalArgumentException("idleTtl must be >= 1s but was " + idleTtl);
    }
    commandTimeout = commandTimeout == null ? timeout : commandTimeout;
    if (commandTimeout.isNegative() || commandTimeout.isZero()) {
      throw new IllegalArgumentException("commandTimeout must be > 0 but was " + commandTimeout);
    }
  }

  /** A builder with defaults: redis://127.0.0.1:6379, 5 s, prefix cb, 7 days. */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link StoreConfig}. */
  public static final class Builder {
    private List<String> uris = List.of("redis://127.0.0.1:6379");
    private Duration timeout = DEFAULT_TIMEOUT;
    private String prefix = BreakerKeys.DEFAULT_PREFIX;
    private Duration idleTtl = DEFAULT_IDLE_TTL;
    private Duration commandTimeout;

    private Builder() {}

    /** Bound of every command once connected (default: the timeout). */
    public Builder commandTimeout(Duration commandTimeout) {
      this.commandTimeout = commandTimeout;
      return this;
    }

    /** One URI, or several comma-separated seed nodes. */
    public Builder uri(String uri) {
      this.uris = List.of(uri.split(","));
      return this;
    }

    /** Seed node URIs. */
    public Builder uris(List<String> uris) {
      this.uris = uris;
      return this;
    }

    /** Connect and command timeout. */
    public Builder timeout(Duration timeout) {
      this.timeout = timeout;
      return this;
    }

    /** Key prefix. */
    public Builder prefix(String prefix) {
      this.prefix = prefix;
      return this;
    }

    /** Idle expiry of unused keys. */
    public Builder idleTtl(Duration idleTtl) {
      this.idleTtl = idleTtl;
      return this;
    }

    /** Builds the configuration. */
    public StoreConfig build() {
      return new StoreConfig(uris, timeout, prefix, idleTtl, commandTimeout);
    }
  }
}
