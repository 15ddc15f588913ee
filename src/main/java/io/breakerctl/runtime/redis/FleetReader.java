package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;
import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
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
 * half-open breakers: see {@link Batch}). Snapshots go to the sink batch by batch, so memory stays
 * flat. Needs only the viewer ACL. Every failure arrives as a {@link StoreException} translated in
 * {@link StoreErrors}, as the store's own.
 *
 * <p>This is the runtime's read API for whole fleets: the CLI reads through it and never touches a
 * connection or a key name.
 */
public final class FleetReader {
  /** SCAN COUNT per page. */
  static final int SCAN_COUNT = 5000;

  /** Batches of reads in flight per master. */
  static final int WINDOW = 4;

  private final RedisBreakerStore store;
  private final BreakerKeys keys;
  private final Duration timeout;
  private final int batch;
  private final String keyHead;

  /** A reader over {@code store}; each round trip bounded by {@code timeout}. */
  public FleetReader(RedisBreakerStore store, Duration timeout, int batch) {
    this.store = store;
    this.keys = store.keys();
    this.timeout = timeout;
    this.batch = batch;
    this.keyHead = keys.prefix() + ":{";
  }

  /** Calls {@code sink} with the id of every selected breaker that has keys. */
  public void ids(FleetSelection selector, Consumer<BreakerId> sink) {
    for (StatefulRedisConnection<String, String> c : masters()) {
      scan(c, selector, ids -> ids.forEach(sink));
    }
  }

