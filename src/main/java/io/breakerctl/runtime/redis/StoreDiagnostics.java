package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.store.FleetScan;
import io.breakerctl.runtime.store.StoreCheck;
import io.breakerctl.runtime.store.StoreCheck.Status;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.api.sync.RedisScriptingCommands;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * The checks {@code breakerctl doctor} runs on Redis, one result each: reachability and latency,
 * server versions, cluster topology, this build's scripts cached on every master, Redis TIME
 * against the local clock, and the user's ACL permissions to read and to mutate (the probe script
 * {@code acl-probe.lua}, which executes none of the commands it checks), and the nodes that report
 * themselves degraded with their reasons ({@link NodeDiagnostics#nodes}). Nothing is written.
 */
public final class StoreDiagnostics {
  private StoreDiagnostics() {}

  private static final String ACL_PROBE = BreakerScript.source("acl-probe.lua");

  /**
   * Runs every check on {@code store}.
   *
   * @param where the redacted address to name in the first check
   * @param connectMillis how long connecting took
   */
  public static List<StoreCheck> run(RedisFleetStore store, String where, double connectMillis) {
    List<StoreCheck> checks = new ArrayList<>();
    List<StatefulRedisConnection<String, String>> masters = new ArrayList<>();
    List<FleetScan.Missing> unread;
    try {
      unread = FleetReader.reachable(store, store.commandTimeout(), masters).missing();
    } catch (RuntimeException e) {
      checks.add(
          new StoreCheck("redis", Status.FAIL, StoreErrors.translate(where, e).getMessage()));
      return checks;
    }
    if (!unread.isEmpty()) {
      checks.add(
          new StoreCheck(
              "redis",
              Status.FAIL,
              where + ": part of the keyspace cannot be read: " + FleetScan.describe(unread)));
      if (masters.isEmpty()) {
        return checks;
      }
    }
    List<String> versions = new ArrayList<>();
    double worst = 0;
    try {
      for (StatefulRedisConnection<String, String> m : masters) {
        RedisCommands<String, String> r = m.sync();
        long p0 = System.nanoTime();
        r.ping();
        worst = Math.max(worst, (System.nanoTime() - p0) / 1e6);
        versions.add(field(r.info("server"), "redis_version"));
      }
    } catch (RuntimeException e) {
      checks.add(
          new StoreCheck("redis", Status.FAIL, StoreErrors.translate(where, e).getMessage()));
      return checks;
    }
    checks.add(
        new StoreCheck(
            "redis",
            Status.OK,
            String.format(
                "%s: %d master(s), connect %.1f ms, PING %.2f ms",
                where, masters.size(), connectMillis, worst)));
    boolean old = versions.stream().anyMatch(v -> compare(v, "6.2") < 0);
    checks.add(
        new StoreCheck(
            "redis version",
            old ? Status.FAIL : Status.OK,
            String.join(", ", new TreeSet<>(versions)) + (old ? " (6.2 or newer required)" : "")));
    checks.add(topology(store));
    checks.add(replication(masters));
    checks.add(scripts(masters));
    checks.add(clock(masters.get(0)));
    checks.add(eviction(masters));
    permissions(store, masters.get(0), checks);
    return checks;
  }

  /**
   * Fails when a master may evict breaker keys ({@link RedisFleetStore#evictionRisk(String,
   * String)}); a warning when {@code CONFIG GET} is refused (no {@code @admin}), since it could not
   * be checked.
   */
  private static StoreCheck eviction(List<StatefulRedisConnection<String, String>> masters) {
    List<String> risks = new ArrayList<>();
    for (StatefulRedisConnection<String, String> m : masters) {
      try {
        RedisCommands<String, String> r = m.sync();
        java.util.Map<String, String> config = r.configGet("maxmemory*");
        String max = config.get("maxmemory");
        String policy = config.get("maxmemory-policy");
        String port = field(r.info("server"), "tcp_port");
        RedisFleetStore.evictionRisk(max, policy)
            .ifPresent(why -> risks.add(":" + port + ": " + why));
      } catch (RuntimeException e) {
        return new StoreCheck(
            "eviction",
            Status.WARN,
            "CONFIG GET maxmemory-policy refused ("
                + e.getMessage()
                + "): whether Redis may evict breaker keys is not checked");
      }
    }
    return risks.isEmpty()
        ? new StoreCheck(
            "eviction", Status.OK, "no master evicts keys (noeviction, or no maxmemory)")
        : new StoreCheck("eviction", Status.FAIL, String.join("; ", risks));
  }

  /**
   * Each master's replicas with their state and lag ({@code INFO replication}), and whether
   * anything guards against writes lost in a failover: Redis replicates asynchronously, so an
   * override a master acknowledged can be gone on the replica promoted after it (issue 42: `force`
   * answered SET, the keys were gone after the failover). A WARN when a master has replicas and
   * {@code min-replicas-to-write} is 0 (unset), or a replica is not online or lags over 10 s; the
   * setting unreadable (no {@code CONFIG GET}) is said, not judged.
   */
  private static StoreCheck replication(List<StatefulRedisConnection<String, String>> masters) {
    List<String> each = new ArrayList<>();
    List<String> warnings = new ArrayList<>();
    for (StatefulRedisConnection<String, String> m : masters) {
      RedisCommands<String, String> r = m.sync();
      String info;
      String port;
      try {
        info = r.info("replication");
        port = field(r.info("server"), "tcp_port");
      } catch (RuntimeException e) {
        return new StoreCheck(
            "replication", Status.WARN, "INFO replication refused: " + e.getMessage());
      }
      List<String> replicas = new ArrayList<>();
      for (String line : info.split("\r?\n")) {
        if (line.matches("slave\\d+:.*")) {
          java.util.Map<String, String> kv = new java.util.HashMap<>();
          for (String pair : line.substring(line.indexOf(':') + 1).split(",")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
              kv.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
          }
          String replica = kv.get("ip") + ":" + kv.get("port");
          String state = kv.getOrDefault("state", "?");
          long lag = parseLong(kv.get("lag"), -1);
          replicas.add(replica + " " + state + " lag " + lag + " s");
          if (!state.equals("online") || lag > 10) {
            warnings.add(replica + " of :" + port + " is " + state + ", lag " + lag + " s");
          }
        }
      }
      String min;
      try {
        min = r.configGet("min-replicas-to-write").getOrDefault("min-replicas-to-write", "0");
      } catch (RuntimeException e) {
        min = null;
      }
      if (!replicas.isEmpty() && "0".equals(min)) {
        warnings.add(
            ":"
                + port
                + " has min-replicas-to-write 0: a write it acknowledged (an override) can be lost"
                + " in a failover");
      }
      each.add(
          ":"
              + port
              + (replicas.isEmpty()
                  ? " no replicas"
                  : " " + replicas.size() + " replica(s) (" + String.join(", ", replicas) + ")")
              + (min == null
                  ? ", min-replicas-to-write unreadable (CONFIG GET refused)"
                  : ", min-replicas-to-write " + min));
    }
    String detail = String.join("; ", each);
    return warnings.isEmpty()
        ? new StoreCheck("replication", Status.OK, detail)
        : new StoreCheck(
            "replication",
            Status.WARN,
            String.join("; ", warnings)
                + " (set min-replicas-to-write 1 and min-replicas-max-lag 10 to refuse writes no"
                + " replica takes) | "
                + detail);
  }

  private static long parseLong(String s, long otherwise) {
    try {
      return s == null ? otherwise : Long.parseLong(s.trim());
    } catch (NumberFormatException e) {
      return otherwise;
    }
  }

  private static StoreCheck topology(RedisFleetStore store) {
    if (!(store.connection() instanceof StatefulRedisClusterConnection<String, String> c)) {
      List<String> sentinels = store.addresses().stream().filter(a -> a.contains("/")).toList();
      if (!sentinels.isEmpty()) {
        String master = sentinels.get(0).substring(sentinels.get(0).indexOf('/') + 1);
        return new StoreCheck(
            "topology",
            Status.OK,
            "sentinel: master set '"
                + master
                + "' through "
                + sentinels.size()
                + " sentinel(s) ("
                + String.join(
                    ", ", sentinels.stream().map(a -> a.substring(0, a.indexOf('/'))).toList())
                + ")");
      }
      return new StoreCheck("topology", Status.OK, "standalone (not a cluster)");
    }
    int slots = 0;
    int masters = 0;
    List<String> failing = new ArrayList<>();
    for (RedisClusterNode n : c.getPartitions()) {
      if (n.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
        masters++;
        slots += n.getSlots().size();
      }
      if (n.is(RedisClusterNode.NodeFlag.FAIL) || n.is(RedisClusterNode.NodeFlag.EVENTUAL_FAIL)) {
        failing.add(n.getUri().getHost() + ":" + n.getUri().getPort());
      }
    }
    boolean ok = slots == 16384 && failing.isEmpty();
    return new StoreCheck(
        "topology",
        ok ? Status.OK : Status.FAIL,
        "cluster: "
            + masters
            + " master(s), "
            + slots
            + "/16384 slots covered"
            + (failing.isEmpty() ? "" : ", failing: " + failing));
  }

  private static StoreCheck scripts(List<StatefulRedisConnection<String, String>> masters) {
    BreakerScript[] all = BreakerScript.values();
    String[] shas = new String[all.length];
    for (int i = 0; i < all.length; i++) {
      shas[i] = all[i].sha();
    }
    List<String> missing = new ArrayList<>();
    try {
      for (StatefulRedisConnection<String, String> m : masters) {
        List<Boolean> exists = m.sync().scriptExists(shas);
        for (int i = 0; i < all.length; i++) {
          if (!exists.get(i)) {
            missing.add(all[i].file() + " on :" + field(m.sync().info("server"), "tcp_port"));
          }
        }
      }
    } catch (RuntimeException e) {
      return new StoreCheck(
          "scripts", Status.WARN, "cannot check (SCRIPT EXISTS refused: " + e.getMessage() + ")");
    }
    if (missing.isEmpty()) {
      return new StoreCheck(
          "scripts", Status.OK, all.length + " scripts of this build cached on every master");
    }
    return new StoreCheck(
        "scripts",
        Status.WARN,
        "not cached: "
            + String.join(", ", missing)
            + " (the store falls back to EVAL with the body on first use, which caches it)");
  }

  private static StoreCheck clock(StatefulRedisConnection<String, String> m) {
    long before = System.currentTimeMillis();
    List<String> t = m.sync().time();
    long after = System.currentTimeMillis();
    long redis = Long.parseLong(t.get(0)) * 1000 + Long.parseLong(t.get(1)) / 1000;
    long skew = redis - (before + after) / 2;
    boolean ok = Math.abs(skew) <= 1000;
    return new StoreCheck(
        "clock",
        ok ? Status.OK : Status.WARN,
        "Redis TIME - local clock = "
            + skew
            + " ms"
            + (ok ? "" : " (scripts use Redis time only; relative times shown here use it too)"));
  }

  private static void permissions(
      RedisFleetStore store, StatefulRedisConnection<String, String> m, List<StoreCheck> checks) {
    BreakerKeys keys = store.keys();
    String probe = keys.prefix() + ":{doctor:probe}";
    try {
      // keyed reads through the cluster connection, which routes them to the probe key's master
      // (a master's own connection answered MOVED whenever another master held that slot)
      io.lettuce.core.cluster.api.sync.RedisClusterCommands<String, String> r =
          store.connection() instanceof StatefulRedisClusterConnection<String, String> c
              ? c.sync()
              : m.sync();
      r.scan(ScanCursor.INITIAL, ScanArgs.Builder.limit(1));
      r.hgetall(probe);
      r.zrangeWithScores(probe + ":leases", 0, -1);
      r.xrevrange(probe + ":ev", Range.unbounded(), Limit.from(1));
      r.time();
      checks.add(
          new StoreCheck(
              "acl read", Status.OK, "SCAN, HGETALL, ZRANGE, XREVRANGE, TIME permitted"));
    } catch (RuntimeException e) {
      checks.add(new StoreCheck("acl read", Status.FAIL, e.getMessage()));
    }
    RedisScriptingCommands<String, String> scripting =
        store.connection() instanceof StatefulRedisClusterConnection<String, String> c
            ? c.sync()
            : m.sync();
    try {
      scripting.evalsha("0000000000000000000000000000000000000000", ScriptOutputType.STATUS, probe);
    } catch (RuntimeException e) {
      String msg = String.valueOf(e.getMessage());
      if (!msg.startsWith("NOSCRIPT")) {
        checks.add(
            new StoreCheck(
                "acl mutate",
                Status.WARN,
                "read-only user: " + msg + " (force needs the operator ACL)"));
        return;
      }
    }
    try {
      Object r =
          scripting.eval(ACL_PROBE, ScriptOutputType.VALUE, new String[] {probe}, keys.channel());
      String missing = String.valueOf(r);
      if ("unsupported".equals(missing)) {
        checks.add(
            new StoreCheck(
                "acl mutate",
                Status.OK,
                "EVALSHA and EVAL permitted (the scripts' own commands cannot be checked without"
                    + " writing on Redis 6.2)"));
      } else if (missing.isEmpty()) {
        checks.add(
            new StoreCheck(
                "acl mutate",
                Status.OK,
                "EVALSHA, EVAL and every command the scripts run permitted"));
      } else {
        checks.add(
            new StoreCheck(
                "acl mutate",
                Status.WARN,
                "scripts would be refused: no permission for " + missing));
      }
    } catch (RuntimeException e) {
      checks.add(
          new StoreCheck(
              "acl mutate",
              Status.WARN,
              "EVALSHA permitted, EVAL refused ("
                  + e.getMessage()
                  + "): a master without the scripts cached cannot load them"));
    }
  }

  private static String field(String info, String name) {
    for (String line : info.split("\r?\n")) {
      if (line.startsWith(name + ":")) {
        return line.substring(name.length() + 1).trim();
      }
    }
    return "?";
  }

  private static int compare(String version, String min) {
    String[] a = version.split("\\.");
    String[] b = min.split("\\.");
    for (int i = 0; i < 2; i++) {
      int x = i < a.length && a[i].matches("\\d+") ? Integer.parseInt(a[i]) : 0;
      int y = Integer.parseInt(b[i]);
      if (x != y) {
        return Integer.compare(x, y);
      }
    }
    return 0;
  }
}
