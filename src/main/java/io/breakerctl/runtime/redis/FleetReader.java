package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.FleetScan;
import io.breakerctl.runtime.store.FleetSelection;
import io.breakerctl.runtime.store.NodeLiveness;
import io.breakerctl.runtime.store.StoreException;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.runtime.store.StorePermissionException;
import io.breakerctl.runtime.store.StoreUnavailableException;
import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Reads the whole fleet without a script: on every master, {@code SCAN MATCH <prefix>:{glob} TYPE
 * hash} with a large COUNT, then pipelined reads in batches ({@code HGETALL} of the state hash and
 * {@code TIME}; then the heartbeats only of breakers whose nodes report and the leases only of
 * half-open breakers: see {@link FleetPipeline}). Snapshots go to the sink batch by batch, so
 * memory stays flat. Needs only the viewer ACL. Every failure arrives as a {@link StoreException}
 * translated in {@link StoreErrors}, as the store's own.
 *
 * <p>This is the runtime's read API for whole fleets: the CLI reads through it and never touches a
 * connection or a key name.
 */
public final class FleetReader implements FleetScan {
  /** SCAN COUNT per page. */
  static final int SCAN_COUNT = 5000;

  /** Batches of reads in flight per master. */
  static final int WINDOW = 4;

  private final RedisFleetStore store;
  final BreakerKeys keys;
  final Duration timeout;
  private final long deadline;
  final int batch;
  final String keyHead;

  /** What this reader could not read, by node and slots, in the order found. */
  private final Map<String, Missing> missing = new LinkedHashMap<>();

  /** How many times a part was found missing; whether the topology was read again. */
  private int misses;

  private boolean refreshed;

  /**
   * A reader over {@code store}. {@code timeout} bounds the reader as a whole: every wait, for a
   * node's connection or a reply, ends when the timeout since this reader was made has passed; a
   * master that does not answer in that time is left out and named in {@link #missing()}.
   */
  public FleetReader(RedisFleetStore store, Duration timeout, int batch) {
    this.store = store;
    this.keys = store.keys();
    this.timeout = timeout;
    this.deadline = System.nanoTime() + timeout.toNanos();
    this.batch = batch;
    this.keyHead = keys.prefix() + ":{";
  }

  /**
   * What the reads so far could not reach (a master down, failed or not answering in time, slots no
   * master holds): empty when the whole keyspace was read. A read that leaves part of the keyspace
   * out goes on with the rest; the caller says what is missing.
   */
  @Override
  public List<Missing> missing() {
    return List.copyOf(missing.values());
  }

  /**
   * For a caller whose answer needs every breaker (a drift check, whether an id is known, a wait):
   * fails when the reads so far left part of the keyspace out.
   *
   * @throws StoreUnavailableException naming the slots and nodes not read
   */
  @Override
  public void requireComplete() {
    if (!missing.isEmpty()) {
      throw new StoreUnavailableException(
          "Redis unavailable for part of the keyspace: not read: " + FleetScan.describe(missing()),
          null);
    }
  }

  /** What is left of this reader's timeout (zero once it has passed). */
  @Override
  public Duration remaining() {
    return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
  }

  /** Calls {@code sink} with the id of every selected breaker that has keys. */
  @Override
  public void ids(FleetSelection selector, Consumer<BreakerId> sink) {
    for (Master m : masters()) {
      read(m, () -> scan(m.connection(), selector, ids -> ids.forEach(sink)));
    }
  }

  /**
   * Runs one master's read; a master that fails as unavailable (unreachable, a timeout, the
   * connection lost, a reply such as LOADING) is named in {@link #missing()} and the read goes on
   * with the next master. Any other failure (a permission refused) fails the whole read.
   */
  private void read(Master m, Runnable work) {
    try {
      work.run();
    } catch (StoreUnavailableException e) {
      miss(m.slots(), m.node(), e.getMessage());
    }
  }

  private void miss(String slots, String node, String reason) {
    misses++;
    missing.putIfAbsent(node + " " + slots, new Missing(slots, node, reason));
  }

  /**
   * Calls {@code sink} with a snapshot (no events) of every selected breaker, on this thread, in
   * scan order; a breaker whose keys cannot be read (one of them of the wrong type) goes to {@code
   * unreadable} with the Redis error naming the key. Up to {@link #WINDOW} batches are in flight
   * per master, so Redis answers the next batches while this thread turns the previous one into
   * output.
   */
  @Override
  public void snapshots(
      FleetSelection selector,
      Consumer<BreakerSnapshot> sink,
      BiConsumer<BreakerId, String> unreadable) {
    // one read for the whole run; unreadable (its master down) leaves every report counted
    NodeLiveness read;
    try {
      read = StoreFutures.await(store.liveness(), left());
    } catch (StoreException e) {
      read = NodeLiveness.UNKNOWN;
    }
    NodeLiveness liveness = read;
    java.util.Set<BreakerId> seen = new java.util.HashSet<>(); // SCAN may return a key twice
    List<BreakerId> redirected = new ArrayList<>();
    for (Master m : masters()) {
      read(
          m,
          () ->
              new FleetPipeline(this, m.connection(), sink, unreadable, liveness, seen, redirected)
                  .run(selector));
    }
    // Keys whose slot moved since the topology was read (MOVED, ASK): read again through the
    // cluster connection, which follows the redirect.
    for (BreakerId id : redirected) {
      try {
        BreakerSnapshot s = StoreFutures.await(store.snapshot(id, 0), left());
        if (s.exists() || !s.nodes().isEmpty()) {
          sink.accept(s);
        }
      } catch (StoreUnavailableException e) {
        miss(
            Integer.toString(SlotHash.getSlot(keys.hash(id))),
            "",
            "moved, and not read again: " + e.getMessage());
      }
    }
  }

