package io.breakerctl.cli.commands;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import io.breakerctl.cli.BreakerCtl;
import io.breakerctl.cli.FleetReader;
import io.breakerctl.cli.Settings;
import io.breakerctl.cli.output.Documents;
import io.breakerctl.cli.output.OutputOptions;
import io.breakerctl.cli.output.Table;
import io.breakerctl.runtime.Redaction;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.redis.BreakerScript;
import io.breakerctl.runtime.redis.RedisBreakerStore;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.api.sync.RedisScriptingCommands;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code breakerctl doctor}: one line per check of Redis, the scripts, ACLs and MongoDB. */
@Command(
    name = "doctor",
    description = {
      "Check the environment, one line per check: Redis reachable (latency), server versions,"
          + " cluster topology, this build's scripts cached on every master, Redis TIME vs the"
          + " local clock, the user's ACL permissions to read and to mutate, MongoDB reachable"
          + " (latency, version).",
      "Exit 1 when any check fails; warnings do not fail."
    })
public final class DoctorCommand implements Callable<Integer> {

  /**
   * One check's result ({@code kind: DoctorReport} items).
   *
   * @param check what was checked
   * @param status ok, warn or fail
   * @param detail what was found
   */
  public record Check(String check, String status, String detail) {}

  private static final String MUTATE_PROBE =
      "if not redis.acl_check_cmd then return 'unsupported' end\n"
          + "local k = KEYS[1]\n"
          + "local probes = {{'hset', k, 'f', 'v'}, {'hdel', k, 'f'}, {'hincrby', k, 'f', '1'},\n"
          + "  {'xadd', k, '*', 'f', 'v'}, {'xtrim', k, 'MAXLEN', '1'}, {'zadd', k, '1', 'm'},\n"
          + "  {'zrem', k, 'm'}, {'pexpire', k, '1'}, {'persist', k}, {'del', k},\n"
          + "  {'publish', ARGV[1], 'x'}}\n"
          + "local missing = {}\n"
          + "for _, p in ipairs(probes) do\n"
          + "  if not redis.acl_check_cmd(unpack(p)) then missing[#missing + 1] = p[1] end\n"
          + "end\n"
          + "return table.concat(missing, ',')\n";

  @Spec CommandSpec spec;

  @Mixin OutputOptions output;

  private final List<Check> checks = new ArrayList<>();

  @Override
  public Integer call() {
    BreakerCtl root = BreakerCtl.of(spec);
    Settings settings = root.services().settings();
    checkRedis(root, settings);
    checkMongo(settings);
    PrintWriter out = spec.commandLine().getOut();
    if (output.format().isTable()) {
      Table t = new Table("STATUS", "CHECK", "DETAIL");
      t.flexible(2);
      checks.forEach(c -> t.row(null, c.status(), c.check(), c.detail()));
      t.print(out, root.style(), output.headers());
    } else {
      try (Documents.ListWriter w = Documents.list(output.format(), "DoctorReport", out)) {
        checks.forEach(c -> w.item(c, c.check()));
      }
    }
    return checks.stream().anyMatch(c -> c.status().equals("fail")) ? 1 : 0;
  }

  private void add(String check, String status, String detail) {
    checks.add(new Check(check, status, detail));
  }

  private void checkRedis(BreakerCtl root, Settings settings) {
    RedisBreakerStore store;
    long t0 = System.nanoTime();
    try {
      store = root.services().redis();
    } catch (RuntimeException e) {
      add("redis", "fail", e.getMessage());
      return;
    }
    double connectMs = (System.nanoTime() - t0) / 1e6;
    List<StatefulRedisConnection<String, String>> masters = FleetReader.masters(store);
    List<String> versions = new ArrayList<>();
    double worst = 0;
    for (StatefulRedisConnection<String, String> m : masters) {
      RedisCommands<String, String> r = m.sync();
      long p0 = System.nanoTime();
      r.ping();
      worst = Math.max(worst, (System.nanoTime() - p0) / 1e6);
      versions.add(field(r.info("server"), "redis_version"));
    }
    add(
        "redis",
        "ok",
        String.format(
            "%s: %d master(s), connect %.1f ms, PING %.2f ms",
            Redaction.uri(settings.redis()), masters.size(), connectMs, worst));
    boolean old = versions.stream().anyMatch(v -> compare(v, "6.2") < 0);
    add(
        "redis version",
        old ? "fail" : "ok",
        String.join(", ", new TreeSet<>(versions)) + (old ? " (6.2 or newer required)" : ""));
    topology(store);
    scripts(masters);
    clock(masters.get(0));
    permissions(store, masters.get(0));
  }

