package io.breakerctl.cli;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.BreakerKeys;
import io.breakerctl.runtime.redis.BreakerSnapshot;
import io.breakerctl.runtime.redis.NodeHeartbeat;
import io.breakerctl.runtime.redis.ProbeLease;
import io.breakerctl.runtime.redis.RedisBreakerStore;
import io.breakerctl.runtime.redis.StoreException;
import io.breakerctl.runtime.redis.StorePermissionException;
import io.breakerctl.runtime.redis.StoreUnavailableException;
import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Reads the whole fleet without a script: on every master, {@code SCAN MATCH <prefix>:{glob} TYPE
 * hash} with a large COUNT, then pipelined reads in batches ({@code HGETALL} of the state hash and
 * of the heartbeats, {@code TIME}; the leases only of half-open breakers). Snapshots go to the sink
 * batch by batch, so memory stays flat. Needs only the viewer ACL.
 */
public final class FleetReader {
  /** SCAN COUNT per page. */
  static final int SCAN_COUNT = 5000;

  private final RedisBreakerStore store;
  private final BreakerKeys keys;
  private final Duration timeout;
  private final int batch;

  /** A reader over {@code store}; each round trip bounded by {@code timeout}. */
  public FleetReader(RedisBreakerStore store, Duration timeout, int batch) {
    this.store = store;
    this.keys = store.keys();
    this.timeout = timeout;
    this.batch = batch;
  }

  /** Calls {@code sink} with the id of every selected breaker that has keys. */
  public void ids(BreakerSelector selector, Consumer<BreakerId> sink) {
    for (StatefulRedisConnection<String, String> c : masters()) {
      scan(c, selector, ids -> ids.forEach(sink));
    }
  }

  /** Calls {@code sink} with a snapshot (no events) of every selected breaker. */
  public void snapshots(BreakerSelector selector, Consumer<BreakerSnapshot> sink) {
    for (StatefulRedisConnection<String, String> c : masters()) {
      scan(c, selector, ids -> read(c, ids, sink));
    }
  }

  private List<StatefulRedisConnection<String, String>> masters() {
    return masters(store);
  }

