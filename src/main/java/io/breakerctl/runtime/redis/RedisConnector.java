package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.connection.ConnectionUris;
import io.breakerctl.runtime.connection.Redaction;
import io.breakerctl.runtime.store.StoreException;
import io.breakerctl.runtime.store.StorePermissionException;
import io.breakerctl.runtime.store.StoreTlsException;
import io.breakerctl.runtime.store.StoreUnavailableException;
import io.breakerctl.runtime.store.TlsFailure;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.StaticCredentialsProvider;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.netty.resolver.DefaultAddressResolverGroup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * Opens a store's connection ({@link RedisConnection}): one URI that points at a cluster node
 * connects to the whole cluster, several URIs are cluster seed nodes, a {@code redis-sentinel://}
 * URI connects to the master the sentinels name; TLS, credentials, timeouts and reconnect delays as
 * {@link StoreConfig} says, and every failure named ({@link StoreErrors}, {@link TlsFailures}).
 */
final class RedisConnector {

  static {
    // before this class creates a Lettuce client: Lettuce's loggers are made as its classes load
    ReconnectLogLimit.install();
  }

  private static final Delay RECONNECT_DELAY =
      Delay.equalJitter(Duration.ofMillis(200), Duration.ofSeconds(2), 100, TimeUnit.MILLISECONDS);

  private RedisConnector() {}

  /**
   * Connects to Redis as configured. One URI that points at a cluster node connects to the whole
   * cluster; several URIs are cluster seed nodes; a {@code redis-sentinel://} URI connects to the
   * master the sentinels name. {@code rediss://} uses TLS, trusting {@link StoreConfig#caFile()}
   * when set; {@link StoreConfig#username()} and {@link StoreConfig#password()} replace the URI's
   * credentials when set.
   *
   * @throws StoreUnavailableException when no server answers within the timeout
   * @throws StorePermissionException when the credentials are refused
   * @throws StoreTlsException when a TLS connection fails for a named reason (an untrusted
   *     certificate, a hostname mismatch, a plain server behind {@code rediss://}, ...)
   * @throws IllegalArgumentException for a bad URI or a CA file that is missing, unreadable or
   *     holds no certificate (read only when a URI uses TLS)
   */
  static RedisConnection connect(StoreConfig config) {
    try {
      return connectOnce(config);
    } catch (StoreUnavailableException e) {
      if (!handshakeLost(e)) {
        throw e;
      }
      // Lettuce lost the handshake's answer (below): ask once more, and get it this time
      return connectOnce(config);
    }
  }

  /**
   * Whether a connect failed because Lettuce looked for its handshake handler after the failed
   * handshake (a refused password: {@code WRONGPASS}) had already closed the channel and emptied
   * its pipeline: {@code IllegalStateException: RedisHandshakeHandler not registered}, the server's
   * answer lost. Measured under two busy cores: 1 of 300 connects with a wrong password, which the
   * CLI then reported as "Redis unavailable" (exit 6) instead of "authentication failed" (exit 4).
   */
  private static boolean handshakeLost(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof IllegalStateException
          && String.valueOf(t.getMessage()).contains("RedisHandshakeHandler not registered")) {
        return true;
      }
    }
    return false;
  }

  private static RedisConnection connectOnce(StoreConfig config) {
    List<RedisURI> uris = new ArrayList<>();
    for (String u : config.uris()) {
      uris.add(uri(u, config));
    }
    String where =
        Redaction.uri(String.join(",", config.uris()))
            + (config.username() == null ? "" : " as user '" + config.username() + "'");
    SocketOptions socket =
        SocketOptions.builder().connectTimeout(config.timeout()).keepAlive(true).build();
    // Commands are bounded by the connection's timeout: the connect timeout while connecting,
    // then the command timeout (setTimeout below).
    TimeoutOptions timeouts = TimeoutOptions.enabled();
    // the CA file is read here, once, when a URI uses TLS: a bad file is named, not a failed
    // connect
    boolean tls = uris.stream().anyMatch(RedisURI::isSsl);
    SslOptions ssl =
        config.caFile() == null || !tls
            ? SslOptions.create()
            : SslOptions.builder()
                .jdkSslProvider()
                .trustManager(CaFile.trust(config.caFile()))
                .build();
    // The JDK's resolver instead of Netty's DNS resolver, and no latency recorder: both cost
    // start-up time (the CLI starts for every command) and neither is used here.
    // Reconnects back off with jitter (50 ms doubling to 1 s): a fleet that loses Redis does not
    // spin on refused connections (Lettuce's default starts at 1 ms), and its nodes spread out.
    ClientResources resources =
        ClientResources.builder()
            .addressResolverGroup(DefaultAddressResolverGroup.INSTANCE)
            .commandLatencyRecorder(CommandLatencyRecorder.disabled())
            .reconnectDelay(RECONNECT_DELAY)
            .build();
    try {
      if (uris.size() == 1) {
        RedisClient client = new LeanRedisClient(resources, uris.get(0));
        client.setOptions(
            ClientOptions.builder()
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .socketOptions(socket)
                .timeoutOptions(timeouts)
                .sslOptions(ssl)
                .build());
        StatefulRedisConnection<String, String> c;
        try {
          c = client.connect();
        } catch (RuntimeException e) {
          client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
          resources.shutdown(0, 1, TimeUnit.SECONDS);
          throw e;
        }
        String info = await(c.async().info("cluster"), config.timeout(), "INFO cluster", where);
        if (!info.contains("cluster_enabled:1")) {
          return opened(uris, client, c, c.async(), null, resources, config);
        }
        c.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
      }
      RedisClusterClient client = RedisClusterClient.create(resources, uris);
      client.setOptions(
          ClusterClientOptions.builder()
              .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
              .socketOptions(socket)
              .timeoutOptions(timeouts)
              .sslOptions(ssl)
              .topologyRefreshOptions(
                  ClusterTopologyRefreshOptions.builder()
                      .enableAllAdaptiveRefreshTriggers()
                      .build())
              .build());
      StatefulRedisClusterConnection<String, String> c;
      try {
        c = client.connect();
        // Node connections open lazily; with REJECT_COMMANDS the first command to a node that is
        // still connecting would be rejected, so open one to every master now.
        // A master marked failed (killed, its replica promoted) is skipped: its slots are served
        // elsewhere, and one node that cannot be reached must not fail the whole store.
        for (RedisClusterNode node : c.getPartitions()) {
          if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)
              && !node.is(RedisClusterNode.NodeFlag.FAIL)
              && !node.is(RedisClusterNode.NodeFlag.EVENTUAL_FAIL)
              && !node.getSlots().isEmpty()) {
            try {
              c.getConnection(node.getNodeId());
              c.getConnection(node.getUri().getHost(), node.getUri().getPort());
            } catch (RuntimeException unreachable) {
              // commands for its slots fail until the topology moves them; the others work
            }
          }
        }
      } catch (RuntimeException e) {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        resources.shutdown(0, 1, TimeUnit.SECONDS);
        throw e;
      }
      return opened(uris, client, c, c.async(), c, resources, config);
    } catch (RuntimeException e) {
      resources.shutdown(0, 1, TimeUnit.SECONDS);
      StoreException failure = StoreErrors.translate("connect to " + where, e);
      if (tls && failure.getClass() == StoreUnavailableException.class) {
        // a handshake that got no answer: a plain Redis there answers a plain PING
        for (RedisURI u : uris) {
          if (u.isSsl() && StoreErrors.answersPlainRedis(u, config.timeout())) {
            throw new StoreTlsException(
                "connect to "
                    + where
                    + ": "
                    + TlsFailure.PLAIN_SERVER.message()
                    + " ("
                    + u.getHost()
                    + ":"
                    + u.getPort()
                    + " answers a plain PING)",
                e,
                TlsFailure.PLAIN_SERVER);
          }
        }
      }
      throw failure;
    }
  }

  /**
   * One URI of {@code config} as Lettuce connects to it: parsed ({@link #parse}), with the
   * configured timeout and the credentials to authenticate with ({@code username} and {@code
   * password} over the URI's own, which Lettuce also reads into an asynchronous provider).
   *
   * <p>The credentials are given as an <em>immediate</em> provider, resolved on the connection's
   * event loop. Lettuce resolves any other provider asynchronously and sends {@code HELLO} from the
   * common pool; when the server's answer is decoded before that thread links the next handshake
   * stage, the handshake completes off the event loop, {@code connect()} returns before the
   * connection is marked active, and the first command is rejected ("Currently not connected",
   * {@code REJECT_COMMANDS}). Measured with two busy cores: 17 and 44 of 3,000 connects with a
   * {@code RedisCredentialsProvider.from(supplier)}, none of 6,000 with a static provider; the CLI
   * with a password failed a busy-core suite run this way (exit 6 at its first command).
   *
   * @throws StorePermissionException for a user without a password
   */
  static RedisURI uri(String u, StoreConfig config) {
    RedisURI uri = parse(u.trim());
    uri.setTimeout(config.timeout());
    RedisCredentials given =
        uri.getCredentialsProvider() == null
            ? null
            : uri.getCredentialsProvider().resolveCredentials().block(Duration.ofSeconds(1));
    String user =
        config.username() != null
            ? config.username()
            : given != null && given.hasUsername() ? given.getUsername() : null;
    char[] password =
        config.password() != null
            ? config.password().toCharArray()
            : given != null && given.hasPassword() ? given.getPassword() : null;
    if (config.username() != null && password == null) {
      // Lettuce would send no AUTH at all and act as `default`: never another identity.
      throw new StorePermissionException(
          "Redis user '" + user + "' given without a password (an empty one is a password)", null);
    }
    // also for a URI's own user info, which Lettuce reads into a provider that is not immediate
    uri.setCredentialsProvider(new StaticCredentialsProvider(user, password));
    return uri;
  }

  /**
   * Lettuce's reading of one URI. A user info Lettuce cannot read as written (a raw {@code / ? # @
   * %} or space in the password: it would read part of the password as the host) is refused before
   * Lettuce sees it; the parser's own message, which quotes the URI, is shown redacted and is not
   * kept as the cause of a URI that carries a secret.
   *
   * @throws IllegalArgumentException naming the URI (redacted) and the problem
   */
  private static RedisURI parse(String u) {
    String problem = ConnectionUris.userInfoProblem(u);
    if (problem != null) {
      throw new IllegalArgumentException("bad Redis URI '" + Redaction.uri(u) + "': " + problem);
    }
    try {
      return RedisURI.create(u);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "bad Redis URI '" + Redaction.uri(u) + "': " + Redaction.uri(e.getMessage()),
          Redaction.hasSecret(u) ? null : e);
    }
  }

  /** The connection {@link #connect} opened: closing it shuts the client down. */
  private static RedisConnection opened(
      List<RedisURI> uris,
      AbstractRedisClient client,
      StatefulConnection<String, String> c,
      RedisClusterAsyncCommands<String, String> commands,
      StatefulRedisClusterConnection<String, String> cluster,
      ClientResources resources,
      StoreConfig config) {
    c.setTimeout(config.commandTimeout());
    return addressed(
        uris,
        new RedisConnection(
            client,
            c,
            commands,
            cluster,
            () -> {
              c.close();
              client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
              resources.shutdown(0, 2, TimeUnit.SECONDS);
            },
            config.prefix(),
            config.commandTimeout()));
  }

  /**
   * Records where the store connected ({@link RedisConnection#addresses}): the URIs' servers (each
   * sentinel of a Sentinel URI, with the master's name) and, on a Cluster, every node of its
   * topology.
   */
  static RedisConnection addressed(List<RedisURI> uris, RedisConnection store) {
    Set<String> out = new TreeSet<>();
    for (RedisURI u : uris) {
      if (u.getSentinels().isEmpty()) {
        out.add(address(u.getHost(), u.getPort()));
      } else {
        for (RedisURI s : u.getSentinels()) {
          out.add(address(s.getHost(), s.getPort()) + "/" + u.getSentinelMasterId());
        }
      }
    }
    if (store.cluster != null) {
      for (RedisClusterNode node : store.cluster.getPartitions()) {
        out.add(address(node.getUri().getHost(), node.getUri().getPort()));
      }
    }
    store.addresses(List.copyOf(out));
    return store;
  }

  private static String address(String host, int port) {
    String h = host.toLowerCase(Locale.ROOT);
    return (h.equals("localhost") || h.equals("::1") ? "127.0.0.1" : h) + ":" + port;
  }

  /**
   * A connection on a Lettuce client the caller owns: it opens (and closes) its own connections on
   * it; the client's options (timeouts, disconnected behaviour) apply.
   */
  static RedisConnection create(RedisClient client, String prefix, Duration timeout) {
    try {
      StatefulRedisConnection<String, String> c = client.connect();
      return new RedisConnection(client, c, c.async(), null, c::close, prefix, timeout);
    } catch (RuntimeException e) {
      throw StoreErrors.translate("connect", e);
    }
  }

  /**
   * A connection on a Lettuce cluster client the caller owns (see {@link #create(RedisClient,
   * String, Duration)}).
   */
  static RedisConnection create(RedisClusterClient client, String prefix, Duration timeout) {
    try {
      StatefulRedisClusterConnection<String, String> c = client.connect();
      return addressed(
          List.of(), new RedisConnection(client, c, c.async(), c, c::close, prefix, timeout));
    } catch (RuntimeException e) {
      throw StoreErrors.translate("connect", e);
    }
  }

  private static <T> T await(RedisFuture<T> f, Duration timeout, String what, String where) {
    try {
      return f.toCompletableFuture().get(timeout.toMillis() + 100, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreUnavailableException(what + " on " + where + " interrupted", e);
    } catch (Exception e) {
      throw StoreErrors.translate(what + " on " + where, e);
    }
  }
}
