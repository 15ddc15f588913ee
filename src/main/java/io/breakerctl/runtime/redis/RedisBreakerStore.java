package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.ConnectionUris;
import io.breakerctl.runtime.Redaction;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.AcquireResult;
import io.breakerctl.runtime.store.BreakerEvent;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.BreakerStore;
import io.breakerctl.runtime.store.FleetCallRates;
import io.breakerctl.runtime.store.ForwardResult;
import io.breakerctl.runtime.store.ForwardState;
import io.breakerctl.runtime.store.LostAnswerException;
import io.breakerctl.runtime.store.MalformedBreakerException;
import io.breakerctl.runtime.store.NodeCallCounts;
import io.breakerctl.runtime.store.NodeHeartbeat;
import io.breakerctl.runtime.store.NodeLiveness;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.OverrideResult;
import io.breakerctl.runtime.store.PolicyEncoding;
import io.breakerctl.runtime.store.ProbeLease;
import io.breakerctl.runtime.store.ReassertResult;
import io.breakerctl.runtime.store.Reassertion;
import io.breakerctl.runtime.store.RecordResult;
import io.breakerctl.runtime.store.RenewResult;
import io.breakerctl.runtime.store.ReplicaAcks;
import io.breakerctl.runtime.store.RestoreRequest;
import io.breakerctl.runtime.store.RestoreResult;
import io.breakerctl.runtime.store.StoreException;
import io.breakerctl.runtime.store.StoreFault;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.runtime.store.StorePermissionException;
import io.breakerctl.runtime.store.StoreUnavailableException;
import io.breakerctl.runtime.store.WarmResult;
import io.breakerctl.runtime.store.WriteLanding;
import io.breakerctl.runtime.store.WriteOutcome;
import io.breakerctl.runtime.store.Written;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.StaticCredentialsProvider;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.netty.resolver.DefaultAddressResolverGroup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The Lua scripts' Java face on Lettuce: every state change of a breaker is one script call,
 * addressed by SHA-1. Works on a standalone server and on Redis Cluster (all keys of a breaker
 * share one hash tag, so each call goes to the master owning that slot).
 *
 * <p>Scripts are never loaded cluster-wide up front: a master that does not know a script answers
 * {@code NOSCRIPT} and the call is repeated once as {@code EVAL} with the body, routed by the same
 * key, which also caches it there. A cluster-wide {@code SCRIPT LOAD} would fail while any node is
 * down; this never touches other nodes.
 *
 * <p>Reads take no script (HGETALL, ZRANGE, XREVRANGE, TIME), so a read-only ACL user can call
 * {@link #snapshot}. All methods are asynchronous and bounded by the configured timeout; failures
 * arrive as {@link StoreUnavailableException}, {@link StorePermissionException} or {@link
 * StoreException}.
 */
public final class RedisBreakerStore implements BreakerStore {

  private final StatefulConnection<String, String> connection;
  private final RedisClusterAsyncCommands<String, String> commands;
  private final StatefulRedisClusterConnection<String, String> cluster;
  private final StoreCanary canary;
  private final AutoCloseable owned;
  private final AbstractRedisClient client;
  private final Duration timeout;
  private final BreakerKeys keys;
  private final String idleTtlMillis;
  private volatile String expiryArg;
  private final Map<Policy, String> policyArgs = new ConcurrentHashMap<>();
  private final Map<BreakerId, Target> targets = new ConcurrentHashMap<>();
  private volatile List<String> addresses = List.of();

  /**
   * A breaker as the scripts address it: its keys (built once), the lean acquire's one key, and
   * whether this store last saw it CLOSED (then acquire sends the lean form first).
   */
  private static final class Target {
    final String[] keys;
    final String[] hashOnly;
    volatile boolean lastClosed = true;

    Target(String[] keys) {
      this.keys = keys;
      this.hashOnly = new String[] {keys[0]};
    }
  }

  private static final String[] NO_ARGS = {};

  /** The mode argument of {@code warm.lua} that takes a policy out. */
  private static final String UNWARM_MODE = "UNWARM";

  static {
    // before this class creates a Lettuce client: Lettuce's loggers are made as its classes load
    ReconnectLogLimit.install();
  }

  private static final Delay RECONNECT_DELAY =
      Delay.equalJitter(Duration.ofMillis(200), Duration.ofSeconds(2), 100, TimeUnit.MILLISECONDS);

  private RedisBreakerStore(
      AbstractRedisClient client,
      StatefulConnection<String, String> connection,
      RedisClusterAsyncCommands<String, String> commands,
      StatefulRedisClusterConnection<String, String> cluster,
      AutoCloseable owned,
      String prefix,
      Duration idleTtl,
      Duration timeout) {
    this.client = client;
    this.timeout = timeout;
    this.connection = connection;
    this.commands = commands;
    this.cluster = cluster;
    this.owned = owned;
    this.keys = BreakerKeys.withPrefix(prefix);
    this.canary = new StoreCanary(keys, commands, cluster);
    this.idleTtlMillis = Long.toString(idleTtl.toMillis());
    this.expiryArg = idleTtlMillis;
  }

  /**
   * Declares that this deployment forwards its history (a control plane with a history forwarder):
   * the scripts this store runs mark the breakers they write as forwarded ({@code history} in the
   * hash) and let events the forwarder has not stored hold a breaker's keys at most {@code hold}. A
   * store that declares nothing leaves a breaker as its keys say (no destination until a forwarder
   * stores its events): a bounded tail of events that holds nothing. Call it before the store is
   * used.
   *
   * @return this store
   */
  public RedisBreakerStore forwardsHistory(Duration hold) {
    if (hold.toMillis() < 1) {
      throw new IllegalArgumentException("history hold must be >= 1ms but was " + hold);
    }
    this.expiryArg = idleTtlMillis + ":" + hold.toMillis();
    return this;
  }

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
  public static RedisBreakerStore connect(StoreConfig config) {
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

  /** The store on a connection {@link #connect} opened: closing it shuts the client down. */
  private static RedisBreakerStore opened(
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
        new RedisBreakerStore(
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
            config.idleTtl(),
            config.commandTimeout()));
  }

  /**
   * Records where the store connected ({@link #addresses}): the URIs' servers (each sentinel of a
   * Sentinel URI, with the master's name) and, on a Cluster, every node of its topology.
   */
  private static RedisBreakerStore addressed(List<RedisURI> uris, RedisBreakerStore store) {
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
    store.addresses = List.copyOf(out);
    return store;
  }

  private static String address(String host, int port) {
    String h = host.toLowerCase(Locale.ROOT);
    return (h.equals("localhost") || h.equals("::1") ? "127.0.0.1" : h) + ":" + port;
  }

  /**
   * The servers this store connected to, as {@code host:port} (a sentinel as {@code
   * host:port/master}), sorted; no credentials. Empty for a store on a client the caller owns. The
   * deployment check of {@code replay restore} compares them with those a deployment was seen at.
   */
  public List<String> addresses() {
    return addresses;
  }

  /** This Redis's deployment identity ({@link BreakerKeys#deployment()}), if one is set. */
  public CompletableFuture<Optional<String>> deployment() {
    return guard(
        "read the deployment identity",
        commands.get(keys.deployment()).thenApply(Optional::ofNullable));
  }

  /**
   * Sets this Redis's deployment identity to {@code id} unless one is set ({@code SET NX}); returns
   * the identity set afterwards, which is another one when it was set before.
   */
  public CompletableFuture<String> claimDeployment(String id) {
    return guard(
        "set the deployment identity",
        commands
            .set(keys.deployment(), id, SetArgs.Builder.nx())
            .thenCompose(ok -> commands.get(keys.deployment())));
  }

  /**
   * A store on a Lettuce client the caller owns: the store opens (and closes) its own connections
   * on it; the client's options (timeouts, disconnected behaviour) apply.
   */
  public static RedisBreakerStore create(
      RedisClient client, String prefix, Duration idleTtl, Duration timeout) {
    try {
      StatefulRedisConnection<String, String> c = client.connect();
      return new RedisBreakerStore(client, c, c.async(), null, c::close, prefix, idleTtl, timeout);
    } catch (RuntimeException e) {
      throw StoreErrors.translate("connect", e);
    }
  }

  /**
   * A store on a Lettuce cluster client the caller owns (see {@link #create(RedisClient, String,
   * Duration, Duration)}).
   */
  public static RedisBreakerStore create(
      RedisClusterClient client, String prefix, Duration idleTtl, Duration timeout) {
    try {
      StatefulRedisClusterConnection<String, String> c = client.connect();
      return addressed(
          List.of(),
          new RedisBreakerStore(client, c, c.async(), c, c::close, prefix, idleTtl, timeout));
    } catch (RuntimeException e) {
      throw StoreErrors.translate("connect", e);
    }
  }

  /**
   * Subscribes to the transitions and warmed policies of every breaker under this prefix (the
   * {@code <prefix>:events} channel; JSON messages), and to a beacon channel of its own ({@code
   * <prefix>:events:beacon:<random>}, see {@link Subscription#beacon}). {@code onSubscribed} runs
   * after every (re)subscription to the events channel, e.g. after a reconnect, when messages may
   * have been missed. Close the returned handle to unsubscribe. A subscription that fails closes
   * its connection.
   *
   * <p>On a Cluster the subscription is made on a master that owns slots, chosen at random:
   * Lettuce's own choice is the node with the fewest clients, often a replica, and a stalled
   * replica kept an override from 4 of 6 nodes for 25.7 s with every master healthy (issue 42).
   * Messages published anywhere reach every node of a Cluster, so any master hears them all.
   *
   * @throws StoreUnavailableException when the subscription cannot be made within the timeout
   */
  public Subscription subscribe(Consumer<String> onMessage, Runnable onSubscribed) {
    String events = keys.channel();
    String beacon =
        events
            + ":beacon:"
            + Long.toString(java.util.concurrent.ThreadLocalRandom.current().nextLong() >>> 1, 36);
    RedisPubSubAdapter<String, String> listener =
        new RedisPubSubAdapter<>() {
          @Override
          public void message(String channel, String message) {
            onMessage.accept(message);
          }

          @Override
          public void subscribed(String channel, long count) {
            if (events.equals(channel)) {
              onSubscribed.run();
            }
          }
        };
    StatefulConnection<String, String> owned = null;
    try {
      StatefulRedisPubSubConnection<String, String> pubsub;
      if (client instanceof RedisClusterClient cc) {
        StatefulRedisClusterPubSubConnection<String, String> cluster = cc.connectPubSub();
        owned = cluster;
        cluster.setNodeMessagePropagation(true);
        cluster.addListener(listener);
        pubsub = cluster.getConnection(subscriptionMaster(cluster.getPartitions()));
      } else {
        pubsub = ((RedisClient) client).connectPubSub();
        owned = pubsub;
        pubsub.addListener(listener);
      }
      pubsub.async().subscribe(events, beacon).get(timeout.toMillis() + 100, TimeUnit.MILLISECONDS);
      StatefulRedisPubSubConnection<String, String> c = pubsub;
      StatefulConnection<String, String> closing = owned;
      return new Subscription() {
        @Override
        public boolean isOpen() {
          return c.isOpen();
        }

        @Override
        public CompletableFuture<Long> publish(String message) {
          return guard("publish", commands.publish(events, message));
        }

        @Override
        public CompletableFuture<Long> beacon(String message) {
          return guard("publish", commands.publish(beacon, message));
        }

        @Override
        public void close() {
          closing.close();
        }
      };
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      closeQuietly(owned);
      throw new StoreUnavailableException("subscribe to " + events + " interrupted", e);
    } catch (Exception e) {
      closeQuietly(owned);
      throw StoreErrors.translate("subscribe to " + events, e);
    }
  }

  /**
   * A master that owns slots and is not flagged failing, at random (so a fleet's subscriptions
   * spread over the masters); the first node listed when the topology names none.
   */
  private static String subscriptionMaster(Iterable<RedisClusterNode> partitions) {
    List<RedisClusterNode> masters = new ArrayList<>();
    RedisClusterNode any = null;
    for (RedisClusterNode n : partitions) {
      any = any == null ? n : any;
      if (n.is(RedisClusterNode.NodeFlag.UPSTREAM)
          && !n.is(RedisClusterNode.NodeFlag.FAIL)
          && !n.is(RedisClusterNode.NodeFlag.EVENTUAL_FAIL)
          && !n.getSlots().isEmpty()) {
        masters.add(n);
      }
    }
    if (masters.isEmpty()) {
      if (any == null) {
        throw new StoreUnavailableException(
            "subscribe: the Cluster's topology names no node", null);
      }
      return any.getNodeId();
    }
    return masters
        .get(java.util.concurrent.ThreadLocalRandom.current().nextInt(masters.size()))
        .getNodeId();
  }

  private static void closeQuietly(StatefulConnection<?, ?> c) {
    if (c != null) {
      try {
        c.close();
      } catch (RuntimeException e) {
        // the connection is abandoned either way
      }
    }
  }

  /** Reads a breaker's state hash with the Redis time (no leases, events or heartbeats). */
  public CompletableFuture<BreakerSnapshot> state(BreakerId id) {
    CompletableFuture<Map<String, String>> fields =
        commands.hgetall(keys.hash(id)).toCompletableFuture();
    CompletableFuture<Long> time = timeAt(keys.hash(id));
    return fields
        .thenCombine(
            time,
            (f, t) ->
                new BreakerSnapshot(id, new LinkedHashMap<>(f), List.of(), List.of(), List.of(), t))
        .handle(
            (v, err) -> {
              if (err != null) {
                throw StoreErrors.translate("read " + id, err);
              }
              return v;
            });
  }

  /**
   * Runs the client side of the scripts' calls: {@link #WARM_UP_CALLS} pipelined {@code EVAL}s of a
   * script that writes nothing and answers as the record script does (its fast path's answer and
   * its full one), with a record call's keys and arguments (on a breaker nobody uses), parsed as
   * its answers are, and one shaped as an acquire. A fresh JVM's first failures then run compiled
   * code through the encoder, the connection and the decoder: before, the first records ran that
   * path interpreted (nothing else sends a script in a node's first seconds but a few flushes), on
   * the path of the fleet's first trip. Costs Redis about 1 ms of CPU per registry start.
   */
  public CompletableFuture<Void> warmUp() {
    String[] k = keys.scriptKeys(WARM_UP_ID);
    String[] args = scriptArgs("breakerctl-warm-up", null, "1", "0", "5", "", "", "");
    List<CompletableFuture<?>> calls = new ArrayList<>(WARM_UP_CALLS + 1);
    for (int i = 0; i < WARM_UP_CALLS; i++) {
      calls.add(
          commands
              .<List<Object>>eval(
                  // both answers record.lua gives: the fast path's (a failure counted in CLOSED,
                  // what a fleet's first failures get) and the full one (the trip)
                  i % 3 == 2
                      ? "return {'OPEN', 5, 5, 1, '1', '1796189124697-0', '1796189124614293', 1,"
                          + " 'COUNTED', 1796189154697}"
                      : "return {4, 20, '1', '1796189124614293'}",
                  ScriptOutputType.MULTI,
                  k,
                  args)
              .toCompletableFuture()
              .thenApply(ScriptAnswers::record));
    }
    calls.add(
        commands
            .<List<Object>>eval("return {1, '0', '1'}", ScriptOutputType.MULTI, k, args)
            .toCompletableFuture()
            .thenApply(ScriptAnswers::acquire));
    return guard("warm up", CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)));
  }

  /** How many record-shaped calls {@link #warmUp} sends: enough for the JIT to compile them. */
  static final int WARM_UP_CALLS = 300;

  /** The breaker nobody uses whose keys {@link #warmUp} sends (never written). */
  static final BreakerId WARM_UP_ID = BreakerId.parse("breakerctl-warm-up:record-path");

  @Override
  public CompletableFuture<List<String>> stamps(List<BreakerId> ids) {
    List<CompletableFuture<List<io.lettuce.core.KeyValue<String, String>>>> reads =
        new ArrayList<>(ids.size());
    for (BreakerId id : ids) {
      reads.add(
          commands
              .hmget(keys.hash(id), "generation", "epoch", "policyVersion")
              .toCompletableFuture());
    }
    return guard(
        "read change stamps",
        CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new))
            .thenApply(
                v -> {
                  List<String> out = new ArrayList<>(reads.size());
                  for (CompletableFuture<List<io.lettuce.core.KeyValue<String, String>>> r :
                      reads) {
                    List<io.lettuce.core.KeyValue<String, String>> f = r.join();
                    out.add(
                        BreakerStore.stamp(
                            f.get(0).getValueOrElse(""),
                            f.get(1).getValueOrElse(""),
                            f.get(2).getValueOrElse("")));
                  }
                  return out;
                }));
  }

  /** See {@link BreakerStore#canary()} and {@link StoreCanary}. */
  @Override
  public CompletableFuture<String> canary() {
    return guard("read the canary", canary.fingerprint());
  }

  /** The canary keys, one per live master (what a test checks). */
  List<String> canaryKeys() {
    return canary.canaries().stream().map(c -> c[0]).toList();
  }

  /** Round-trips a PING (health check of the connection). */
  public CompletableFuture<String> ping() {
    return guard("PING", commands.ping());
  }

  /** The node id of the master owning the slot of {@code id}'s keys ({@link #UNOWNED}: none). */
  @Override
  public String shardOf(BreakerId id) {
    if (cluster == null) {
      return "";
    }
    RedisClusterNode node =
        cluster.getPartitions().getPartitionBySlot(SlotHash.getSlot(keys.hash(id)));
    return node == null ? UNOWNED : node.getNodeId();
  }

  /**
   * The shard of a breaker whose slot no master owns in the client's topology (its master failed
   * and no replica took over yet): its PING fails, so the breakers there stay degraded until a
   * topology read names an owner.
   */
  static final String UNOWNED = "unowned";

  /**
   * PINGs the master {@code shard} names (a Cluster node id). {@code ""} is the one server, or on a
   * Cluster the node's reach of it: the first master holding slots to answer (a PING without a key
   * goes to the seed the client first connected to, which may be the master that died).
   */
  @Override
  public CompletableFuture<String> ping(String shard) {
    if (cluster == null) {
      return ping();
    }
    if (!shard.isEmpty()) {
      return guard("PING " + shard, pingNode(shard));
    }
    CompletableFuture<String> first = new CompletableFuture<>();
    List<CompletableFuture<String>> all = new ArrayList<>();
    for (RedisClusterNode n : cluster.getPartitions()) {
      if (n.is(RedisClusterNode.NodeFlag.UPSTREAM) && !n.getSlots().isEmpty()) {
        CompletableFuture<String> p = pingNode(n.getNodeId()).toCompletableFuture();
        p.thenAccept(first::complete);
        all.add(p);
      }
    }
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
        .whenComplete(
            (v, e) -> {
              if (e != null && all.stream().allMatch(CompletableFuture::isCompletedExceptionally)) {
                first.completeExceptionally(e);
              } else {
                first.complete("PONG");
              }
            });
    if (all.isEmpty()) {
      first.completeExceptionally(new IllegalStateException("no master holds slots"));
    }
    return guard("PING", first);
  }

  private CompletionStage<String> pingNode(String nodeId) {
    try {
      return cluster.getConnectionAsync(nodeId).thenCompose(c -> c.async().ping());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e); // a node the topology no longer lists
    }
  }

  @Override
  public void refreshShards(Duration limit) {
    refreshTopology(limit);
  }

  @Override
  public CompletableFuture<String> hotGet(BreakerId id, String field) {
    return guard("GET hot fallback data of " + id, commands.get(keys.hot(id, field)));
  }

  @Override
  public CompletableFuture<Void> hotPut(BreakerId id, String field, String value, Duration ttl) {
    return guard(
            "SET hot fallback data of " + id,
            commands.set(keys.hot(id, field), value, SetArgs.Builder.px(ttl.toMillis())))
        .thenApply(ok -> null);
  }

  @Override
  public CompletableFuture<Void> hotDelete(BreakerId id, String field) {
    return guard("DEL hot fallback data of " + id, commands.del(keys.hot(id, field)))
        .thenApply(n -> null);
  }

  @Override
  public CompletableFuture<Long> alive(String node, Duration validFor) {
    String[] k = {keys.alive(), keys.calls(node)};
    String[] args = {
      node, idleTtlMillis, PolicyEncoding.NO_POLICY, Long.toString(validFor.toMillis()), ""
    };
    return evalsha(BreakerScript.ALIVE, k[0], k, args).thenApply(r -> ScriptAnswers.num(r, 0));
  }

  @Override
  public CompletableFuture<Long> alive(String node, Duration validFor, NodeCallCounts calls) {
    return alive(node, validFor, calls, "");
  }

  @Override
  public CompletableFuture<Long> alive(
      String node, Duration validFor, NodeCallCounts calls, String session) {
    String[] k = {keys.alive(), keys.calls(node), keys.sessions()};
    String[] args = {
      node,
      idleTtlMillis,
      PolicyEncoding.NO_POLICY,
      Long.toString(validFor.toMillis()),
      calls.toJson(),
      session
    };
    return evalsha(BreakerScript.ALIVE, k[0], k, args).thenApply(r -> ScriptAnswers.num(r, 0));
  }

  /**
   * The fleet's call rates per breaker ({@link FleetCallRates}): the counts the live nodes sent
   * with their last beat. Two reads for the whole fleet: the liveness set, then one {@code MGET} of
   * its nodes' counts (all in one slot). A node's counts expire with its liveness and are deleted
   * when it leaves, so the counts found are the live nodes'.
   */
  public CompletableFuture<FleetCallRates> callRates() {
    return liveness()
        .thenCompose(
            live -> {
              List<String> nodes = live.members();
              if (nodes.isEmpty()) {
                return CompletableFuture.completedFuture(FleetCallRates.NONE);
              }
              String[] k = nodes.stream().map(keys::calls).toArray(String[]::new);
              return guard(
                  "read the nodes' call counts",
                  commands
                      .mget(k)
                      .thenApply(
                          kvs -> {
                            Map<String, NodeCallCounts> byNode = new LinkedHashMap<>();
                            for (int i = 0; i < kvs.size(); i++) {
                              String json = kvs.get(i).getValueOrElse(null);
                              if (json != null) {
                                byNode.put(nodes.get(i), NodeCallCounts.parse(json));
                              }
                            }
                            return new FleetCallRates(byNode);
                          }));
            });
  }

  /**
   * The fleet's liveness: every node's alive-until time (Redis ms) and its current session, see
   * {@link NodeLiveness}. Two reads of one slot, sent together.
   */
  public CompletableFuture<NodeLiveness> liveness() {
    CompletableFuture<Map<String, String>> sessions =
        commands.hgetall(keys.sessions()).toCompletableFuture();
    return guard(
        "read the nodes' liveness",
        commands
            .zrangeWithScores(keys.alive(), 0, -1)
            .thenCombine(
                sessions,
                (all, current) -> {
                  Map<String, Long> until = new java.util.HashMap<>(all.size() * 2);
                  for (ScoredValue<String> v : all) {
                    until.put(v.getValue(), (long) v.getScore());
                  }
                  return new NodeLiveness(until, current);
                }));
  }

  /**
   * Where a breaker's state lives, for messages and output (its state hash's key): callers name it,
   * they never build it.
   */
  public String location(BreakerId id) {
    return keys.hash(id);
  }

  /**
   * A reader of whole fleets (snapshots by id or pattern across every master, streamed in batches
   * of {@code batch}, each round trip bounded by {@code timeout}).
   */
  public FleetReader fleet(Duration timeout, int batch) {
    return new FleetReader(this, timeout, batch);
  }

  /** The key layout in use. */
  public BreakerKeys keys() {
    return keys;
  }

  /** The bound of each command, as configured. */
  Duration commandTimeout() {
    return timeout;
  }

  /**
   * Reads the Cluster's topology again (a replica promoted, a failed master's slots moved), waiting
   * at most {@code limit}; nothing on a standalone server or a client the caller owns.
   *
   * @throws StoreUnavailableException when no node answers in time
   */
  void refreshTopology(Duration limit) {
    if (cluster != null && client instanceof RedisClusterClient cc) {
      StoreFutures.await(cc.refreshPartitionsAsync().toCompletableFuture(), limit);
    }
  }

  /** Whether this store talks to a Redis Cluster. */
  public boolean isCluster() {
    return cluster != null;
  }

  /** The underlying connection (for the runtime's pub/sub and batching). */
  public StatefulConnection<String, String> connection() {
    return connection;
  }

  /**
   * Asks for permission to call. {@code policy} applies while no policy is warmed into the
   * breaker's hash.
   */
  public CompletableFuture<AcquireResult> acquire(BreakerId id, String node, Policy policy) {
    return acquire(id, node, policy, "");
  }

  /**
   * Asks for permission to call, naming the probe lease a grant in HALF_OPEN gets ({@code leaseId};
   * empty: the script numbers it). The lean form never grants one, and the full form is sent only
   * after its answer, so once this future completes, a release sent afterwards on this connection
   * runs after whatever the acquire did.
   */
  public CompletableFuture<AcquireResult> acquire(
      BreakerId id, String node, Policy policy, String leaseId) {
    Target t = target(id);
    if (!t.lastClosed) {
      return full(t, id, node, policy, leaseId);
    }
    // The lean form (acquire.lua): the hash key alone and no arguments, answered on the closed
    // fast path; a breaker that is not closed answers {-1} and gets the full form at once.
    return evalsha(BreakerScript.ACQUIRE, id.toString(), t.hashOnly, NO_ARGS)
        .thenCompose(
            r ->
                ScriptAnswers.isLeanRefusal(r)
                    ? full(t, id, node, policy, leaseId)
                    : CompletableFuture.completedFuture(ScriptAnswers.acquire(r)));
  }

  private CompletableFuture<AcquireResult> full(
      Target t, BreakerId id, String node, Policy policy, String leaseId) {
    // an empty lease id is the script's "none": it numbers the lease itself
    return run(BreakerScript.ACQUIRE, id, node, policy, leaseId)
        .thenApply(
            r -> {
              AcquireResult a = ScriptAnswers.acquire(r);
              t.lastClosed = a.state() == State.CLOSED;
              return a;
            });
  }

  private Target target(BreakerId id) {
    Target t = targets.get(id);
    return t != null ? t : targets.computeIfAbsent(id, i -> new Target(keys.scriptKeys(i)));
  }

  /** Records outcomes. {@code policy} applies while no policy is warmed. */
  public CompletableFuture<RecordResult> record(BreakerId id, Outcome outcome, Policy policy) {
    return record(id, outcome, policy, null);
  }

  /**
   * Records outcomes and, when {@code heartbeat} is not null, the node's heartbeat for the fleet
   * view (a node sends it with its batched flush).
   */
  public CompletableFuture<RecordResult> record(
      BreakerId id, Outcome outcome, Policy policy, NodeHeartbeat heartbeat) {
    return run(
            BreakerScript.RECORD,
            id,
            outcome.node(),
            policy,
            Long.toString(outcome.failures()),
            Long.toString(outcome.successes()),
            outcome.durationMillis() < 0 ? "" : Long.toString(outcome.durationMillis()),
            outcome.generation(),
            outcome.leaseId(),
            heartbeat == null ? "" : heartbeat.toJson())
        .thenApply(ScriptAnswers::record);
  }

  /**
   * Keeps the lease of a probe this node is running alive ({@code renew.lua}), or ends a probe that
   * ran past {@code maxProbeMillis}. {@code policy} applies while no policy is warmed.
   */
  @Override
  public CompletableFuture<RenewResult> renew(
      BreakerId id, String node, Policy policy, String leaseId, String generation) {
    return run(BreakerScript.RENEW, id, node, policy, leaseId, generation)
        .thenApply(ScriptAnswers::renew);
  }

  /** Sets, changes or clears an override; works on a breaker no node has used yet. */
  public CompletableFuture<OverrideResult> override(BreakerId id, OverrideRequest request) {
    return run(
            BreakerScript.OVERRIDE,
            id,
            request.actor(),
            null,
            request.kind().name(),
            request.reason(),
            Long.toString(request.duration().toMillis()),
            request.correlationId())
        .thenApply(ScriptAnswers::override);
  }

  /**
   * Waits for {@code write}, a change of {@code id} whose script records {@code correlationId} (in
   * the event it appends; an override also in the hash). When it fails with a timeout or a lost
   * connection (not an answer: a refusal, an ACL denial or bad input fail as they are), whether it
   * landed is read back over a fresh connection ({@link #readBack}): landed, {@code landed}
   * rebuilds the answer from what Redis holds.
   *
   * <p>After a read-back this store's connection is closed (a write still queued on it must not
   * land after its outcome is reported): only a one-shot client, such as the CLI, should use this.
   *
   * @throws LostAnswerException when the read-back shows it did not land, or Redis did not answer
   *     the read-back either
   * @throws StoreException any other failure of the write
   */
  public <T> Written<T> awaitWrite(
      BreakerId id,
      String correlationId,
      CompletableFuture<T> write,
      Function<WriteLanding, T> landed) {
    try {
      return new Written<>(StoreFutures.await(write), "");
    } catch (StoreUnavailableException e) {
      if (e.fault() != StoreFault.TIMEOUT && e.fault() != StoreFault.UNREACHABLE) {
        throw e;
      }
      WriteLanding found = readBack(id, correlationId);
      if (found.outcome() == WriteOutcome.APPLIED) {
        return new Written<>(landed.apply(found), e.getMessage());
      }
      throw new LostAnswerException(found.outcome(), id, correlationId, found.detail(), e);
    }
  }

  /**
   * Reads back whether a change of {@code id} carrying {@code correlationId} landed, over fresh
   * connections, retrying for up to twice the command timeout (at least 1 s); closes this store's
   * connection ({@link WriteReadBack} says why and when).
   */
  public WriteLanding readBack(BreakerId id, String correlationId) {
    Duration budget =
        timeout.multipliedBy(2).compareTo(Duration.ofSeconds(1)) < 0
            ? Duration.ofSeconds(1)
            : timeout.multipliedBy(2);
    return new WriteReadBack(this::fresh, () -> closeQuietly(connection), budget, timeout)
        .find(id, keys, correlationId);
  }

  /** A new connection on this store's client, bounded by the command timeout. */
  private WriteReadBack.Fresh fresh() {
    if (client instanceof RedisClusterClient cc) {
      StatefulRedisClusterConnection<String, String> c = cc.connect();
      c.setTimeout(timeout);
      return new WriteReadBack.Fresh(c, c.async());
    }
    StatefulRedisConnection<String, String> c = ((RedisClient) client).connect();
    c.setTimeout(timeout);
    return new WriteReadBack.Fresh(c, c.async());
  }

  /**
   * Puts back a trip or an override Redis lost, or publishes a trip made while degraded ({@code
   * reassert.lua}). {@code policy} applies while no policy is warmed.
   */
  public CompletableFuture<ReassertResult> reassert(
      BreakerId id, String node, Reassertion request, Policy policy) {
    return run(BreakerScript.REASSERT, id, node, policy, ScriptAnswers.reassertArguments(request))
        .thenApply(ScriptAnswers::reassert);
  }

  /**
   * Checks, writing nothing, that this connection may run {@link #override} on {@code id}'s keys (a
   * {@code --dry-run} exits as the real run would): EVALSHA of a script that does not exist answers
   * NOSCRIPT when permitted, NOPERM otherwise; on Redis 7, when EVAL is permitted, a probe script
   * checks every command the override script runs with {@code redis.acl_check_cmd} (executing none
   * of them).
   *
   * @throws StorePermissionException naming the command the user may not run
   */
  public CompletableFuture<Void> checkOverridePermission(BreakerId id) {
    String[] k = target(id).keys;
    CompletableFuture<Void> result = new CompletableFuture<>();
    commands
        .evalsha(NO_SUCH_SCRIPT, ScriptOutputType.STATUS, k, NO_ARGS)
        .whenComplete(
            (v, e) -> {
              Throwable err = e == null ? null : StoreErrors.unwrap(e);
              if (err != null && !(err instanceof RedisNoScriptException)) {
                result.completeExceptionally(StoreErrors.translate("override " + id, err));
                return;
              }
              commands
                  .eval(OVERRIDE_ACL_PROBE, ScriptOutputType.VALUE, k, keys.channel())
                  .whenComplete(
                      (missing, e2) -> {
                        // EVAL refused: EVALSHA alone runs a cached script; nothing more to check
                        String m = e2 == null && missing != null ? missing.toString() : "";
                        if (m.isEmpty() || m.equals("unsupported")) {
                          result.complete(null);
                        } else {
                          result.completeExceptionally(
                              new StorePermissionException(
                                  "override "
                                      + id
                                      + ": permission denied: NOPERM this user has no permissions"
                                      + " to run the '"
                                      + m
                                      + "' command (the override script runs it)",
                                  null));
                        }
                      });
            });
    return result;
  }

  /**
   * The ACL user a connection made with these settings authenticates as: {@code username}, else the
   * first URI's user, else {@code default} when a password alone is given (Redis's user for a bare
   * {@code AUTH password}); empty when no credentials are given (the connection sends no AUTH).
   */
  public static Optional<String> authenticatedUser(String uris, String username, String password) {
    if (username != null) {
      return Optional.of(username);
    }
    try {
      RedisURI uri = RedisURI.create(uris.split(",", -1)[0].trim());
      RedisCredentials given =
          uri.getCredentialsProvider() == null
              ? null
              : uri.getCredentialsProvider().resolveCredentials().block(Duration.ofSeconds(1));
      if (given != null && given.hasUsername() && !given.getUsername().isEmpty()) {
        return Optional.of(given.getUsername());
      }
      if (password != null || (given != null && given.hasPassword())) {
        return Optional.of("default");
      }
    } catch (RuntimeException e) {
      // a URI Lettuce cannot read fails at connect, with its own message
    }
    return Optional.empty();
  }

  /**
   * Checks that the user is an administrator of the Redis it is connected to: it may run {@code
   * CONFIG GET} (category {@code @admin}), which changes nothing. The CLI asks it before deleting
   * audit records ({@code history prune}).
   *
   * @throws StorePermissionException naming the command refused
   */
  public CompletableFuture<Void> checkAdminPermission(String what) {
    CompletableFuture<Void> result = new CompletableFuture<>();
    commands
        .configGet("maxmemory-policy")
        .whenComplete(
            (v, e) -> {
              if (e == null) {
                result.complete(null);
              } else {
                result.completeExceptionally(StoreErrors.translate(what, StoreErrors.unwrap(e)));
              }
            });
    return result;
  }

  /**
   * Whether this Redis may evict breaker keys ({@link #evictionRisk(String, String)}), read with
   * {@code CONFIG GET} (category {@code @admin}: a user without it gets a failed future, and the
   * caller says nothing). Empty when nothing can be evicted. One {@code CONFIG GET maxmemory*}
   * (Redis 6.2 takes one pattern per call; the answer also holds the samples and tenacity).
   */
  public CompletableFuture<Optional<String>> evictionRisk() {
    return guard(
        "read maxmemory",
        commands
            .configGet("maxmemory*")
            .thenApply(c -> evictionRisk(c.get("maxmemory"), c.get("maxmemory-policy"))));
  }

  /**
   * What is wrong with {@code maxmemory} and {@code maxmemory-policy} for breaker state, or empty:
   * with {@code maxmemory} set, every policy but {@code noeviction} can evict breaker keys (the
   * {@code allkeys-*} ones any key, the {@code volatile-*} ones keys with a TTL, which an idle
   * CLOSED breaker's keys carry), and a HYBRID node reads a tripped breaker's hash only at its
   * transitions, so its hash is among the coldest keys: an evicted one reads as CLOSED.
   */
  public static Optional<String> evictionRisk(String maxmemory, String policy) {
    long max;
    try {
      max = Long.parseLong(maxmemory == null ? "0" : maxmemory.trim());
    } catch (NumberFormatException e) {
      max = 1; // unreadable: assume a limit
    }
    String p = policy == null ? "" : policy.trim();
    if (max == 0 || p.equals("noeviction")) {
      return Optional.empty();
    }
    return Optional.of(
        "maxmemory-policy "
            + p
            + " with maxmemory "
            + max
            + " can evict breaker keys (an evicted tripped breaker reads as CLOSED): set"
            + " maxmemory-policy noeviction, or give breakerctl a Redis of its own");
  }

  private static final String NO_SUCH_SCRIPT = "0000000000000000000000000000000000000000";

  /** Answers the first command the override script runs that the user may not run, or ''. */
  private static final String OVERRIDE_ACL_PROBE =
      "if not redis.acl_check_cmd then return 'unsupported' end\n"
          + "local h, ev = KEYS[1], KEYS[2]\n"
          + "local probes = {{'time'}, {'hgetall', h}, {'hset', h, 'f', 'v'}, {'hdel', h, 'f'},\n"
          + "  {'xlen', ev}, {'xadd', ev, '*', 'f', 'v'}, {'xtrim', ev, 'MAXLEN', '1'},\n"
          + "  {'xrange', ev, '-', '+'}, {'del', KEYS[3]}, {'persist', h}, {'pexpire', h, '1'},\n"
          + "  {'publish', ARGV[1], 'x'}}\n"
          + "for _, p in ipairs(probes) do\n"
          + "  if not redis.acl_check_cmd(unpack(p)) then return p[1] end\n"
          + "end\n"
          + "return ''\n";

  /**
   * Warms a resolved policy version into the breaker's keys. For the same policy id an older or
   * equal version never replaces a newer one.
   */
  public CompletableFuture<WarmResult> warm(
      BreakerId id, String policyId, long version, Policy policy, String actor) {
    return run(
            BreakerScript.WARM,
            id,
            actor,
            policy,
            policyId,
            Long.toString(version),
            policy.storeFailureMode().name(),
            policy.fallbackPolicy().name(),
            policy.staticDefault().orElse(""))
        .thenApply(ScriptAnswers::warm);
  }

  /**
   * Un-warms a removed policy (warm.lua's un-warm mode): when the breaker holds {@code policyId} at
   * {@code removedAt} or an older version, its warmed policy is deleted (the nodes run their
   * defaults again) and a policy message is published; a breaker holding another policy or a newer
   * version is left alone. A later warm of {@code policyId} at or below {@code removedAt} is then
   * refused as stale.
   *
   * @param removedAt the version that removed the policy (its deletion, or the expired temporary
   *     version nothing replaces)
   */
  public CompletableFuture<WarmResult> unwarm(
      BreakerId id, String policyId, long removedAt, String actor) {
    return run(
            BreakerScript.WARM,
            id,
            actor,
            null,
            policyId,
            Long.toString(removedAt),
            UNWARM_MODE,
            "")
        .thenApply(ScriptAnswers::warm);
  }

  /** Marks events up to {@code streamId} of incarnation {@code epoch} as stored durably. */
  public CompletableFuture<ForwardResult> markForwarded(
      BreakerId id, String epoch, String streamId, String actor) {
    return run(BreakerScript.FORWARDED, id, actor, null, epoch, streamId)
        .thenApply(ScriptAnswers::forwarded);
  }

  /**
   * Rebuilds a breaker's keys from history under a new epoch (restore.lua): never over keys that
   * hold the same or a later transition, and idempotent per source transition.
   */
  public CompletableFuture<RestoreResult> restore(BreakerId id, RestoreRequest r) {
    return run(
            BreakerScript.RESTORE,
            id,
            r.actor(),
            null,
            r.stored().code(),
            Long.toString(r.openUntilMillis()),
            r.openMillis() > 0 ? Long.toString(r.openMillis()) : "",
            r.override() == null ? "" : r.override().code(),
            Long.toString(r.overrideUntilMillis()),
            r.overrideActor(),
            r.overrideReason(),
            r.overrideCorrelationId(),
            r.sourceEpoch(),
            r.sourceStreamId(),
            Long.toString(r.sourceAtMillis()),
            Long.toString(r.sourceGeneration()),
            r.reason(),
            r.correlationId())
        .thenApply(ScriptAnswers::restore);
  }

  /**
   * Takes or renews the fleet's history-forwarder lease ({@code <prefix>:forwarder}) for {@code
   * node}; returns the holder afterwards (equal to {@code node} when this node holds it).
   */
  public CompletableFuture<String> holdForwarderLease(String node, Duration lease) {
    String[] k = {keys.prefix() + ":forwarder"};
    String[] args = {
      node, idleTtlMillis, PolicyEncoding.NO_POLICY, Long.toString(lease.toMillis())
    };
    return evalsha(BreakerScript.FORWARDER_LEASE, k[0], k, args)
        .thenApply(r -> ScriptAnswers.str(r, 1));
  }

  /**
   * The node holding the fleet's history-forwarder lease, if any (a plain GET: viewers may read).
   */
  public CompletableFuture<Optional<String>> forwarderLeaseHolder() {
    return guard(
        "read the forwarder lease",
        commands.get(keys.prefix() + ":forwarder").thenApply(Optional::ofNullable));
  }

  /** Reads everything stored about a breaker, with the newest {@code events} events. */
  public CompletableFuture<BreakerSnapshot> snapshot(BreakerId id, int events) {
    String hash = keys.hash(id);
    CompletableFuture<Map<String, String>> fields = commands.hgetall(hash).toCompletableFuture();
    CompletableFuture<List<ScoredValue<String>>> leases =
        commands.zrangeWithScores(keys.leases(id), 0, -1).toCompletableFuture();
    CompletableFuture<List<StreamMessage<String, String>>> recent =
        events > 0
            ? commands
                .xrevrange(keys.events(id), Range.unbounded(), Limit.from(events))
                .toCompletableFuture()
            : CompletableFuture.completedFuture(List.of());
    CompletableFuture<List<ScoredValue<String>>> seen =
        commands.zrangeWithScores(keys.nodes(id), 0, -1).toCompletableFuture();
    CompletableFuture<Map<String, String>> info =
        commands.hgetall(keys.nodeInfo(id)).toCompletableFuture();
    CompletableFuture<Long> time = timeAt(hash);
    // unreadable liveness (its master down) leaves every stored report counted
    CompletableFuture<NodeLiveness> alive = liveness().exceptionally(e -> NodeLiveness.UNKNOWN);
    return CompletableFuture.allOf(fields, leases, recent, seen, info, time, alive)
        .handle(
            (v, err) -> {
              if (err != null) {
                throw StoreErrors.translate("read " + id, err);
              }
              List<ProbeLease> ls = new ArrayList<>();
              for (ScoredValue<String> sv : leases.join()) {
                ls.add(ScriptAnswers.probeLease(sv.getValue(), sv.getScore()));
              }
              List<NodeHeartbeat> nodes = new ArrayList<>();
              Map<String, String> infos = info.join();
              for (ScoredValue<String> sv : seen.join()) {
                String json = infos.getOrDefault(sv.getValue(), "{}");
                nodes.add(NodeHeartbeat.parse(sv.getValue(), json, (long) sv.getScore()));
              }
              return new BreakerSnapshot(
                  id,
                  new LinkedHashMap<>(fields.join()),
                  List.copyOf(ls),
                  toEvents(id, recent.join()),
                  List.copyOf(alive.join().live(nodes, time.join())),
                  time.join());
            });
  }

  /** The newest {@code count} events of a breaker, newest first. */
  public CompletableFuture<List<BreakerEvent>> newestEvents(BreakerId id, int count) {
    return guard(
        "read events of " + id,
        commands
            .xrevrange(keys.events(id), Range.unbounded(), Limit.from(count))
            .thenApply(msgs -> toEvents(id, msgs)));
  }

  /** Events after {@code afterStreamId} (exclusive; empty for the start), oldest first. */
  public CompletableFuture<List<BreakerEvent>> eventsAfter(
      BreakerId id, String afterStreamId, int count) {
    Range<String> range =
        afterStreamId == null || afterStreamId.isEmpty()
            ? Range.unbounded()
            : Range.from(Range.Boundary.excluding(afterStreamId), Range.Boundary.unbounded());
    return guard(
        "read events of " + id,
        commands
            .xrange(keys.events(id), range, Limit.from(count))
            .thenApply(msgs -> toEvents(id, msgs)));
  }

  /**
   * Calls {@code sink} with every breaker that has keys, scanning every master on a cluster ({@code
   * SCAN ... MATCH <prefix>:{*} TYPE hash COUNT 1000}). Blocks until the scan ends; each page is
   * bounded by the timeout.
   *
   * @throws StoreException when a page fails
   */
  public void forEachBreaker(Consumer<BreakerId> sink) {
    scan(
        "scan breakers",
        KeyScanArgs.Builder.matches(keys.hashPattern()).type("hash").limit(1000),
        keys::idOf,
        sink);
  }

  /**
   * Calls {@code sink} with every breaker whose unforwarded marker exists (events await the history
   * forwarder), scanning every master on a cluster ({@code SCAN ... MATCH <prefix>:{*}:unfwd TYPE
   * string COUNT 10000}: few commands however many keys). Blocks until the scan ends; each page is
   * bounded by the timeout.
   *
   * @throws StoreException when a page fails
   */
  public void forEachUnforwarded(Consumer<BreakerId> sink) {
    scan(
        "scan unforwarded",
        KeyScanArgs.Builder.matches(keys.unforwardedPattern()).type("string").limit(10_000),
        keys::idOfMarker,
        sink);
  }

  private void scan(
      String what,
      KeyScanArgs args,
      Function<String, Optional<BreakerId>> idOf,
      Consumer<BreakerId> sink) {
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      KeyScanCursor<String> page = StoreFutures.await(guard(what, commands.scan(cursor, args)));
      for (String key : page.getKeys()) {
        idOf.apply(key).ifPresent(sink);
      }
      cursor = page;
    } while (!cursor.isFinished());
  }

  /**
   * The forwarder's view of a breaker: epoch, cursor, last event, dropped and expired counts (one
   * HMGET).
   */
  public CompletableFuture<ForwardState> forwardState(BreakerId id) {
    return guard(
        "read forwarding state of " + id,
        commands
            .hmget(
                keys.hash(id), "epoch", "forwarded", "lastEvent", "eventsDropped", "eventsExpired")
            .thenApply(
                kv -> {
                  String[] v = new String[5];
                  for (int i = 0; i < 5; i++) {
                    v[i] = kv.get(i).getValueOrElse("");
                  }
                  return new ForwardState(
                      v[0],
                      v[1],
                      v[2],
                      count(id, "eventsDropped", v[3]),
                      count(id, "eventsExpired", v[4]));
                }));
  }

  private long count(BreakerId id, String field, String value) {
    try {
      return value.isEmpty() ? 0 : Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new MalformedBreakerException(
          "breaker hash "
              + keys.hash(id)
              + ": field "
              + field
              + " is not a number: '"
              + value
              + "'",
          e);
    }
  }

  /** Redis time in milliseconds, from the server owning {@code id}'s keys. */
  public CompletableFuture<Long> redisTimeMillis(BreakerId id) {
    return timeAt(keys.hash(id));
  }

  private CompletableFuture<Long> timeAt(String key) {
    CompletionStage<List<String>> t;
    if (cluster == null) {
      t = commands.time();
    } else {
      RedisClusterNode node = cluster.getPartitions().getPartitionBySlot(SlotHash.getSlot(key));
      t =
          cluster
              .getConnectionAsync(node.getNodeId())
              .thenCompose(c -> c.async().time().toCompletableFuture());
    }
    return guard(
        "read Redis TIME",
        t.thenApply(l -> Long.parseLong(l.get(0)) * 1000 + Long.parseLong(l.get(1)) / 1000));
  }

  /**
   * Asks the master of each of {@code ids} how many of its replicas acknowledged the writes this
   * store made to it: {@code INFO replication} ({@code connected_slaves}) then {@code WAIT
   * connected ms} on the connection that carried the writes (Redis counts a connection's own last
   * write: the one connection on a standalone server or behind Sentinel; on a Cluster the node
   * connection by host and port that Lettuce routes a slot's writes through). One question per
   * master, whatever the number of breakers: a {@code WAIT} blocks its connection, so breakers on
   * one master share its answer. {@code WAIT} gives the replicas three quarters of the command
   * timeout, so a stalled replica costs at most that once per master (the masters are asked at
   * once). Call it after the writes completed; a write whose answer was lost and read back ({@link
   * #awaitWrite}) closed the connection: its replicas cannot be counted.
   *
   * @return per breaker, its master's answer; a refused command ({@code NOPERM} for {@code WAIT})
   *     or an unavailable master completes with {@link ReplicaAcks#unknown}, never exceptionally
   */
  public Map<BreakerId, CompletableFuture<ReplicaAcks>> replicaAcks(Collection<BreakerId> ids) {
    long waitMillis = Math.max(1, timeout.toMillis() * 3 / 4);
    Map<String, CompletableFuture<ReplicaAcks>> byMaster = new HashMap<>();
    Map<BreakerId, CompletableFuture<ReplicaAcks>> out = new LinkedHashMap<>();
    for (BreakerId id : ids) {
      CompletableFuture<ReplicaAcks> acks;
      if (cluster == null) {
        acks = byMaster.computeIfAbsent("", m -> replicaAcks(commands, waitMillis));
      } else {
        RedisClusterNode node =
            cluster.getPartitions().getPartitionBySlot(SlotHash.getSlot(keys.hash(id)));
        if (node == null) {
          acks = CompletableFuture.completedFuture(ReplicaAcks.unknown("no master owns its slot"));
        } else {
          RedisURI u = node.getUri();
          acks =
              byMaster.computeIfAbsent(
                  u.getHost() + ":" + u.getPort(),
                  m ->
                      cluster
                          .getConnectionAsync(u.getHost(), u.getPort())
                          .thenCompose(c -> replicaAcks(c.async(), waitMillis))
                          .exceptionally(
                              e -> ReplicaAcks.unknown(StoreErrors.translate(m, e).getMessage())));
        }
      }
      out.put(id, acks);
    }
    return out;
  }

  private static CompletableFuture<ReplicaAcks> replicaAcks(
      RedisClusterAsyncCommands<String, String> on, long waitMillis) {
    return guard("INFO replication", on.info("replication"))
        .thenCompose(
            info -> {
              int connected = connectedReplicas(info);
              if (connected == 0) {
                return CompletableFuture.completedFuture(new ReplicaAcks(0, 0, ""));
              }
              return guard("WAIT", on.waitForReplication(connected, waitMillis))
                  .thenApply(n -> new ReplicaAcks(n.intValue(), connected, ""));
            })
        .exceptionally(e -> ReplicaAcks.unknown(StoreErrors.translate("WAIT", e).getMessage()));
  }

  /** {@code connected_slaves} of an {@code INFO replication} answer (0 when absent). */
  static int connectedReplicas(String info) {
    for (String line : info.split("\r?\n")) {
      if (line.startsWith("connected_slaves:")) {
        return Integer.parseInt(line.substring("connected_slaves:".length()).strip());
      }
    }
    return 0;
  }

  private static List<BreakerEvent> toEvents(
      BreakerId id, List<StreamMessage<String, String>> msgs) {
    List<BreakerEvent> out = new ArrayList<>(msgs.size());
    for (StreamMessage<String, String> m : msgs) {
      out.add(new BreakerEvent(id, m.getId(), Map.copyOf(m.getBody())));
    }
    return out;
  }

  private CompletableFuture<List<Object>> run(
      BreakerScript script, BreakerId id, String actor, Policy policy, String... extra) {
    return evalsha(script, id.toString(), target(id).keys, scriptArgs(actor, policy, extra));
  }

  /**
   * A script's ARGV: the actor, the idle TTL (with the history hold when declared), the policy (or
   * none), then its own arguments.
   */
  private String[] scriptArgs(String actor, Policy policy, String... extra) {
    String[] args = new String[3 + extra.length];
    args[0] = actor;
    args[1] = expiryArg;
    args[2] =
        policy == null
            ? PolicyEncoding.NO_POLICY
            : policyArgs.computeIfAbsent(policy, PolicyEncoding::toArg);
    System.arraycopy(extra, 0, args, 3, extra.length);
    return args;
  }

  private CompletableFuture<List<Object>> evalsha(
      BreakerScript script, String target, String[] k, String[] args) {
    // One stage on the common path: the EVALSHA answer completes the result directly; only a
    // NOSCRIPT answer (a master that has not cached the script yet) sends the body with EVAL.
    CompletableFuture<List<Object>> result = new CompletableFuture<>();
    CompletionStage<List<Object>> first = batched(script, k, args);
    if (first == null) {
      first = commands.evalsha(script.sha(), ScriptOutputType.MULTI, k, args);
    }
    first.whenComplete(
        (v, e) -> {
          if (e == null) {
            result.complete(v);
          } else if (StoreErrors.unwrap(e) instanceof RedisNoScriptException) {
            RedisFuture<List<Object>> again =
                commands.eval(script.body(), ScriptOutputType.MULTI, k, args);
            again.whenComplete(
                (v2, e2) -> {
                  if (e2 == null) {
                    result.complete(v2);
                  } else {
                    result.completeExceptionally(StoreErrors.translate(label(script, target), e2));
                  }
                });
          } else {
            result.completeExceptionally(StoreErrors.translate(label(script, target), e));
          }
        });
    return result;
  }

  /**
   * The script calls of a {@link #batch} running on this thread, by the connection (the master)
   * they go to; null outside one.
   */
  private final ThreadLocal<
          Map<StatefulRedisConnection<String, String>, List<RedisCommand<String, String, ?>>>>
      batching = new ThreadLocal<>();

  /**
   * Sends the script calls {@code work} makes from this thread in one write per master: each
   * master's commands go to its connection together ({@code dispatch} of the list: one flush). On a
   * Cluster they go to the node connection of their slot's master; a command answered {@code MOVED}
   * or {@code ASK} (the slot moved meanwhile) goes again through the cluster connection, which
   * follows the redirect. Each call is bounded by the command timeout as alone.
   */
  @Override
  public void batch(Runnable work) {
    if (batching.get() != null) {
      work.run();
      return;
    }
    Map<StatefulRedisConnection<String, String>, List<RedisCommand<String, String, ?>>> pending =
        new LinkedHashMap<>();
    batching.set(pending);
    try {
      work.run();
    } finally {
      batching.remove();
      pending.forEach(
          (c, list) -> {
            try {
              c.dispatch(list);
            } catch (RuntimeException e) {
              list.forEach(cmd -> cmd.completeExceptionally(e));
            }
          });
    }
  }

  /** The call queued in the running batch, else null (no batch, or no master for its slot). */
  private CompletionStage<List<Object>> batched(BreakerScript script, String[] k, String[] args) {
    Map<StatefulRedisConnection<String, String>, List<RedisCommand<String, String, ?>>> pending =
        batching.get();
    if (pending == null) {
      return null;
    }
    StatefulRedisConnection<String, String> via = masterOf(k[0]);
    if (via == null) {
      return null;
    }
    AsyncCommand<String, String, List<Object>> cmd =
        new AsyncCommand<>(
            new Command<>(
                CommandType.EVALSHA,
                new NestedMultiOutput<>(StringCodec.UTF8),
                new CommandArgs<>(StringCodec.UTF8)
                    .add(script.sha())
                    .add(k.length)
                    .addKeys(k)
                    .addValues(args)));
    pending.computeIfAbsent(via, x -> new ArrayList<>()).add(cmd);
    return cmd.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
        .exceptionallyCompose(
            e ->
                cluster != null && redirected(e)
                    ? commands.evalsha(script.sha(), ScriptOutputType.MULTI, k, args)
                    : CompletableFuture.failedFuture(e));
  }

  /** The connection to the master holding {@code key}: the one connection when standalone. */
  @SuppressWarnings("unchecked")
  private StatefulRedisConnection<String, String> masterOf(String key) {
    if (cluster == null) {
      return (StatefulRedisConnection<String, String>) connection;
    }
    RedisClusterNode node = cluster.getPartitions().getPartitionBySlot(SlotHash.getSlot(key));
    if (node == null) {
      return null;
    }
    // Never waits for a connection on the flush tick (a master down in a failover would hold it a
    // connect timeout per call): one not open at once, or failed, sends the call alone through the
    // cluster connection, which routes and retries it.
    CompletableFuture<StatefulRedisConnection<String, String>> c =
        cluster.getConnectionAsync(node.getNodeId());
    return c.isDone() && !c.isCompletedExceptionally() ? c.join() : null;
  }

  private static boolean redirected(Throwable e) {
    Throwable t = StoreErrors.unwrap(e);
    String m = t instanceof RedisCommandExecutionException ? t.getMessage() : null;
    return m != null && (m.startsWith("MOVED") || m.startsWith("ASK"));
  }

  private static String label(BreakerScript script, String target) {
    return script.file().replace(".lua", "") + " " + target;
  }

  private static <T> CompletableFuture<T> guard(String action, CompletionStage<T> stage) {
    return stage
        .toCompletableFuture()
        .handle(
            (v, e) -> {
              if (e != null) {
                throw StoreErrors.translate(action, e);
              }
              return v;
            });
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

  @Override
  public void close() {
    if (owned != null) {
      try {
        owned.close();
      } catch (Exception e) {
        // closing a client must not fail the caller; the connection is gone either way
      }
    }
  }
}
