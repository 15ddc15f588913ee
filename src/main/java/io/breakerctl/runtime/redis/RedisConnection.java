package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.runtime.store.StoreUnavailableException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One store's Lettuce connection: the client, the connection and its async commands (the cluster
 * connection on a Cluster), the key layout and the command timeout. Shared by the node port ({@link
 * RedisBreakerStore}), the script runner and the operators' port ({@link RedisFleetStore}); opened
 * by {@link RedisConnector}. {@link #guard} turns a Lettuce failure into the store's kinds.
 */
final class RedisConnection {

  final AbstractRedisClient client;
  final StatefulConnection<String, String> connection;
  final RedisClusterAsyncCommands<String, String> commands;

  /** The cluster connection; null on a standalone server or behind Sentinel. */
  final StatefulRedisClusterConnection<String, String> cluster;

  /** The bound of each command, as configured. */
  final Duration timeout;

  final BreakerKeys keys;
  private final AutoCloseable owned;
  private volatile List<String> addresses = List.of();

  RedisConnection(
      AbstractRedisClient client,
      StatefulConnection<String, String> connection,
      RedisClusterAsyncCommands<String, String> commands,
      StatefulRedisClusterConnection<String, String> cluster,
      AutoCloseable owned,
      String prefix,
      Duration timeout) {
    this.client = client;
    this.connection = connection;
    this.commands = commands;
    this.cluster = cluster;
    this.owned = owned;
    this.keys = BreakerKeys.withPrefix(prefix);
    this.timeout = timeout;
  }

  /** The servers connected to ({@link RedisConnector#addressed}). */
  List<String> addresses() {
    return addresses;
  }

  void addresses(List<String> servers) {
    this.addresses = List.copyOf(servers);
  }

  /** The connection to the master holding {@code key}: the one connection when standalone. */
  @SuppressWarnings("unchecked")
  StatefulRedisConnection<String, String> masterOf(String key) {
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

  CompletableFuture<Long> timeAt(String key) {
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

  /** A new connection on this store's client, bounded by the command timeout. */
  WriteReadBack.Fresh fresh() {
    if (client instanceof RedisClusterClient cc) {
      StatefulRedisClusterConnection<String, String> c = cc.connect();
      c.setTimeout(timeout);
      return new WriteReadBack.Fresh(c, c.async());
    }
    StatefulRedisConnection<String, String> c = ((RedisClient) client).connect();
    c.setTimeout(timeout);
    return new WriteReadBack.Fresh(c, c.async());
  }

  static <T> CompletableFuture<T> guard(String action, CompletionStage<T> stage) {
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

  static void closeQuietly(StatefulConnection<?, ?> c) {
    if (c != null) {
      try {
        c.close();
      } catch (RuntimeException e) {
        // the connection is abandoned either way
      }
    }
  }

  /**
   * Closes what the connection owns (its client too, when {@link RedisConnector#connect} made it).
   */
  void close() {
    if (owned != null) {
      try {
        owned.close();
      } catch (Exception e) {
        // closing a client must not fail the caller; the connection is gone either way
      }
    }
  }

  /** The node id of the master owning the slot of {@code id}'s keys ({@link #UNOWNED}: none). */
  String shardOf(BreakerId id) {
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
  CompletableFuture<String> ping(String shard) {
    if (cluster == null) {
      return guard("PING", commands.ping());
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
}
