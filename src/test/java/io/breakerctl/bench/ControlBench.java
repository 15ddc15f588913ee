package io.breakerctl.bench;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.gt;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Sorts;
import io.breakerctl.runtime.control.BreakerPattern;
import io.breakerctl.runtime.control.ControlConfig;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.TestMongo;
import io.breakerctl.runtime.control.replay.Replay;
import io.breakerctl.runtime.control.timeline.Timeline;
import io.breakerctl.runtime.control.timeline.TimelinePage;
import io.breakerctl.runtime.control.timeline.TimelineQuery;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisServerProcess;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.bson.Document;

/**
 * The control plane's readers against a raw driver {@code find} of the same documents, in the same
 * run: the timeline of one breaker with N entries (default 10,000; read as one page and in pages of
 * 1,000 through {@link Timeline}, MongoDB history merged with the breaker's Redis stream) against
 * one sorted find of that breaker's history, and in pages of 1,000 against the driver paging the
 * same way; and {@link Replay#stateAt} over B breakers with T transitions each (10,000 × 10)
 * against a find of every history document. MongoDB is the in-process mongo-java-server (the tests'
 * server) unless {@code BREAKERCTL_TEST_MONGO_URI} names a real one; Redis is a real redis-server.
 * Time is the median of R rounds (5, after 2 warm-up rounds), interleaved; peak memory is the heap
 * in use above the level after a GC, sampled every millisecond while the operation runs (the
 * in-process server's own allocations count for both sides). Targets: time and peak memory at most
 * 3x the raw find. Options: {@code --entries N --breakers B --transitions T --rounds R --redis
 * PATH}.
 */
public final class ControlBench {
  private ControlBench() {}

  public static void main(String[] args) throws Exception {
    int[] opt = {10_000, 10_000, 10, 5};
    String[] redisPath = {null};
    BenchSupport.parse(
        args,
        (name, v) -> {
          switch (name) {
            case "--entries" -> opt[0] = BenchSupport.positive(name, v, 1);
            case "--breakers" -> opt[1] = BenchSupport.positive(name, v, 1);
            case "--transitions" -> opt[2] = BenchSupport.positive(name, v, 1);
            case "--rounds" -> opt[3] = BenchSupport.positive(name, v, 1);
            case "--redis" -> redisPath[0] = v;
            default -> {
              return false;
            }
          }
          return true;
        });
    RedisBinary binary = BenchSupport.binary(redisPath[0]);
    BenchSupport.header("control plane readers", binary, redisPath[0] != null);
    System.out.println(
        "mongo:  "
            + (System.getenv("BREAKERCTL_TEST_MONGO_URI") == null
                ? "in-process mongo-java-server"
                : "BREAKERCTL_TEST_MONGO_URI"));
    try (TestMongo mongo = TestMongo.start();
        RedisServerProcess redisServer = RedisServerProcess.start(binary)) {
      ControlConfig config = mongo.database();
      ControlConfig wide =
          ControlConfig.builder()
              .uri(config.uri())
              .database(config.database())
              .timeout(Duration.ofSeconds(60))
              .build();
      try (ControlDatabase db = ControlDatabase.connect(wide);
          RedisFleetStore redis =
              RedisFleetStore.connect(
                  StoreConfig.builder()
                      .uri(redisServer.uri())
                      .timeout(Duration.ofSeconds(5))
                      .build())) {
        timeline(db, redis, opt[0], opt[3]);
        stateAt(db, opt[1], opt[2], opt[3]);
      }
    }
  }

  private static void timeline(ControlDatabase db, RedisFleetStore redis, int entries, int rounds) {
    MongoCollection<Document> history = db.collection(ControlDatabase.HISTORY);
    history.deleteMany(new Document());
    long t0 = System.currentTimeMillis() - 10L * entries;
    insert(history, "bench:one", entries, t0, 10);
    System.out.printf("timeline: 1 breaker, %,d history entries%n", entries);
    Timeline timeline = new Timeline(db, redis);
    Measured whole =
        new Measured(
            () ->
                timeline
                    .page(
                        TimelineQuery.builder(BreakerPattern.of("bench:one"))
                            .limit(entries)
                            .build())
                    .entries()
                    .size());
    Measured ours =
        new Measured(
            () -> {
              long n = 0;
              TimelineQuery q =
                  TimelineQuery.builder(BreakerPattern.of("bench:one")).limit(1000).build();
              TimelinePage page = timeline.page(q);
              n += page.entries().size();
              while (page.more()) {
                page = timeline.page(q.after(page.cursor().orElseThrow()));
                n += page.entries().size();
              }
              return n;
            });
    Measured raw =
        new Measured(
            () -> {
              long n = 0;
              for (Document d :
                  history.find(eq("breakerId", "bench:one")).sort(Sorts.ascending("at"))) {
                n += d.size() > 0 ? 1 : 0;
              }
              return n;
            });
    Measured rawPaged =
        new Measured(
            () -> {
              long n = 0;
              Date after = new Date(Long.MIN_VALUE);
              while (true) {
                int page = 0;
                for (Document d :
                    history
                        .find(and(eq("breakerId", "bench:one"), gt("at", after)))
                        .sort(Sorts.ascending("at"))
                        .limit(1000)) {
                  after = d.getDate("at");
                  page++;
                }
                n += page;
                if (page < 1000) {
                  return n;
                }
              }
            });
    compare("timeline (one page)", whole, raw, rounds, entries);
    compare("timeline (pages of 1,000)", ours, rawPaged, rounds, entries);
  }