  /**
   * Calls {@code sink} with every selected breaker whose keys are half present: its event stream is
   * there but its state hash is not (evicted under a {@code maxmemory} policy, deleted by hand), so
   * {@link #snapshots} does not list it, and what it enforced is unknown until a node puts it back
   * or the next script starts a new incarnation. One more SCAN per master ({@code MATCH
   * <prefix>:{glob}:ev TYPE stream}: every breaker that ever transitioned has a stream) and one
   * pipelined EXISTS per breaker found, batch by batch.
   */
  @Override
  public void halfPresent(FleetSelection selector, Consumer<BreakerId> sink) {
    Predicate<BreakerId> selected = selector.matcher();
    String suffix = ":ev";
    KeyScanArgs args =
        KeyScanArgs.Builder.matches(selector.scanGlob(keys.prefix()) + suffix)
            .type("stream")
            .limit(SCAN_COUNT);
    for (Master m : masters()) {
      read(m, () -> halfPresent(m.connection(), selected, suffix, args, sink));
    }
  }

  private void halfPresent(
      StatefulRedisConnection<String, String> c,
      Predicate<BreakerId> selected,
      String suffix,
      KeyScanArgs args,
      Consumer<BreakerId> sink) {
    {
      java.util.Set<BreakerId> seen = new java.util.HashSet<>(); // SCAN may return a key twice
      List<BreakerId> pending = new ArrayList<>();
      ScanCursor cursor = ScanCursor.INITIAL;
      do {
        KeyScanCursor<String> page = await(c.async().scan(cursor, args), "scan event streams");
        for (String key : page.getKeys()) {
          BreakerId id =
              key.endsWith(suffix) ? idOf(key.substring(0, key.length() - suffix.length())) : null;
          if (id != null && selected.test(id) && seen.add(id)) {
            pending.add(id);
          }
        }
        if (pending.size() >= batch || page.isFinished()) {
          List<RedisFuture<Long>> exists = new ArrayList<>(pending.size());
          for (BreakerId id : pending) {
            exists.add(c.async().exists(keys.hash(id)));
          }
          for (int i = 0; i < pending.size(); i++) {
            if (exists(exists.get(i), keys.hash(pending.get(i))) == 0) {
              sink.accept(pending.get(i));
            }
          }
          pending = new ArrayList<>();
        }
        cursor = page;
      } while (!cursor.isFinished());
    }
  }

  /**
   * An EXISTS sent to a master; one answered MOVED or ASK (the key's slot moved since the topology
   * was read) is asked again through the cluster connection, which follows the redirect.
   */
  private long exists(RedisFuture<Long> sent, String key) {
    try {
      return await(sent, "read breakers");
    } catch (StoreException e) {
      String m = String.valueOf(e.getMessage());
      if (!(store.connection() instanceof StatefulRedisClusterConnection<String, String> cluster)
          || !(m.contains("MOVED ") || m.contains("ASK "))) {
        throw e;
      }
      return await(cluster.async().exists(key), "read breakers");
    }
  }

  /** A master to read: its connection, the slots it holds and its address. */
  private record Master(
      StatefulRedisConnection<String, String> connection, String slots, String node) {}

  /**
   * The masters to read: the one server when standalone; on a Cluster, the slot owners the topology
   * names. A master flagged {@code fail} or {@code pfail}, or one that cannot be connected to
   * within the timeout, is left out and named in {@link #missing()}, as are slots no master holds;
   * masters without slots are skipped. When any is missing the topology may be stale (a replica
   * promoted since it was read): it is read again once, within the timeout, and used if that covers
   * more.
   */
  private List<Master> masters() {
    StatefulConnection<String, String> c = store.connection();
    if (!(c instanceof StatefulRedisClusterConnection<String, String> cluster)) {
      @SuppressWarnings("unchecked")
      StatefulRedisConnection<String, String> single = (StatefulRedisConnection<String, String>) c;
      return List.of(new Master(single, "all", ""));
    }
    Map<String, Missing> before = new LinkedHashMap<>(missing);
    int missesBefore = misses;
    List<Master> out = owners(cluster);
    if (!refreshed && misses > missesBefore) {
      refreshed = true;
      try {
        store.refreshTopology(left());
        missing.clear();
        missing.putAll(before);
        out = owners(cluster);
      } catch (StoreException e) {
        // the topology as read: what is missing stays named
      }
    }
    return out;
  }

