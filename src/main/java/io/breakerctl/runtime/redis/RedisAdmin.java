package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.store.ReplicaAcks;
import io.breakerctl.runtime.store.StorePermissionException;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * What a store can tell about its user and its Redis without changing anything: whether the user
 * may override a breaker (a dry run exits as the real run would) or administer Redis, whether Redis
 * may evict breaker keys, and how many replicas acknowledged this store's writes. The operators'
 * port ({@link RedisFleetStore}) answers with it.
 */
final class RedisAdmin {
  private final RedisConnection conn;

  RedisAdmin(RedisConnection conn) {
    this.conn = conn;
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
  CompletableFuture<Void> checkOverridePermission(BreakerId id) {
    String[] k = conn.keys.scriptKeys(id);
    CompletableFuture<Void> result = new CompletableFuture<>();
    conn.commands
        .evalsha(NO_SUCH_SCRIPT, ScriptOutputType.STATUS, k, ScriptRunner.NO_ARGS)
        .whenComplete(
            (v, e) -> {
              Throwable err = e == null ? null : StoreErrors.unwrap(e);
              if (err != null && !(err instanceof RedisNoScriptException)) {
                result.completeExceptionally(StoreErrors.translate("override " + id, err));
                return;
              }
              conn.commands
                  .eval(OVERRIDE_ACL_PROBE, ScriptOutputType.VALUE, k, conn.keys.channel())
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

  private static final String NO_SUCH_SCRIPT = "0000000000000000000000000000000000000000";

  /**
   * The ACL user a connection made with these settings authenticates as: {@code username}, else the
   * first URI's user, else {@code default} when a password alone is given (Redis's user for a bare
   * {@code AUTH password}); empty when no credentials are given (the connection sends no AUTH).
   */
  static Optional<String> authenticatedUser(String uris, String username, String password) {
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
  CompletableFuture<Void> checkAdminPermission(String what) {
    CompletableFuture<Void> result = new CompletableFuture<>();
    conn.commands
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
  CompletableFuture<Optional<String>> evictionRisk() {
    return RedisConnection.guard(
        "read maxmemory",
        conn.commands
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
  static Optional<String> evictionRisk(String maxmemory, String policy) {
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
  Map<BreakerId, CompletableFuture<ReplicaAcks>> replicaAcks(Collection<BreakerId> ids) {
    long waitMillis = Math.max(1, conn.timeout.toMillis() * 3 / 4);
    Map<String, CompletableFuture<ReplicaAcks>> byMaster = new HashMap<>();
    Map<BreakerId, CompletableFuture<ReplicaAcks>> out = new LinkedHashMap<>();
    for (BreakerId id : ids) {
      CompletableFuture<ReplicaAcks> acks;
      if (conn.cluster == null) {
        acks = byMaster.computeIfAbsent("", m -> replicaAcks(conn.commands, waitMillis));
      } else {
        RedisClusterNode node =
            conn.cluster.getPartitions().getPartitionBySlot(SlotHash.getSlot(conn.keys.hash(id)));
        if (node == null) {
          acks = CompletableFuture.completedFuture(ReplicaAcks.unknown("no master owns its slot"));
        } else {
          RedisURI u = node.getUri();
          acks =
              byMaster.computeIfAbsent(
                  u.getHost() + ":" + u.getPort(),
                  m ->
                      conn.cluster
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
    return RedisConnection.guard("INFO replication", on.info("replication"))
        .thenCompose(
            info -> {
              int connected = connectedReplicas(info);
              if (connected == 0) {
                return CompletableFuture.completedFuture(new ReplicaAcks(0, 0, ""));
              }
              return RedisConnection.guard("WAIT", on.waitForReplication(connected, waitMillis))
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
}
