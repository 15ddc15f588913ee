package io.breakerctl.runtime.redis;

import static io.breakerctl.runtime.store.StoreFutures.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.store.BreakerEvent;
import io.breakerctl.testing.ChildJvm;
import io.breakerctl.testing.Promises;
import io.breakerctl.testing.RedisExtension;
import io.breakerctl.testing.RedisServerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The scripts' promises checked as a history: clients in this JVM and in {@code
 * breakerctl.history.jvms} (default 2) child JVMs, {@code breakerctl.history.clients} (default 3)
 * per JVM plus one operator here, drive one breaker with random operations through the real scripts
 * ({@link HistoryClient}) for {@code breakerctl.history.millis} (default 4000) while a fault
 * injector here pauses the server ({@code CLIENT PAUSE}, 50-300 ms) and kills the clients'
 * connections ({@code CLIENT KILL}; Lettuce reconnects). The policy is short (open 150 ms, probe
 * leases 300 ms), so a few seconds hold many trips, half-open windows, probes (granted, released,
 * abandoned and answered late, answered twice), closes and overrides, with halfOpenPermits 1 and 3.
 * Afterwards {@link HistoryChecker} reads the breaker's whole event stream, its hash and every
 * client's log: every transition legal and chained, generations increasing by one, never more than
 * halfOpenPermits leases holding a slot, each lease's outcome applied at most once, every
 * transition an answer reported in the stream, and the totals between the acknowledged outcomes and
 * acknowledged plus unknown (nothing lost, nothing counted twice).
 *
 * <p>Why: the scenario table and the property tests check one caller at a time; atomicity, one
 * winner per transition and the probe bound are promises about concurrent callers in several
 * processes whose answers may be lost. Half the clients run with a 250 ms command timeout (pauses
 * turn their operations unknown), half with 2 s. An operation without an answer is unknown, never a
 * violation, so load only makes the check weaker, never wrong; the one figure asserted beyond the
 * checker is that the run granted a lease and tripped at least once (a history that exercised
 * nothing proves nothing), which a few seconds of nine clients reach on any machine that runs the
 * suite at all. The child JVMs close their connections before they print their logs and the parent
 * reads the stream after every client closed, so no unknown operation can still run afterwards. The
 * child JVMs are started once for both runs (a JVM start under load is most of a run's cost) and
 * run their clients on one breaker after the other; each run's parent clients start when every
 * child announced that run.
 */
@DisplayName("History check: clients in 3 JVMs, CLIENT PAUSE and killed connections")
class HistoryCheckIT {

  @RegisterExtension static final RedisExtension redis = RedisExtension.standalone();

  private static final long MILLIS = Long.getLong("breakerctl.history.millis", 4000);
  private static final int JVMS = Integer.getInteger("breakerctl.history.jvms", 2);
  private static final int CLIENTS = Integer.getInteger("breakerctl.history.clients", 3);
  private static final Duration BOUND = Duration.ofMillis(MILLIS).plusSeconds(60);

  /** A client's connection: every other one with a short command timeout. */
  static RedisFleetStore connect(String uri, int client) {
    return RedisFleetStore.connect(
        StoreConfig.builder()
            .uri(uri)
            .timeout(Duration.ofSeconds(5))
            .commandTimeout(commandTimeout(client))
            .build());
  }

  /** How long a client waits for an answer before it logs the operation as unknown. */
  static Duration answerWait(int client) {
    return commandTimeout(client).plusMillis(500);
  }

  private static Duration commandTimeout(int client) {
    return client % 2 == 0 ? Duration.ofMillis(250) : Duration.ofSeconds(2);
  }

  private static final int[] PERMITS = {1, 3};
  private static final long SEED = Long.getLong("breakerctl.history.seed", System.nanoTime());
  private static final List<ChildJvm> children = new ArrayList<>();

  static IntStream permits() {
    return IntStream.of(PERMITS);
  }

  private static BreakerId breaker(int permits) {
    return BreakerId.parse("history-" + permits + ":dep");
  }

  /**
   * Warms each run's policy into its breaker and starts the child JVMs once for both runs (a JVM
   * start is most of a run's time on a loaded machine): each runs its clients on one breaker after
   * the other, announcing each run with {@code START <breaker>}.
   */
  @BeforeAll
  static void startChildren() {
    RedisServerProcess server = redis.server();
    List<String> args = new ArrayList<>();
    try (RedisFleetStore admin =
        RedisFleetStore.connect(
            StoreConfig.builder().uri(server.uri()).timeout(Duration.ofSeconds(5)).build())) {
      for (int permits : PERMITS) {
        BreakerId id = breaker(permits);
        assertThat(
                await(admin.warm(id, id.toString(), 1, HistoryClient.policy(permits), "it"))
                    .written())
            .isTrue();
        args.add(permits + "@" + id);
      }
    }
    for (int j = 0; j < JVMS; j++) {
      List<String> a = new ArrayList<>(List.of(server.uri(), Integer.toString(CLIENTS)));
      a.addAll(List.of(Long.toString(MILLIS), "j" + j, Long.toString(SEED + j)));
      a.addAll(args);
      children.add(redis.manage(ChildJvm.start(HistoryClientMain.class, a.toArray(String[]::new))));
    }
  }

  /** Every child ends cleanly once both runs are done. */
  @AfterAll
  static void childrenExit() {
    for (ChildJvm c : children) {
      assertThat(c.waitFor(BOUND)).as("child exit, stderr %s", c.stderr()).isZero();
    }
  }

  @ParameterizedTest(name = "halfOpenPermits {0}")
  @MethodSource("permits")
  @DisplayName(
      "legal chained events, the lease bound, outcomes once, totals between acked and sent")
  void historyHolds(int permits) throws Exception {
    RedisServerProcess server = redis.server();
    BreakerId id = breaker(permits);
    long seed = SEED + permits * 1000L;
    long started = System.nanoTime();
    for (ChildJvm c : children) {
      awaitLine(c, "START " + id);
    }

    List<RedisFleetStore> stores = new ArrayList<>();
    try {
      for (int c = 0; c <= CLIENTS; c++) {
        stores.add(connect(server.uri(), c));
      }
    } catch (RuntimeException e) {
      closeAll(stores);
      throw e;
    }
    long end = System.nanoTime() + Duration.ofMillis(MILLIS).toNanos();
    List<List<HistoryOp>> logs = new ArrayList<>();
    List<HistoryClient> clients = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    Map<String, Integer> faults = new TreeMap<>();
    AtomicBoolean injecting = new AtomicBoolean(true);
    Thread injector =
        new Thread(() -> injectFaults(server, end, new Random(seed - 1), injecting, faults));
    try {
      for (int c = 0; c <= CLIENTS; c++) {
        RedisFleetStore store = stores.get(c);
        List<HistoryOp> log = new ArrayList<>();
        boolean operator = c == CLIENTS;
        HistoryClient client =
            new HistoryClient(
                store,
                id,
                permits,
                operator ? "operator" : "parent-c" + c,
                operator,
                seed * 17 + c,
                end,
                answerWait(c),
                log);
        logs.add(log);
        clients.add(client);
        threads.add(new Thread(client, "history-client-" + c));
      }
      threads.forEach(Thread::start);
      injector.start();
      for (Thread t : threads) {
        t.join(BOUND.toMillis());
        assertThat(t.isAlive()).as("%s stopped", t.getName()).isFalse();
      }
    } finally {
      injecting.set(false);
      injector.join(BOUND.toMillis());
      // closed before the stream is read: nothing sent from here runs afterwards
      closeAll(stores);
    }
    long ran = System.nanoTime();

    List<HistoryOp> ops = new ArrayList<>();
    logs.forEach(ops::addAll);
    List<String> errors = new ArrayList<>();
    for (int c = 0; c < clients.size(); c++) {
      errors.add("parent-c" + c + " " + clients.get(c).errors());
    }
    for (ChildJvm c : children) {
      awaitLine(c, "DONE " + id + " ");
      boolean mine = false;
      for (String line : c.stdout()) {
        if (line.startsWith("LOG ")) {
          mine = line.equals("LOG " + id);
        } else if (mine && line.startsWith(HistoryOp.LINE)) {
          ops.add(HistoryOp.parse(line));
        } else if (mine && line.startsWith("ERRORS ")) {
          errors.add(line.substring("ERRORS ".length()));
        }
      }
    }

    List<BreakerEvent> events;
    Map<String, String> hash;
    try (RedisFleetStore reader =
        RedisFleetStore.connect(
            StoreConfig.builder().uri(server.uri()).timeout(Duration.ofSeconds(10)).build())) {
      events = await(reader.eventsAfter(id, "", 20_000));
      hash = await(reader.snapshot(id, 0)).fields();
    }
    HistoryChecker.Verdict verdict =
        new HistoryChecker(permits, HistoryClient.PROBE_LEASE).check(events, hash, ops);
    String report =
        verdict.report()
            + "\n  faults "
            + faults
            + ", unknown answers "
            + errors
            + ", seed "
            + seed
            + String.format(
                "\n  ms: children started %d, parent run and close %d, children done, read, check %d",
                (end - started) / 1_000_000 - MILLIS,
                (ran - end) / 1_000_000 + MILLIS,
                (System.nanoTime() - ran) / 1_000_000);
    System.out.println("halfOpenPermits " + permits + ": " + report);
    Promises promises = new Promises();
    promises.verdict(
        "history-permits-" + permits,
        verdict.violations().isEmpty(),
        String.join("; ", verdict.violations().stream().map(String::valueOf).toList()));

    promises.assertHeld();
    assertThat(verdict.grants()).as("leases granted; %s", report).isPositive();
    assertThat(verdict.trips()).as("trips; %s", report).isPositive();
  }

  /** Waits (bounded) until {@code child} printed a line starting with {@code prefix}. */
  private static void awaitLine(ChildJvm child, String prefix) throws InterruptedException {
    long by = System.nanoTime() + BOUND.toNanos();
    while (child.stdout().stream().noneMatch(l -> l.startsWith(prefix))) {
      assertThat(child.isAlive())
          .as("child %s alive awaiting '%s', stderr %s", child.pid(), prefix, child.stderr())
          .isTrue();
      assertThat(System.nanoTime())
          .as("child %s printed '%s' within %s", child.pid(), prefix, BOUND)
          .isLessThan(by);
      Thread.sleep(20);
    }
  }

  /** Closes every store at once (each close waits for its client's threads to stop). */
  static void closeAll(List<RedisFleetStore> stores) throws InterruptedException {
    List<Thread> closing = new ArrayList<>();
    for (RedisFleetStore s : stores) {
      Thread t = new Thread(s::close, "history-close");
      t.start();
      closing.add(t);
    }
    for (Thread t : closing) {
      t.join(BOUND.toMillis());
    }
  }

  /**
   * Until {@code end}: every 150-500 ms a {@code CLIENT PAUSE} of 50-300 ms (1 time in 2), or
   * {@code CLIENT KILL} of one client's connection (1 in 3) or of every client's (1 in 6). Counts
   * what it did in {@code faults}.
   */
  private static void injectFaults(
      RedisServerProcess server,
      long end,
      Random random,
      AtomicBoolean injecting,
      Map<String, Integer> faults) {
    while (injecting.get() && System.nanoTime() < end) {
      try {
        Thread.sleep(150 + random.nextInt(350));
        int r = random.nextInt(6);
        if (r < 3) {
          server.pause(Duration.ofMillis(50 + random.nextInt(250)));
          count(faults, "pause");
        } else if (r < 5) {
          List<String> ids = new ArrayList<>();
          for (String line : String.valueOf(server.call("CLIENT", "LIST")).split("\r?\n")) {
            if (line.startsWith("id=") && !line.contains(" cmd=client")) {
              ids.add(line.substring(3, line.indexOf(' ')));
            }
          }
          if (!ids.isEmpty()) {
            server.call("CLIENT", "KILL", "ID", ids.get(random.nextInt(ids.size())));
            count(faults, "kill");
          }
        } else {
          server.call("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
          count(faults, "kill-all");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        // the client was gone already, or the server was paused past the call's bound
        count(faults, "failed");
      }
    }
  }

  private static synchronized void count(Map<String, Integer> faults, String what) {
    faults.merge(what, 1, Integer::sum);
  }
}