  /** A connection to every master (the one server when standalone). */
  public static List<StatefulRedisConnection<String, String>> masters(RedisBreakerStore store) {
    StatefulConnection<String, String> c = store.connection();
    List<StatefulRedisConnection<String, String>> out = new ArrayList<>();
    if (c instanceof StatefulRedisClusterConnection<String, String> cluster) {
      for (RedisClusterNode node : cluster.getPartitions()) {
        if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
          out.add(cluster.getConnection(node.getNodeId()));
        }
      }
    } else {
      @SuppressWarnings("unchecked")
      StatefulRedisConnection<String, String> single = (StatefulRedisConnection<String, String>) c;
      out.add(single);
    }
    return out;
  }

  private void scan(
      StatefulRedisConnection<String, String> c,
      BreakerSelector selector,
      Consumer<List<BreakerId>> onBatch) {
    KeyScanArgs args =
        KeyScanArgs.Builder.matches(selector.scanGlob(keys.prefix()))
            .type("hash")
            .limit(SCAN_COUNT);
    ScanCursor cursor = ScanCursor.INITIAL;
    List<BreakerId> pending = new ArrayList<>();
    do {
      KeyScanCursor<String> page = await(c.async().scan(cursor, args), "scan breakers");
      for (String key : page.getKeys()) {
        keys.idOf(key).filter(selector::matches).ifPresent(pending::add);
        if (pending.size() >= batch) {
          onBatch.accept(pending);
          pending = new ArrayList<>();
        }
      }
      cursor = page;
    } while (!cursor.isFinished());
    if (!pending.isEmpty()) {
      onBatch.accept(pending);
    }
  }

  private void read(
      StatefulRedisConnection<String, String> c,
      List<BreakerId> ids,
      Consumer<BreakerSnapshot> sink) {
    RedisAsyncCommands<String, String> a = c.async();
    List<RedisFuture<Map<String, String>>> hashes = new ArrayList<>(ids.size());
    List<RedisFuture<Map<String, String>>> beats = new ArrayList<>(ids.size());
    RedisFuture<List<String>> time;
    c.setAutoFlushCommands(false);
    try {
      time = a.time();
      for (BreakerId id : ids) {
        hashes.add(a.hgetall(keys.hash(id)));
        beats.add(a.hgetall(keys.nodeInfo(id)));
      }
      c.flushCommands();
    } finally {
      c.setAutoFlushCommands(true);
    }
    List<String> t = await(time, "read Redis TIME");
    long now = Long.parseLong(t.get(0)) * 1000 + Long.parseLong(t.get(1)) / 1000;
    List<BreakerSnapshot> snaps = new ArrayList<>(ids.size());
    List<Integer> halfOpen = new ArrayList<>();
    for (int i = 0; i < ids.size(); i++) {
      Map<String, String> fields = await(hashes.get(i), "read " + ids.get(i));
      Map<String, String> info = await(beats.get(i), "read heartbeats of " + ids.get(i));
      if (fields.isEmpty() && info.isEmpty()) {
        snaps.add(null); // deleted since the scan
        continue;
      }
      List<NodeHeartbeat> nodes = new ArrayList<>(info.size());
      info.forEach((node, json) -> nodes.add(NodeHeartbeat.parse(node, json, 0)));
      nodes.sort(Comparator.comparingLong(NodeHeartbeat::atMillis));
      BreakerSnapshot s =
          new BreakerSnapshot(
              ids.get(i), new LinkedHashMap<>(fields), List.of(), List.of(), nodes, now);
      if (s.effectiveState() == State.HALF_OPEN) {
        halfOpen.add(i);
      }
      snaps.add(s);
    }
    if (!halfOpen.isEmpty()) {
      List<RedisFuture<List<ScoredValue<String>>>> leases = new ArrayList<>();
      for (int i : halfOpen) {
        leases.add(a.zrangeWithScores(keys.leases(ids.get(i)), 0, -1));
      }
      for (int j = 0; j < halfOpen.size(); j++) {
        BreakerSnapshot s = snaps.get(halfOpen.get(j));
        List<ProbeLease> ls = new ArrayList<>();
        for (ScoredValue<String> sv : await(leases.get(j), "read leases of " + s.id())) {
          String m = sv.getValue();
          int bar = m.indexOf('|');
          ls.add(
              new ProbeLease(
                  bar < 0 ? m : m.substring(0, bar),
                  bar < 0 ? "" : m.substring(bar + 1),
                  (long) sv.getScore()));
        }
        snaps.set(
            halfOpen.get(j),
            new BreakerSnapshot(s.id(), s.fields(), List.copyOf(ls), List.of(), s.nodes(), now));
      }
    }
    for (BreakerSnapshot s : snaps) {
      if (s != null) {
        sink.accept(s);
      }
    }
  }

  private <T> T await(RedisFuture<T> f, String action) {
    try {
      return f.get(timeout.toMillis() + 100, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreUnavailableException(action + ": interrupted", e);
    } catch (TimeoutException e) {
      throw new StoreUnavailableException(action + ": Redis did not answer in " + timeout, e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      String msg = String.valueOf(cause.getMessage());
      if (msg.contains("NOPERM") || msg.startsWith("WRONGPASS") || msg.startsWith("NOAUTH")) {
        throw new StorePermissionException(action + ": permission denied: " + msg, cause);
      }
      if (cause instanceof RedisCommandTimeoutException
          || cause instanceof RedisConnectionException) {
        throw new StoreUnavailableException(action + ": Redis unavailable: " + msg, cause);
      }
      throw new StoreException(action + ": " + msg, cause);
    }
  }
}
