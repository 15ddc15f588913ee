package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.connection.ConnectionUris;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How to reach the shared store. Immutable; build with {@link #builder()}.
 *
 * @param uris one URI for a standalone server (a cluster node is detected and the cluster used), a
 *     Sentinel URI ({@code redis-sentinel://host:port[,host:port]?sentinelMasterId=NAME}), or
 *     several seed nodes of a Redis Cluster; {@code rediss://} connects with TLS
 * @param timeout bounds connecting and every command (the runtime uses 50 ms, the CLI 5 s)
 * @param prefix the key prefix ({@link BreakerKeys#DEFAULT_PREFIX} by default)
 * @param idleTtl how long an unused breaker's keys live (7 days by default)
 * @param username the ACL user, or null for the URI's (or {@code default})
 * @param password the password, or null for the URI's (or none)
 * @param caFile PEM file of the CA certificates trusted for TLS, or null for the JDK's trust store
 * @param commandTimeout bounds every command once connected (by default {@code timeout}); the
 *     runtime connects within {@code timeout} and then bounds each command by 50 ms
 */
public record StoreConfig(
    List<String> uris,
    Duration timeout,
    String prefix,
    Duration idleTtl,
    String username,
    String password,
    Path caFile,
    Duration commandTimeout) {

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

  /** A configuration without credentials or a CA file (those of the URI apply). */
  public StoreConfig(List<String> uris, Duration timeout, String prefix, Duration idleTtl) {
    this(uris, timeout, prefix, idleTtl, null, null, null, null);
  }

  /** Never prints the password. */
  @Override
  public String toString() {
    return "StoreConfig[uris="
        + uris
        + ", timeout="
        + timeout
        + ", prefix="
        + prefix
        + ", idleTtl="
        + idleTtl
        + ", username="
        + username
        + ", password="
        + (password == null ? "null" : "***")
        + ", caFile="
        + caFile
        + ", commandTimeout="
        + commandTimeout
        + "]";
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
    private String username;
    private String password;
    private Path caFile;
    private Duration commandTimeout;

    private Builder() {}

    /** Bound of every command once connected (default: the timeout). */
    public Builder commandTimeout(Duration commandTimeout) {
      this.commandTimeout = commandTimeout;
      return this;
    }

    /**
     * One URI, or several comma-separated seed nodes (a {@code redis-sentinel://} URI is one URI:
     * its commas separate sentinels). The list splits only where a {@code scheme://} follows a
     * comma ({@link ConnectionUris#split}): a comma in a password stays in its URI.
     */
    public Builder uri(String uri) {
      this.uris = uri.startsWith("redis-sentinel") ? List.of(uri) : ConnectionUris.split(uri);
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

    /** ACL user name (null: the URI's). */
    public Builder username(String username) {
      this.username = username;
      return this;
    }

    /** Password (null: the URI's). */
    public Builder password(String password) {
      this.password = password;
      return this;
    }

    /** PEM file of trusted CA certificates for {@code rediss://} (null: the JDK's trust store). */
    public Builder caFile(Path caFile) {
      this.caFile = caFile;
      return this;
    }

    /** Builds the configuration. */
    public StoreConfig build() {
      return new StoreConfig(
          uris, timeout, prefix, idleTtl, username, password, caFile, commandTimeout);
    }
  }
}
