package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.store.BreakerStore.Subscription;
import io.breakerctl.runtime.store.StoreUnavailableException;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A node's subscription to the fleet's messages ({@code <prefix>:events}) and to a beacon channel
 * of its own, on a connection of its own ({@link RedisBreakerStore#subscribe}).
 */
final class EventSubscription {
  private EventSubscription() {}

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
  static Subscription open(
      RedisConnection conn, Consumer<String> onMessage, Runnable onSubscribed) {
    String events = conn.keys.channel();
    String beacon =
        events
            + ":beacon:"
            + Long.toString(java.util.concurrent.ThreadLocalRandom.current().nextLong() >>> 1, 36);
    RedisPubSubAdapter<String, String> listener =
        new RedisPubSubAdapter<>() {
          public void message(String channel, String message) {
            onMessage.accept(message);
          }

          public void subscribed(String channel, long count) {
            if (events.equals(channel)) {
              onSubscribed.run();
            }
          }
        };
    StatefulConnection<String, String> owned = null;
    try {
      StatefulRedisPubSubConnection<String, String> pubsub;
      if (conn.client instanceof RedisClusterClient cc) {
        StatefulRedisClusterPubSubConnection<String, String> cluster = cc.connectPubSub();
        owned = cluster;
        cluster.setNodeMessagePropagation(true);
        cluster.addListener(listener);
        pubsub = cluster.getConnection(subscriptionMaster(cluster.getPartitions()));
      } else {
        pubsub = ((RedisClient) conn.client).connectPubSub();
        owned = pubsub;
        pubsub.addListener(listener);
      }
      pubsub
          .async()
          .subscribe(events, beacon)
          .get(conn.timeout.toMillis() + 100, TimeUnit.MILLISECONDS);
      StatefulRedisPubSubConnection<String, String> c = pubsub;
      StatefulConnection<String, String> closing = owned;
      return new Subscription() {
        public boolean isOpen() {
          return c.isOpen();
        }

        public CompletableFuture<Long> publish(String message) {
          return RedisConnection.guard("publish", conn.commands.publish(events, message));
        }

        public CompletableFuture<Long> beacon(String message) {
          return RedisConnection.guard("publish", conn.commands.publish(beacon, message));
        }

        public void close() {
          closing.close();
        }
      };
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      RedisConnection.closeQuietly(owned);
      throw new StoreUnavailableException("subscribe to " + events + " interrupted", e);
    } catch (Exception e) {
      RedisConnection.closeQuietly(owned);
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
}