  /**
   * Calls {@code sink} with a snapshot (no events) of every selected breaker, on this thread, in
   * scan order; a breaker whose keys cannot be read (one of them of the wrong type) goes to {@code
   * unreadable} with the Redis error naming the key. Up to {@link #WINDOW} batches are in flight
   * per master, so Redis answers the next batches while this thread turns the previous one into
   * output.
   */
  public void snapshots(
      FleetSelection selector,
      Consumer<BreakerSnapshot> sink,
      BiConsumer<BreakerId, String> unreadable) {
    // one read for the whole run; unreadable (its master down) leaves every report counted
    NodeLiveness liveness;
    try {
      liveness = RedisBreakerStore.await(store.liveness(), timeout);
    } catch (StoreException e) {
      liveness = NodeLiveness.UNKNOWN;
    }
    for (StatefulRedisConnection<String, String> c : masters()) {
      new Pipeline(c, sink, unreadable, liveness).run(selector);
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
  public void halfPresent(FleetSelection selector, Consumer<BreakerId> sink) {
    Predicate<BreakerId> selected = selector.matcher();
    String suffix = ":ev";
    KeyScanArgs args =
        KeyScanArgs.Builder.matches(selector.scanGlob(keys.prefix()) + suffix)
            .type("stream")
            .limit(SCAN_COUNT);
    for (StatefulRedisConnection<String, String> c : masters()) {
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
            if (await(exists.get(i), "read breakers") == 0) {
              sink.accept(pending.get(i));
            }
          }
          pending = new ArrayList<>();
        }
        cursor = page;
      } while (!cursor.isFinished());
    }
  }

  private List<StatefulRedisConnection<String, String>> masters() {
    return masters(store);
  }

  /** A connection to every master (the one server when standalone). */
  static List<StatefulRedisConnection<String, String>> masters(RedisBreakerStore store) {
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

  private final class Pipeline {
    private final StatefulRedisConnection<String, String> c;
    private final Consumer<BreakerSnapshot> sink;
    private final BiConsumer<BreakerId, String> unreadable;
    private final ArrayDeque<Batch> inFlight = new ArrayDeque<>();
    private final ArrayDeque<Batch> following = new ArrayDeque<>();
    private final NodeLiveness liveness;

    Pipeline(
        StatefulRedisConnection<String, String> c,
        Consumer<BreakerSnapshot> sink,
        BiConsumer<BreakerId, String> unreadable,
        NodeLiveness liveness) {
      this.c = c;
      this.sink = sink;
      this.unreadable = unreadable;
      this.liveness = liveness;
    }

    void run(FleetSelection selector) {
      Predicate<BreakerId> selected = selector.matcher();
      KeyScanArgs args =
          KeyScanArgs.Builder.matches(selector.scanGlob(keys.prefix()))
              .type("hash")
              .limit(SCAN_COUNT);
      // No per-command timeout task (TimeoutOptions) for the bulk read: each batch is bounded as
      // a whole below, and a task per command costs a timer entry holding the command until it
      // expires, i.e. CPU and memory proportional to the fleet.
      Duration commandTimeout = c.getTimeout();
      c.setTimeout(Duration.ZERO);
      c.setAutoFlushCommands(false);
      try {
        RedisFuture<KeyScanCursor<String>> next = c.async().scan(ScanCursor.INITIAL, args);
        c.flushCommands();
        Batch pending = new Batch();
        // SCAN returns a key twice when the keyspace rehashes meanwhile (markers come and go)
        java.util.Set<BreakerId> seen = new java.util.HashSet<>();
        while (true) {
          KeyScanCursor<String> page = await(next, "scan breakers");
          if (!page.isFinished()) {
            // Ask for the next page first: Redis answers it while this page's reads are queued.
            next = c.async().scan(page, args);
            c.flushCommands();
          }
          for (String key : page.getKeys()) {
            BreakerId id = idOf(key);
            if (id != null && selected.test(id) && seen.add(id)) {
              pending.add(id, key);
              if (pending.size() >= batch) {
                send(pending);
                pending = new Batch();
              }
            }
          }
          if (page.isFinished()) {
            break;
          }
        }
        if (pending.size() > 0) {
          send(pending);
        }
        drain();
      } finally {
        c.setAutoFlushCommands(true);
        c.setTimeout(commandTimeout);
      }
    }

    /** Queues a batch's reads (TIME, then the state hash of every breaker) in one flush. */
    private void send(Batch b) {
      b.dispatch(c);
      c.flushCommands();
      inFlight.add(b);
      while (inFlight.size() > WINDOW) {
        finish(inFlight.poll());
      }
    }

    /**
     * Waits for a batch's state hashes and queues its follow-up reads: the heartbeats of the
     * breakers whose nodes report, the leases of the half-open ones. Up to {@link #WINDOW} batches
     * wait for their follow-ups while the next ones are read.
     */
    private void finish(Batch b) {
      b.await();
      b.parse();
      b.dispatchFollowUps(c);
      c.flushCommands();
      following.add(b);
      while (following.size() > WINDOW) {
        complete(following.poll());
      }
    }

    /** Waits for a batch's follow-up reads and hands its snapshots to the sink. */
    private void complete(Batch b) {
      b.awaitFollowUps();
      for (BreakerSnapshot s : b.snapshots(unreadable, liveness)) {
        sink.accept(s);
      }
    }

    private void drain() {
      while (!inFlight.isEmpty()) {
        finish(inFlight.poll());
      }
      while (!following.isEmpty()) {
        complete(following.poll());
      }
    }
  }

  /** The breaker whose state hash {@code key} is, else null (one parse of the id). */
  private BreakerId idOf(String key) {
    if (!key.startsWith(keyHead) || !key.endsWith("}")) {
      return null;
    }
    try {
      return BreakerId.parse(key.substring(keyHead.length(), key.length() - 1));
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /**
   * The reads of up to {@code batch} breakers: plain Lettuce commands whose outputs keep the raw
   * reply (no future per command, no intermediate map); one latch per round.
   *
   * <p>First round: TIME and every state hash. Second round, only where needed: the heartbeats
   * ({@code :nodeinfo}) of a breaker whose hash has {@code nodesPrunedAt}, which record.lua sets in
   * the same script whenever it writes a heartbeat (the fast path takes a heartbeat only when it is
   * already there), so a breaker without it has no heartbeats to read; and the leases of a
   * half-open breaker. A fleet whose breakers have no reporting nodes costs one read each.
   */
  private final class Batch {
    private final List<BreakerId> ids = new ArrayList<>();
    private final List<String> hashKeys = new ArrayList<>();
    private Read time;
    private Read[] reads;
    private CountDownLatch done;
    private long now;
    private BreakerSnapshot[] snaps;
    private Read[] heartbeats;
    private Read[] leases;
    private CountDownLatch followUps;

    void add(BreakerId id, String key) {
      ids.add(id);
      hashKeys.add(key);
    }

    int size() {
      return ids.size();
    }

    void dispatch(StatefulRedisConnection<String, String> c) {
      int n = ids.size();
      done = new CountDownLatch(1 + n);
      reads = new Read[n];
      time = new Read(CommandType.TIME, new CommandArgs<>(StringCodec.UTF8), done);
      c.dispatch(time);
      for (int i = 0; i < n; i++) {
        reads[i] =
            new Read(
                CommandType.HGETALL,
                // the key as bytes: written as is, where addKey encodes it into a buffer of its own
                new CommandArgs<>(StringCodec.UTF8)
                    .add(hashKeys.get(i).getBytes(StandardCharsets.UTF_8)),
                done);
        c.dispatch(reads[i]);
      }
    }

    void await() {
      await(done);
    }

    void awaitFollowUps() {
      await(followUps);
    }

    private void await(CountDownLatch latch) {
      try {
        if (!latch.await(timeout.toMillis() + 100, TimeUnit.MILLISECONDS)) {
          throw new StoreUnavailableException(
              "read " + ids.size() + " breakers: Redis did not answer in " + timeout, null);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StoreUnavailableException("read breakers: interrupted", e);
      }
    }

    /** Turns the state hashes into snapshots without heartbeats and leases (null: none). */
    void parse() {
      List<String> t = time.result("read Redis TIME");
      now = Long.parseLong(t.get(0)) * 1000 + Long.parseLong(t.get(1)) / 1000;
      int n = ids.size();
      snaps = new BreakerSnapshot[n];
      for (int i = 0; i < n; i++) {
        if (reads[i].wrongType(hashKeys.get(i)) != null) {
          continue; // reported by snapshots(): the read stays in reads[i]
        }
        List<String> fields = reads[i].result("read " + ids.get(i));
        if (fields.isEmpty()) {
          continue; // deleted since the scan
        }
        Map<String, String> map = new HashMap<>(fields.size());
        for (int j = 0; j + 1 < fields.size(); j += 2) {
          map.put(fields.get(j), fields.get(j + 1));
        }
        snaps[i] = new BreakerSnapshot(ids.get(i), map, List.of(), List.of(), List.of(), now);
      }
    }

    /** Queues the heartbeats and leases reads of the breakers that need them. */
    void dispatchFollowUps(StatefulRedisConnection<String, String> c) {
      int n = ids.size();
      heartbeats = new Read[n];
      leases = new Read[n];
      boolean[] reporting = new boolean[n];
      boolean[] halfOpen = new boolean[n];
      int count = 0;
      for (int i = 0; i < n; i++) {
        BreakerSnapshot s = snaps[i];
        if (s != null) {
          reporting[i] = s.fields().containsKey("nodesPrunedAt");
          halfOpen[i] = s.problem().isEmpty() && s.effectiveState() == State.HALF_OPEN;
          count += (reporting[i] ? 1 : 0) + (halfOpen[i] ? 1 : 0);
        }
      }
      followUps = new CountDownLatch(count);
      for (int i = 0; i < n; i++) {
        BreakerSnapshot s = snaps[i];
        if (reporting[i]) {
          heartbeats[i] =
              new Read(
                  CommandType.HGETALL,
                  new CommandArgs<>(StringCodec.UTF8).addKey(keys.nodeInfo(s.id())),
                  followUps);
          c.dispatch(heartbeats[i]);
        }
        if (halfOpen[i]) {
          leases[i] =
              new Read(
                  CommandType.ZRANGE,
                  new CommandArgs<>(StringCodec.UTF8)
                      .addKey(keys.leases(s.id()))
                      .add(0)
                      .add(-1)
                      .add("WITHSCORES"),
                  followUps);
          c.dispatch(leases[i]);
        }
      }
    }

    /** The batch's snapshots in scan order; a breaker with a key of the wrong type is reported. */
    List<BreakerSnapshot> snapshots(
        BiConsumer<BreakerId, String> unreadable, NodeLiveness liveness) {
      List<BreakerSnapshot> out = new ArrayList<>(ids.size());
      for (int i = 0; i < ids.size(); i++) {
        BreakerId id = ids.get(i);
        String wrongType = reads[i].wrongType(hashKeys.get(i));
        if (wrongType == null && heartbeats[i] != null) {
          wrongType = heartbeats[i].wrongType(keys.nodeInfo(id));
        }
        if (wrongType == null && leases[i] != null) {
          wrongType = leases[i].wrongType(keys.leases(id));
        }
        if (wrongType != null) {
          unreadable.accept(id, wrongType);
          continue;
        }
        BreakerSnapshot s = snaps[i];
        if (s == null) {
          continue;
        }
        List<NodeHeartbeat> nodes = List.of();
        if (heartbeats[i] != null) {
          List<String> info = heartbeats[i].result("read heartbeats of " + id);
          List<NodeHeartbeat> parsed = new ArrayList<>(info.size() / 2);
          for (int j = 0; j + 1 < info.size(); j += 2) {
            parsed.add(NodeHeartbeat.parse(info.get(j), info.get(j + 1), 0));
          }
          parsed.sort(Comparator.comparingLong(NodeHeartbeat::atMillis));
          nodes = liveness.live(parsed, now);
        }
        List<ProbeLease> ls = List.of();
        if (leases[i] != null) {
          List<String> stored = leases[i].result("read leases of " + id);
          List<ProbeLease> parsed = new ArrayList<>(stored.size() / 2);
          for (int j = 0; j + 1 < stored.size(); j += 2) {
            String m = stored.get(j);
            int bar = m.indexOf('|');
            parsed.add(
                new ProbeLease(
                    bar < 0 ? m : m.substring(0, bar),
                    bar < 0 ? "" : m.substring(bar + 1),
                    (long) Double.parseDouble(stored.get(j + 1))));
          }
          ls = List.copyOf(parsed);
        }
        out.add(
            nodes.isEmpty() && ls.isEmpty()
                ? s
                : new BreakerSnapshot(id, s.fields(), ls, List.of(), nodes, now));
      }
      return out;
    }
  }

  /** A read whose reply is kept flat: bulk strings in order (field, value, ... for a hash). */
  private static final class Read extends Command<String, String, List<String>> {
    private final CountDownLatch done;
    private boolean counted;

    Read(CommandType type, CommandArgs<String, String> args, CountDownLatch done) {
      super(type, new FlatOutput(), args);
      this.done = done;
    }

    private synchronized void countDown() {
      if (!counted) {
        counted = true;
        done.countDown();
      }
    }

    @Override
    public void complete() {
      super.complete();
      countDown();
    }

    @Override
    public boolean completeExceptionally(Throwable throwable) {
      boolean r = super.completeExceptionally(throwable);
      countDown();
      return r;
    }

    @Override
    public void cancel() {
      super.cancel();
      countDown();
    }

    /** "key K: WRONGTYPE ..." when the read failed on a key of another type, else null. */
    String wrongType(String key) {
      String error = output.hasError() ? output.getError() : null;
      if (error == null && exception != null) {
        error = exception.getMessage();
      }
      return error != null && error.startsWith("WRONGTYPE") ? "key " + key + ": " + error : null;
    }

    /** The reply; a failed read throws like {@link FleetReader#await}. */
    List<String> result(String action) {
      Throwable failure = exception;
      if (failure == null && output.hasError()) {
        failure = new RedisCommandExecutionException(output.getError());
      }
      if (failure == null && isCancelled()) {
        failure = new RedisConnectionException("cancelled (connection closed)");
      }
      if (failure != null) {
        throw translate(action, failure);
      }
      List<String> r = output.get();
      return r == null ? List.of() : r;
    }
  }

  private static final class FlatOutput extends CommandOutput<String, String, List<String>> {
    FlatOutput() {
      super(StringCodec.UTF8, null);
    }

    @Override
    public void multi(int count) {
      if (output == null) {
        output = new ArrayList<>(Math.max(count, 0));
      }
    }

    @Override
    public void set(ByteBuffer bytes) {
      if (output == null) {
        output = new ArrayList<>();
      }
      output.add(bytes == null ? null : utf8(bytes));
    }

    /**
     * The bulk string as UTF-8, read in place. The codec's own decode wraps each buffer in a Netty
     * buffer first: about a third of the event loop's time on a read of 100,000 hashes.
     */
    private static String utf8(ByteBuffer bytes) {
      byte[] a = new byte[bytes.remaining()];
      bytes.get(bytes.position(), a);
      return new String(a, StandardCharsets.UTF_8);
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
      throw translate(action, e.getCause() == null ? e : e.getCause());
    }
  }

  private static StoreException translate(String action, Throwable cause) {
    return StoreErrors.translate(action, cause);
  }
}
