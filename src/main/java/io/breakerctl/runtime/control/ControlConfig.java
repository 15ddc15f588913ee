package io.breakerctl.runtime.control;

import io.breakerctl.runtime.connection.ConnectionUris;
import io.breakerctl.runtime.connection.Redaction;
import java.time.Duration;
import java.util.Objects;

/**
 * How to reach the control plane (MongoDB). Immutable; build with {@link #builder()}.
 *
 * @param uri a MongoDB connection string (a user info with raw {@code / ? # @ %} or spaces is
 *     refused: percent-encode them)
 * @param database the database holding breakerctl's collections
 * @param timeout bounds server selection, connecting and every socket read (never the driver's 30 s
 *     default)
 */
public record ControlConfig(String uri, String database, Duration timeout) {

  /** Default database name. */
  public static final String DEFAULT_DATABASE = "breakerctl";

  /** Default timeout: 5 s. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

  /** Validates the configuration. */
  public ControlConfig {
    Objects.requireNonNull(uri, "uri");
    if (!uri.startsWith("mongodb://") && !uri.startsWith("mongodb+srv://")) {
      throw new IllegalArgumentException(
          "MongoDB URI must start with mongodb:// or mongodb+srv:// but was '"
              + Redaction.uri(uri)
              + "'");
    }
    String userInfo = ConnectionUris.userInfoProblem(uri);
    if (userInfo != null) {
      throw new IllegalArgumentException(
          "bad MongoDB URI '" + Redaction.uri(uri) + "': " + userInfo);
    }
    if (database == null || database.isBlank() || database.matches(".*[/\\\\. \"$].*")) {
      throw new IllegalArgumentException(
          "database must be a name without / \\ . space \" $ but was '" + database + "'");
    }
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be > 0 but was " + timeout);
    }
  }

  /** A builder with defaults: mongodb://127.0.0.1:27017, database breakerctl, 5 s. */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link ControlConfig}. */
  public static final class Builder {
    private String uri = "mongodb://127.0.0.1:27017";
    private String database = DEFAULT_DATABASE;
    private Duration timeout = DEFAULT_TIMEOUT;

    private Builder() {}

    /** The connection string. */
    public Builder uri(String uri) {
      this.uri = uri;
      return this;
    }

    /** The database name. */
    public Builder database(String database) {
      this.database = database;
      return this;
    }

    /** Server selection, connect and read timeout. */
    public Builder timeout(Duration timeout) {
      this.timeout = timeout;
      return this;
    }

    /** Builds the configuration. */
    public ControlConfig build() {
      return new ControlConfig(uri, database, timeout);
    }
  }
}
