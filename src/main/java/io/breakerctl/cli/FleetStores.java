package io.breakerctl.cli;

import io.breakerctl.runtime.connection.Redaction;
import io.breakerctl.runtime.store.FleetScan;
import io.breakerctl.runtime.store.FleetStore;
import io.breakerctl.runtime.store.KeyPrefix;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The one way the CLI and the console reach a store: connects the {@link FleetStore} (whose {@link
 * FleetStore#fleet} passes are {@link FleetScan}s) that connection settings name, and says which
 * identity those settings authenticate as. The composition root implements it over the Redis
 * adapter ({@code io.breakerctl.RedisFleetStores}) and hands it to the commands through {@link
 * CliContext#stores()}; nothing in {@code cli} or {@code console} names the adapter.
 */
public interface FleetStores {

  /**
   * Where and how to connect.
   *
   * @param uri the Redis URI, or comma-separated seed nodes
   * @param timeout bounds the connect and every command
   * @param prefix the key prefix
   * @param username the ACL user, or null: the URI's
   * @param password the password, or null: the URI's (never printed)
   * @param caFile the PEM file of the CA certificates trusted for {@code rediss://}, or null: the
   *     JDK's trust store
   */
  record Target(
      String uri, Duration timeout, String prefix, String username, String password, Path caFile) {

    /** The store {@code settings} name, bounded by their timeout. */
    public static Target of(Settings settings) {
      return new Target(
          settings.redis(),
          settings.timeout(),
          settings.prefix(),
          settings.redisUser(),
          settings.redisPassword(),
          settings.redisCaFile());
    }

    /** {@code uri} under the default prefix, with the URI's credentials and the JDK's CAs. */
    public static Target of(String uri, Duration timeout) {
      return new Target(uri, timeout, KeyPrefix.DEFAULT, null, null, null);
    }

    /** This target bounded by {@code timeout} instead. */
    public Target withTimeout(Duration timeout) {
      return new Target(uri, timeout, prefix, username, password, caFile);
    }

    /** Never prints the password (nor one in the URI). */
    @Override
    public String toString() {
      return "Target[uri="
          + Redaction.uri(uri)
          + ", timeout="
          + timeout
          + ", prefix="
          + prefix
          + ", username="
          + username
          + ", password="
          + (password == null ? null : "***")
          + ", caFile="
          + caFile
          + "]";
    }
  }

  /**
   * Connects the store {@code target} names; the caller closes it.
   *
   * @throws io.breakerctl.runtime.store.StoreUnavailableException when no server answers within the
   *     timeout ({@link io.breakerctl.runtime.store.StoreTlsException} when a TLS connection fails
   *     for a named reason)
   * @throws io.breakerctl.runtime.store.StorePermissionException when the credentials are refused
   * @throws IllegalArgumentException for a bad URI or CA file
   */
  FleetStore connect(Target target);

  /**
   * The ACL user a connection to {@code uri} with {@code username} and {@code password} (each null
   * when not given) authenticates as: {@code username}, else the first URI's user, else {@code
   * default} when a password alone is given; empty when no credentials are given. Reads the
   * settings only, never the network.
   */
  Optional<String> authenticatedUser(String uri, String username, String password);
}