  private static void stateAt(ControlDatabase db, int breakers, int transitions, int rounds) {
    MongoCollection<Document> history = db.collection(ControlDatabase.HISTORY);
    history.deleteMany(new Document());
    long t0 = System.currentTimeMillis() - 1000L * transitions;
    for (int b = 0; b < breakers; b++) {
      insert(history, "bench" + b + ":dep", transitions, t0 + b % 1000, 1000);
    }
    System.out.printf(
        "stateAt: %,d breakers x %d transitions = %,d history documents%n",
        breakers, transitions, (long) breakers * transitions);
    Replay replay = new Replay(db, null);
    Instant at = Instant.now();
    Measured ours = new Measured(() -> replay.stateAt(at, BreakerPattern.ALL).size());
    Measured raw =
        new Measured(
            () -> {
              long n = 0;
              for (Document d : history.find().batchSize(2000)) {
                n += d.size() > 0 ? 1 : 0;
              }
              return n;
            });
    compare("stateAt over every breaker", ours, raw, rounds, -1);
  }

  /** History documents as the forwarder writes them: trip, window end, close, force, clear, ... */
  private static void insert(
      MongoCollection<Document> history, String id, int n, long start, long step) {
    String epoch = Long.toString(start * 1000);
    String[][] cycle = {
      {"CLOSED", "OPEN", "FAILURE_THRESHOLD"},
      {"OPEN", "HALF_OPEN", "OPEN_WINDOW_ENDED"},
      {"HALF_OPEN", "CLOSED", "PROBES_SUCCEEDED"},
      {"CLOSED", "FORCED_OPEN", "OVERRIDE_SET"},
      {"FORCED_OPEN", "CLOSED", "OVERRIDE_CLEARED"}
    };
    List<Document> batch = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long at = start + i * step;
      String[] c = cycle[i % cycle.length];
      String sid = at + "-0";
      Document fields =
          new Document("epoch", epoch)
              .append("from", c[0])
              .append("to", c[1])
              .append("cause", c[2])
              .append("generation", Integer.toString(i + 1))
              .append("policyId", "")
              .append("policyVersion", "0")
              .append("node", "node-" + (i % 20))
              .append("at", Long.toString(at));
      if (c[1].equals("OPEN")) {
        fields
            .append("failures", "5")
            .append("calls", "9")
            .append("threshold", "5")
            .append("openMillis", "30000")
            .append("until", Long.toString(at + 30_000));
      } else if (c[2].startsWith("OVERRIDE")) {
        fields
            .append("actor", "alice")
            .append("reason", "drill")
            .append("correlationId", id + "-" + i)
            .append("until", "0");
      }
      batch.add(
          new Document("_id", id + "|" + epoch + "|" + sid)
              .append("breakerId", id)
              .append("epoch", epoch)
              .append("streamId", sid)
              .append("at", new Date(at))
              .append("from", c[0])
              .append("to", c[1])
              .append("cause", c[2])
              .append("fields", fields)
              .append("storedAt", new Date()));
      if (batch.size() == 1000) {
        history.insertMany(batch);
        batch.clear();
      }
    }
    if (!batch.isEmpty()) {
      history.insertMany(batch);
    }
  }

  /** One side of a comparison: its rounds' times (ms) and peak heap (MB). */
  private static final class Measured {
    final LongSupplier op;
    final List<Double> millis = new ArrayList<>();
    final List<Double> peakMb = new ArrayList<>();
    long result;

    Measured(LongSupplier op) {
      this.op = op;
    }

    void round() {
      MemoryMXBean mem = ManagementFactory.getMemoryMXBean();
      System.gc();
      long base = mem.getHeapMemoryUsage().getUsed();
      AtomicLong peak = new AtomicLong(base);
      AtomicBoolean running = new AtomicBoolean(true);
      Thread sampler =
          new Thread(
              () -> {
                while (running.get()) {
                  peak.accumulateAndGet(mem.getHeapMemoryUsage().getUsed(), Math::max);
                  try {
                    Thread.sleep(1);
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              });
      sampler.setDaemon(true);
      sampler.start();
      long start = System.nanoTime();
      result = op.getAsLong();
      double ms = (System.nanoTime() - start) / 1e6;
      running.set(false);
      try {
        sampler.join(1000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      millis.add(ms);
      peakMb.add((peak.get() - base) / 1e6);
    }

    static double median(List<Double> v) {
      double[] a = v.stream().mapToDouble(Double::doubleValue).toArray();
      Arrays.sort(a);
      return a[a.length / 2];
    }
  }

  private static void compare(String what, Measured ours, Measured raw, int rounds, long expect) {
    for (int w = 0; w < 2; w++) { // warm-up of both, not counted
      ours.round();
      raw.round();
    }
    ours.millis.clear();
    ours.peakMb.clear();
    raw.millis.clear();
    raw.peakMb.clear();
    for (int r = 0; r < rounds; r++) {
      ours.round();
      raw.round();
    }
    if (expect >= 0 && ours.result != expect) {
      throw new IllegalStateException(
          what + " read " + ours.result + " entries, expected " + expect);
    }
    double t = Measured.median(ours.millis);
    double tr = Measured.median(raw.millis);
    double m = Measured.median(ours.peakMb);
    double mr = Math.max(1, Measured.median(raw.peakMb));
    System.out.printf(
        "  %s: %,d results; ours %s ms, raw find %s ms%n",
        what, ours.result, ours.millis, raw.millis);
    BenchSupport.target(
        what + " time <= 3x raw find", t <= 3 * tr, "%.0f ms vs %.0f ms: %.2fx", t, tr, t / tr);
    BenchSupport.target(
        what + " peak heap <= 3x raw find",
        m <= 3 * mr,
        "%.0f MB vs %.0f MB: %.2fx",
        m,
        mr,
        m / mr);
  }
}
