package io.breakerctl.runtime.redis;

import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * One small key per master, {@code <prefix>:canary:{<tag>}} with a tag in that master's slots (the
 * plain {@code <prefix>:canary} when standalone), holding a random token that no script touches and
 * nothing expires. Its fingerprint, {@code master=token} for every master, changes when a master
 * lost its data without closing a connection (FLUSHALL, FLUSHDB, a restart without persistence seen
 * through a proxy) or when the slots moved to another master (a Cluster failover: the promoted
 * replica is another node). A node whose pub/sub connection stays up misses no message (Redis
 * closes a subscriber it cannot keep up with), so this check, one GET per master every {@code
 * checkInterval}, is what stands between such a silent loss and the node: when the fingerprint
 * moves, the node checks every breaker's stamp.
 *
 * <p>A missing canary is created ({@code SET NX}) by the first node that looks; the others then
 * read its token, so every node sees the change once.
 */
final class StoreCanary {
  private final BreakerKeys keys;
  private final RedisClusterAsyncCommands<String, String> commands;
  private final StatefulRedisClusterConnection<String, String> cluster;

  StoreCanary(
      BreakerKeys keys,
      RedisClusterAsyncCommands<String, String> commands,
      StatefulRedisClusterConnection<String, String> cluster) {
    this.keys = keys;
    this.commands = commands;
    this.cluster = cluster;
  }

  /** The fingerprint of every master's canary, in a stable order. */
  CompletableFuture<String> fingerprint() {
    List<String[]> canaries = canaries();
    List<CompletableFuture<String>> reads = new ArrayList<>(canaries.size());
    for (String[] c : canaries) {
      String master = c[1];
      reads.add(token(c[0]).thenApply(t -> master + "=" + t));
    }
    return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new))
        .thenApply(
            v -> {
              StringBuilder out = new StringBuilder();
              for (CompletableFuture<String> r : reads) {
                out.append(out.length() == 0 ? "" : ",").append(r.join());
              }
              return out.toString();
            });
  }

  /** {key, master} of every master's canary: one key in the slots of each live master. */
  List<String[]> canaries() {
    if (cluster == null) {
      return List.<String[]>of(new String[] {keys.prefix() + ":canary", "standalone"});
    }
    List<RedisClusterNode> masters = new ArrayList<>();
    for (RedisClusterNode n : cluster.getPartitions()) {
      if (n.is(RedisClusterNode.NodeFlag.UPSTREAM)
          && !n.is(RedisClusterNode.NodeFlag.FAIL)
          && !n.getSlots().isEmpty()) {
        masters.add(n);
      }
    }
    masters.sort((a, b) -> a.getNodeId().compareTo(b.getNodeId()));
    List<String[]> out = new ArrayList<>(masters.size());
    for (RedisClusterNode m : masters) {
      // the first tag whose slot this master serves (a few dozen tries for any master)
      for (int tag = 0; tag < 1_000_000; tag++) {
        String key = keys.prefix() + ":canary:{" + tag + "}";
        if (m.hasSlot(SlotHash.getSlot(key))) {
          out.add(new String[] {key, m.getNodeId()});
          break;
        }
      }
    }
    return out;
  }

  private CompletableFuture<String> token(String key) {
    return commands
        .get(key)
        .toCompletableFuture()
        .thenCompose(
            t -> {
              if (t != null) {
                return CompletableFuture.completedFuture(t);
              }
              String mine = UUID.randomUUID().toString();
              return commands
                  .set(key, mine, SetArgs.Builder.nx())
                  .toCompletableFuture()
                  .thenCompose(
                      ok ->
                          ok != null
                              ? CompletableFuture.completedFuture(mine)
                              : commands
                                  .get(key)
                                  .toCompletableFuture()
                                  .thenApply(w -> w == null ? "" : w));
            });
  }
}
