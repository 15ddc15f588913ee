package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.FleetSelection;
import io.breakerctl.runtime.store.NodeHeartbeat;
import io.breakerctl.runtime.store.NodeLiveness;
import io.breakerctl.runtime.store.ProbeLease;
import io.breakerctl.runtime.store.StoreUnavailableException;
import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
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
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * One master's part of a {@link FleetReader} snapshot pass: SCAN pages and pipelined batches of
 * reads (TIME, the state hashes, then the heartbeats and leases the hashes call for), up to {@link
 * FleetReader#WINDOW} batches in flight, each bounded as a whole by the reader's deadline.
 */
final class FleetPipeline {
  private final FleetReader reader;
  private final StatefulRedisConnection<String, String> c;
  private final Consumer<BreakerSnapshot> sink;
  private final BiConsumer<BreakerId, String> unreadable;
  private final ArrayDeque<Batch> inFlight = new ArrayDeque<>();
  private final ArrayDeque<Batch> following = new ArrayDeque<>();
  private final NodeLiveness liveness;
  private final java.util.Set<BreakerId> seen;
  private final List<BreakerId> redirected;

  FleetPipeline(
      FleetReader reader,
      StatefulRedisConnection<String, String> c,
      Consumer<BreakerSnapshot> sink,
      BiConsumer<BreakerId, String> unreadable,
      NodeLiveness liveness,
      java.util.Set<BreakerId> seen,
      List<BreakerId> redirected) {
    this.reader = reader;
    this.c = c;
    this.sink = sink;
    this.unreadable = unreadable;
    this.liveness = liveness;
    this.seen = seen;
    this.redirected = redirected;
  }

  void run(FleetSelection selector) {
    Predicate<BreakerId> selected = selector.matcher();
    KeyScanArgs args =
        KeyScanArgs.Builder.matches(selector.scanGlob(reader.keys.prefix()))
            .type("hash")
            .limit(FleetReader.SCAN_COUNT);
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
      while (true) {
        KeyScanCursor<String> page = reader.await(next, "scan breakers");
        if (!page.isFinished()) {
          // Ask for the next page first: Redis answers it while this page's reads are queued.
          next = c.async().scan(page, args);
          c.flushCommands();
        }
        for (String key : page.getKeys()) {
          BreakerId id = reader.idOf(key);
          if (id != null && selected.test(id) && seen.add(id)) {
            pending.add(id, key);
            if (pending.size() >= reader.batch) {
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
    while (inFlight.size() > FleetReader.WINDOW) {
      finish(inFlight.poll());
    }
  }

  /**
   * Waits for a batch's state hashes and queues its follow-up reads: the heartbeats of the breakers
   * whose nodes report, the leases of the half-open ones. Up to {@link #WINDOW} batches wait for
   * their follow-ups while the next ones are read.
   */
  private void finish(Batch b) {
    b.await();
    b.parse();
    b.dispatchFollowUps(c);
    c.flushCommands();
    following.add(b);
    while (following.size() > FleetReader.WINDOW) {
      complete(following.poll());
    }
  }

  /** Waits for a batch's follow-up reads and hands its snapshots to the sink. */
  private void complete(Batch b) {
    b.awaitFollowUps();
    for (BreakerSnapshot s : b.snapshots(unreadable, liveness, redirected)) {
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
        if (!latch.await(reader.left().toNanos(), TimeUnit.NANOSECONDS)) {
          throw new StoreUnavailableException(
              "read " + ids.size() + " breakers: Redis did not answer within " + reader.timeout,
              null);
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
        if (reads[i].wrongType(hashKeys.get(i)) != null || reads[i].redirected()) {
          continue; // reported or read again by snapshots(): the read stays in reads[i]
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
                  new CommandArgs<>(StringCodec.UTF8).addKey(reader.keys.nodeInfo(s.id())),
                  followUps);
          c.dispatch(heartbeats[i]);
        }
        if (halfOpen[i]) {
          leases[i] =
              new Read(
                  CommandType.ZRANGE,
                  new CommandArgs<>(StringCodec.UTF8)
                      .addKey(reader.keys.leases(s.id()))
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
        BiConsumer<BreakerId, String> unreadable,
        NodeLiveness liveness,
        List<BreakerId> redirected) {
      List<BreakerSnapshot> out = new ArrayList<>(ids.size());
      for (int i = 0; i < ids.size(); i++) {
        BreakerId id = ids.get(i);
        if (reads[i].redirected()
            || (heartbeats[i] != null && heartbeats[i].redirected())
            || (leases[i] != null && leases[i].redirected())) {
          redirected.add(id); // its slot moved since the topology was read
          continue;
        }
        String wrongType = reads[i].wrongType(hashKeys.get(i));
        if (wrongType == null && heartbeats[i] != null) {
          wrongType = heartbeats[i].wrongType(reader.keys.nodeInfo(id));
        }
        if (wrongType == null && leases[i] != null) {
          wrongType = leases[i].wrongType(reader.keys.leases(id));
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

    /** Whether the node answered MOVED or ASK: the key's slot is served elsewhere now. */
    boolean redirected() {
      String error = output.hasError() ? output.getError() : null;
      return error != null && (error.startsWith("MOVED") || error.startsWith("ASK"));
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
        throw FleetReader.translate(action, failure);
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
}
