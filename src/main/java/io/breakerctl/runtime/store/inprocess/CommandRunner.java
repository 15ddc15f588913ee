package io.breakerctl.runtime.store.inprocess;

import io.breakerctl.runtime.store.StoreException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * How an {@link InProcessBreakerStore} runs a command, as Redis runs a script: counted by kind,
 * failed as the injected {@link StoreFaults} say, and run one at a time under one lock, so a read
 * never sees half of another command's change. Without it a node's background read, taken while
 * another thread's failure tripped the breaker, saw the new generation with the old state (CLOSED
 * at generation 1), and the node took the fleet's trip back: 3 probes without a lease in 400 runs
 * of a two-node trip on a loaded machine. Deliveries a command asks for ({@link #afterCommand}) run
 * once it has released the lock, still before its future completes, so a node's message handler
 * never waits for the store while the store waits for that node.
 */
final class CommandRunner {
  private final StoreFaults faults;
  private final Map<String, AtomicLong> commands = new ConcurrentHashMap<>();

  /** Held by each command while it runs. */
  private final Object commandLock = new Object();

  /** The deliveries of the command this thread runs, made once it released the lock. */
  private final ThreadLocal<List<Runnable>> outbox = new ThreadLocal<>();

  CommandRunner(StoreFaults faults) {
    this.faults = faults;
  }

  /** Counts one command of {@code kind}. */
  void count(String kind) {
    commands.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
  }

  /** The commands of {@code kind} answered or refused so far. */
  long commands(String kind) {
    AtomicLong n = commands.get(kind);
    return n == null ? 0 : n.get();
  }

  /** Runs {@code command} as one command of {@code kind}: its answer, or the fault's error. */
  <T> CompletableFuture<T> run(String kind, Supplier<T> command) {
    count(kind);
    StoreException failure = faults.failure(kind);
    if (failure != null) {
      return CompletableFuture.failedFuture(failure);
    }
    List<Runnable> outer = outbox.get();
    List<Runnable> mine = new ArrayList<>();
    outbox.set(mine);
    CompletableFuture<T> answer;
    try {
      synchronized (commandLock) {
        answer = CompletableFuture.completedFuture(command.get());
      }
    } catch (RuntimeException e) {
      answer = CompletableFuture.failedFuture(e);
    } finally {
      outbox.set(outer);
    }
    mine.forEach(Runnable::run);
    return answer;
  }

  /** Makes a change outside any command under the commands' lock (FLUSHALL, a lost key). */
  void exclusively(Runnable change) {
    synchronized (commandLock) {
      change.run();
    }
  }

  /** Runs {@code delivery} once the current command released the lock (at once outside one). */
  void afterCommand(Runnable delivery) {
    List<Runnable> pending = outbox.get();
    if (pending == null) {
      delivery.run();
    } else {
      pending.add(delivery);
    }
  }
}