  private void topology(RedisBreakerStore store) {
    if (!(store.connection() instanceof StatefulRedisClusterConnection<String, String> c)) {
      add("topology", "ok", "standalone (not a cluster)");
      return;
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
    add(
        "topology",
        ok ? "ok" : "fail",
        "cluster: "
            + masters
            + " master(s), "
            + slots
            + "/16384 slots covered"
            + (failing.isEmpty() ? "" : ", failing: " + failing));
  }

  private void scripts(List<StatefulRedisConnection<String, String>> masters) {
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
            missing.add(all[i].file() + " on :" + where(m));
          }
        }
      }
    } catch (RuntimeException e) {
      add("scripts", "warn", "cannot check (SCRIPT EXISTS refused: " + e.getMessage() + ")");
      return;
    }
    if (missing.isEmpty()) {
      add("scripts", "ok", all.length + " scripts of this build cached on every master");
    } else {
      add(
          "scripts",
          "warn",
          "not cached: "
              + String.join(", ", missing)
              + " (the store falls back to EVAL with the body on first use, which caches it)");
    }
  }

  private static String where(StatefulRedisConnection<String, String> m) {
    return field(m.sync().info("server"), "tcp_port");
  }

  private void clock(StatefulRedisConnection<String, String> m) {
    long before = System.currentTimeMillis();
    List<String> t = m.sync().time();
    long after = System.currentTimeMillis();
    long redis = Long.parseLong(t.get(0)) * 1000 + Long.parseLong(t.get(1)) / 1000;
    long skew = redis - (before + after) / 2;
    boolean ok = Math.abs(skew) <= 1000;
    add(
        "clock",
        ok ? "ok" : "warn",
        "Redis TIME - local clock = "
            + skew
            + " ms"
            + (ok ? "" : " (scripts use Redis time only; relative times shown here use it too)"));
  }

  private void permissions(RedisBreakerStore store, StatefulRedisConnection<String, String> m) {
    String probe = store.keys().prefix() + ":{doctor:probe}";
    try {
      RedisCommands<String, String> r = m.sync();
      r.scan(io.lettuce.core.ScanCursor.INITIAL, io.lettuce.core.ScanArgs.Builder.limit(1));
      r.hgetall(probe);
      r.zrangeWithScores(probe + ":leases", 0, -1);
      r.xrevrange(probe + ":ev", io.lettuce.core.Range.unbounded(), io.lettuce.core.Limit.from(1));
      r.time();
      add("acl read", "ok", "SCAN, HGETALL, ZRANGE, XREVRANGE, TIME permitted");
    } catch (RuntimeException e) {
      add("acl read", "fail", e.getMessage());
    }
    RedisScriptingCommands<String, String> async =
        store.connection() instanceof StatefulRedisClusterConnection<String, String> c
            ? c.sync()
            : FleetReader.masters(store).get(0).sync();
    try {
      async.evalsha(
          "0000000000000000000000000000000000000000",
          io.lettuce.core.ScriptOutputType.STATUS,
          probe);
    } catch (RuntimeException e) {
      String msg = String.valueOf(e.getMessage());
      if (!msg.startsWith("NOSCRIPT")) {
        add("acl mutate", "warn", "read-only user: " + msg + " (force needs the operator ACL)");
        return;
      }
    }
    try {
      Object r =
          async.eval(
              MUTATE_PROBE,
              io.lettuce.core.ScriptOutputType.VALUE,
              new String[] {probe},
              store.keys().channel());
      String missing = String.valueOf(r);
      if ("unsupported".equals(missing)) {
        add(
            "acl mutate",
            "ok",
            "EVALSHA and EVAL permitted (the scripts' own commands cannot be checked without writing on Redis 6.2)");
      } else if (missing.isEmpty()) {
        add("acl mutate", "ok", "EVALSHA, EVAL and every command the scripts run permitted");
      } else {
        add("acl mutate", "warn", "scripts would be refused: no permission for " + missing);
      }
    } catch (RuntimeException e) {
      add(
          "acl mutate",
          "warn",
          "EVALSHA permitted, EVAL refused ("
              + e.getMessage()
              + "): a master without the scripts cached cannot load them");
    }
  }

  private void checkMongo(Settings settings) {
    long ms = settings.timeout().toMillis();
    MongoClientSettings mcs =
        MongoClientSettings.builder()
            .applyConnectionString(new ConnectionString(settings.mongo()))
            .applyToClusterSettings(b -> b.serverSelectionTimeout(ms, TimeUnit.MILLISECONDS))
            .applyToSocketSettings(
                b ->
                    b.connectTimeout((int) ms, TimeUnit.MILLISECONDS)
                        .readTimeout((int) ms, TimeUnit.MILLISECONDS))
            .build();
    try (MongoClient client = MongoClients.create(mcs)) {
      long t0 = System.nanoTime();
      client.getDatabase("admin").runCommand(new Document("ping", 1));
      double pingMs = (System.nanoTime() - t0) / 1e6;
      Document info = client.getDatabase("admin").runCommand(new Document("buildInfo", 1));
      add(
          "mongodb",
          "ok",
          String.format(
              "%s: ping %.1f ms, version %s",
              Redaction.uri(settings.mongo()), pingMs, info.getString("version")));
    } catch (RuntimeException e) {
      add("mongodb", "fail", Redaction.uri(settings.mongo()) + ": " + ControlDatabase.describe(e));
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
