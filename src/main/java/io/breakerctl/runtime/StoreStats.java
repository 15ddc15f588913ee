package io.breakerctl.runtime;

import io.breakerctl.runtime.store.BreakerStore;
import java.util.EnumMap;
import java.util.Map;

/**
 * What a node's store connection has cost and how often it failed, since the registry started: the
 * source of the registry-level meters ({@code BreakerRegistryMetrics}). Cumulative counts, read
 * without locking. Every command the node sends through its {@link BreakerStore} is counted, by
 * {@link StoreCommand}: the calls' acquires and records, flushes, refresh and stamp reads,
 * overrides, re-assertions and warms the runtime makes, pings.
 *
 * @param commands commands that answered, all kinds
 * @param commandNanos their total round-trip time
 * @param failures commands that failed or timed out, all kinds
 * @param degradedNanos total time the node was degraded (Redis unreachable), the current
 *     degradation included
 * @param degraded whether the node is degraded now
 * @param byCommand the same counts per kind of command (every kind present)
 */
public record StoreStats(
    long commands,
    long commandNanos,
    long failures,
    long degradedNanos,
    boolean degraded,
    Map<StoreCommand, Command> byCommand) {

  /** A registry that never uses Redis (LOCAL mode). */
  public static final StoreStats NONE = of(new EnumMap<>(StoreCommand.class), 0, false);

  /** Keeps an unmodifiable copy of {@code byCommand}. */
  public StoreStats {
    byCommand = Map.copyOf(byCommand);
  }

  /** The counts of one kind of command. */
  public Command command(StoreCommand kind) {
    return byCommand.getOrDefault(kind, Command.NONE);
  }

  /** The totals of {@code byCommand} (kinds missing there count zero). */
  public static StoreStats of(
      Map<StoreCommand, Command> byCommand, long degradedNanos, boolean degraded) {
    Map<StoreCommand, Command> all = new EnumMap<>(StoreCommand.class);
    long n = 0;
    long nanos = 0;
    long failed = 0;
    for (StoreCommand k : StoreCommand.values()) {
      Command c = byCommand.getOrDefault(k, Command.NONE);
      all.put(k, c);
      n += c.count();
      nanos += c.nanos();
      failed += c.failures();
    }
    return new StoreStats(n, nanos, failed, degradedNanos, degraded, all);
  }

  /**
   * One kind of command's counts.
   *
   * @param count commands that answered
   * @param nanos their total round-trip time
   * @param failures commands that failed or timed out
   */
  public record Command(long count, long nanos, long failures) {
    /** Nothing sent. */
    public static final Command NONE = new Command(0, 0, 0);
  }
}