  /** The slot owners of the cluster's current topology that answer; the rest go to missing. */
  private List<Master> owners(StatefulRedisClusterConnection<String, String> cluster) {
    java.util.BitSet covered = new java.util.BitSet(SlotHash.SLOT_COUNT);
    List<RedisClusterNode> nodes = new ArrayList<>();
    List<java.util.concurrent.CompletableFuture<StatefulRedisConnection<String, String>>> opening =
        new ArrayList<>();
    for (RedisClusterNode node : cluster.getPartitions()) {
      if (!node.is(RedisClusterNode.NodeFlag.UPSTREAM) || node.getSlots().isEmpty()) {
        continue;
      }
      node.getSlots().forEach(covered::set);
      String slots = ranges(node.getSlots());
      String address = node.getUri().getHost() + ":" + node.getUri().getPort();
      if (node.is(RedisClusterNode.NodeFlag.FAIL)) {
        miss(slots, address, "the cluster marks it failed (fail)");
      } else if (node.is(RedisClusterNode.NodeFlag.EVENTUAL_FAIL)) {
        miss(slots, address, "the cluster suspects it failed (pfail)");
      } else {
        nodes.add(node);
        opening.add(cluster.getConnectionAsync(node.getNodeId()));
      }
    }
    List<Master> out = new ArrayList<>();
    for (int i = 0; i < nodes.size(); i++) {
      RedisClusterNode node = nodes.get(i);
      String slots = ranges(node.getSlots());
      String address = node.getUri().getHost() + ":" + node.getUri().getPort();
      try {
        out.add(new Master(await(opening.get(i), "connect to " + address), slots, address));
      } catch (StoreException e) {
        if (e instanceof StorePermissionException) {
          throw e;
        }
        miss(slots, address, e.getMessage());
      }
    }
    if (covered.cardinality() < SlotHash.SLOT_COUNT) {
      List<Integer> free = new ArrayList<>();
      for (int s = covered.nextClearBit(0);
          s < SlotHash.SLOT_COUNT;
          s = covered.nextClearBit(s + 1)) {
        free.add(s);
      }
      miss(ranges(free), "", "no master holds them in the topology");
    }
    return out;
  }

  /** Slots as ranges: {@code 0-5460,5462}. */
  static String ranges(List<Integer> slots) {
    List<Integer> sorted = new ArrayList<>(slots);
    java.util.Collections.sort(sorted);
    StringBuilder b = new StringBuilder();
    int i = 0;
    while (i < sorted.size()) {
      int first = sorted.get(i);
      int last = first;
      while (i + 1 < sorted.size() && sorted.get(i + 1) == last + 1) {
        last = sorted.get(++i);
      }
      i++;
      b.append(b.length() == 0 ? "" : ",").append(first);
      if (last > first) {
        b.append('-').append(last);
      }
    }
    return b.toString();
  }

  /**
   * The masters that answer within {@code timeout} (the one server when standalone); those that do
   * not are in the reader's {@link #missing()}.
   */
  static FleetReader reachable(
      RedisFleetStore store, Duration timeout, List<StatefulRedisConnection<String, String>> into) {
    FleetReader r = new FleetReader(store, timeout, 1);
    for (Master m : r.masters()) {
      into.add(m.connection());
    }
    return r;
  }

  private void scan(
      StatefulRedisConnection<String, String> c,
      FleetSelection selector,
      Consumer<List<BreakerId>> onBatch) {
    Predicate<BreakerId> selected = selector.matcher();
    KeyScanArgs args =
        KeyScanArgs.Builder.matches(selector.scanGlob(keys.prefix()))
            .type("hash")
            .limit(SCAN_COUNT);
    ScanCursor cursor = ScanCursor.INITIAL;
    List<BreakerId> pending = new ArrayList<>();
    java.util.Set<BreakerId> seen = new java.util.HashSet<>(); // SCAN may return a key twice
    do {
      KeyScanCursor<String> page = await(c.async().scan(cursor, args), "scan breakers");
      for (String key : page.getKeys()) {
        BreakerId id = idOf(key);
        if (id != null && selected.test(id) && seen.add(id)) {
          pending.add(id);
        }
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

  /** The breaker whose state hash {@code key} is, else null (one parse of the id). */
  BreakerId idOf(String key) {
    if (!key.startsWith(keyHead) || !key.endsWith("}")) {
      return null;
    }
    try {
      return BreakerId.parse(key.substring(keyHead.length(), key.length() - 1));
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** The wait left for a reply: what is left of the timeout, at least 1 ms. */
  Duration left() {
    return Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime()));
  }

  <T> T await(java.util.concurrent.Future<T> f, String action) {
    try {
      return f.get(left().toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreUnavailableException(action + ": interrupted", e);
    } catch (TimeoutException e) {
      throw new StoreUnavailableException(action + ": Redis did not answer within " + timeout, e);
    } catch (ExecutionException e) {
      throw translate(action, e.getCause() == null ? e : e.getCause());
    }
  }

  static StoreException translate(String action, Throwable cause) {
    return StoreErrors.translate(action, cause);
  }
}
