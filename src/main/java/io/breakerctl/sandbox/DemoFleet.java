package io.breakerctl.sandbox;

import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.store.FleetStore;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CancellationException;

/**
 * The simulated fleet of {@code breakerctl demo}, driven by the real runtime: for each of LOCAL,
 * SHARED and HYBRID in turn, {@code nodes} service instances (each its own {@code BreakerRegistry},
 * with its own Redis connections and subscription unless LOCAL) call three dependencies, real TCP
 * servers on loopback ({@link LoopbackDependency}). {@link #FAILING} goes down for a scripted
 * outage and recovers; what reached it is counted where it arrived, and one {@link FleetRow} per
 * mode comes back.
 *
 * <p>Each mode has its own breakers ({@code checkout:payments:shared}, ...), so the three runs
 * share no state; LOCAL writes nothing to Redis. The nodes run with the demo's policy as their
 * registry defaults (threshold {@code --threshold}, window 5 s, open 1 s doubling up to 4 s, one
 * probe per half-open window). Every registry is closed before {@link #run} returns.
 */
public final class DemoFleet {

  /** The service every node runs. */
  public static final String CALLER = "checkout";

  /** The dependencies every node calls. */
  public static final List<String> DEPENDENCIES = List.of("payments", "inventory", "search");

  /** The dependency that goes down and recovers. */
  public static final String FAILING = "payments";

  /** The modes the demo measures, in order. */
  public static final List<Mode> MODES = List.of(Mode.LOCAL, Mode.SHARED, Mode.HYBRID);

  /** Pause of each node between two rounds of calls. */
  static final long ROUND_PAUSE_MILLIS = 20;

  /**
   * How the demo runs.
   *
   * @param nodes service instances per mode (1 to 50)
   * @param threshold the failure threshold of every breaker (1 to 100)
   * @param duration the whole run, split evenly between the three modes (15 s to 10 min)
   */
  public record Options(int nodes, int threshold, Duration duration) {
    /** The README's demo: 20 nodes, threshold 5, 30 s of runs. */
    public static final Options DEFAULT = new Options(20, 5, Duration.ofSeconds(30));

    /** Validates the values, naming the bad one. */
    public Options {
      if (nodes < 1 || nodes > 50) {
        throw new IllegalArgumentException("--nodes must be 1 to 50 but was " + nodes);
      }
      if (threshold < 1 || threshold > 100) {
        throw new IllegalArgumentException("--threshold must be 1 to 100 but was " + threshold);
      }
      if (duration.compareTo(Duration.ofSeconds(15)) < 0
          || duration.compareTo(Duration.ofMinutes(10)) > 0) {
        throw new IllegalArgumentException(
            "--duration must be 15s to 10m but was " + duration.toMillis() + "ms");
      }
    }
  }

  private final String redisUri;
  private final FleetStore store;
  private final PrintWriter out;
  private final boolean terminal;
  private final Options options;
  private volatile DemoPhase live;
  private int liveWidth;

  /**
   * A demo whose nodes connect to {@code redisUri}; {@code store} (the same Redis) reads the
   * breakers' state and streams. Narrates to {@code out}, with a live line redrawn in place when
   * {@code terminal}, else printed every few seconds.
   */
  public DemoFleet(
      String redisUri, FleetStore store, PrintWriter out, boolean terminal, Options o) {
    this.redisUri = redisUri;
    this.store = store;
    this.out = out;
    this.terminal = terminal;
    this.options = o;
  }

  /** The breaker of {@code dependency} in the run of {@code mode}. */
  public static BreakerId breaker(String dependency, Mode mode) {
    return BreakerId.parse(CALLER + ":" + dependency + ":" + mode.name().toLowerCase(Locale.ROOT));
  }

  /** Runs the three modes in turn; returns their rows in {@link #MODES} order. */
  public List<FleetRow> run() {
    Thread ticker = new Thread(this::tick, "demo-live-view");
    ticker.setDaemon(true);
    ticker.start();
    try {
      List<FleetRow> rows = new ArrayList<>();
      Duration each = options.duration().dividedBy(MODES.size());
      for (Mode mode : MODES) {
        rows.add(new DemoPhase(this, mode, each).run());
      }
      return rows;
    } finally {
      ticker.interrupt();
    }
  }

  Policy policy() {
    return Policy.builder()
        .failureThreshold(options.threshold())
        .window(Duration.ofSeconds(5))
        .open(Duration.ofSeconds(1))
        .maxOpen(Duration.ofSeconds(4))
        .halfOpenPermits(1)
        .probeLease(Duration.ofSeconds(5))
        .build();
  }

  Options options() {
    return options;
  }

  String redisUri() {
    return redisUri;
  }

  FleetStore store() {
    return store;
  }

  /** Shows {@code phase} in the live line (null: none). */
  void live(DemoPhase phase) {
    synchronized (out) {
      clearLive();
      live = phase;
    }
  }

  void say(String line) {
    synchronized (out) {
      clearLive();
      out.println("demo: " + line);
      drawLive();
      out.flush();
    }
  }

  private void tick() {
    long every = terminal ? 250 : 3_000;
    while (!Thread.currentThread().isInterrupted()) {
      try {
        Thread.sleep(every);
      } catch (InterruptedException e) {
        return;
      }
      synchronized (out) {
        if (live == null) {
          continue;
        }
        if (terminal) {
          clearLive();
          drawLive();
        } else {
          out.println("demo: " + live.liveLine());
        }
        out.flush();
      }
    }
  }

  private void drawLive() {
    if (terminal && live != null) {
      String line = live.liveLine();
      out.print(line);
      liveWidth = line.length();
    }
  }

  private void clearLive() {
    if (terminal && liveWidth > 0) {
      out.print("\r\033[2K");
      liveWidth = 0;
    }
  }

  static void pause(long millis) {
    if (millis <= 0) {
      return;
    }
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CancellationException("the demo was interrupted");
    }
  }
}
