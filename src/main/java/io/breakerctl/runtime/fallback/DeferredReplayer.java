package io.breakerctl.runtime.fallback;

import io.breakerctl.runtime.CallNotPermittedException;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.CircuitEvent;
import io.breakerctl.runtime.control.DeferredRequest;
import io.breakerctl.runtime.control.DeferredRequests;
import io.breakerctl.runtime.model.State;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Runs a breaker's deferred requests once it admits calls again: on the transition to CLOSED and
 * every {@code interval} while it is closed. Each request runs under its replay lease in MongoDB
 * ({@link DeferredRequests#claim}), through the breaker, so at most one node runs it; its result is
 * recorded for {@link Fallbacks#deferred}.
 *
 * <p>In every state, every {@code countInterval}, it counts the breaker's pending requests in the
 * control plane (the whole fleet's, uncapped) and reports the count to the breaker's observer: the
 * {@code deferred.pending} gauge reads that cached figure, so no call and no meter poll waits on
 * MongoDB.
 */
final class DeferredReplayer<T> implements AutoCloseable {
  static final int BATCH = 100;

  private final CircuitBreaker breaker;
  private final DeferredRequests requests;
  private final DeferredWork<T> work;
  private final String owner;
  private final Duration lease;
  private final int maxAttempts;
  private final ScheduledThreadPoolExecutor scheduler;
  private final AutoCloseable listener;

  DeferredReplayer(
      CircuitBreaker breaker,
      DeferredRequests requests,
      DeferredWork<T> work,
      String owner,
      Duration lease,
      Duration interval,
      Duration countInterval,
      int maxAttempts) {
    this.breaker = breaker;
    this.requests = requests;
    this.work = work;
    this.owner = owner;
    this.lease = lease;
    this.maxAttempts = maxAttempts;
    this.scheduler =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "breakerctl-deferred-" + breaker.id());
              t.setDaemon(true);
              return t;
            });
    long every = interval.toMillis();
    scheduler.scheduleWithFixedDelay(this::drain, every, every, TimeUnit.MILLISECONDS);
    long count = countInterval.toMillis();
    scheduler.scheduleWithFixedDelay(this::countPending, 0, count, TimeUnit.MILLISECONDS);
    this.listener =
        breaker.onEvent(
            e -> {
              if (e.type() == CircuitEvent.Type.TRANSITION && e.to() == State.CLOSED) {
                scheduler.execute(this::drain);
              }
            });
  }

  /** Replays what is pending while the breaker is closed; MongoDB being down waits a round. */
  void drain() {
    if (breaker.view().state() != State.CLOSED) {
      return;
    }
    try {
      List<DeferredRequest> pending = requests.pending(breaker.id(), BATCH);
      for (DeferredRequest r : pending) {
        if (requests.claim(r.trackingId(), owner, lease) && !replay(r)) {
          return;
        }
      }
    } catch (RuntimeException e) {
      // MongoDB unavailable or a payload that no longer decrypts: the next round tries again
    }
  }

  /** Counts the breaker's pending requests fleet-wide; MongoDB being down keeps the last count. */
  void countPending() {
    try {
      breaker.observer().deferredPending(requests.pendingCount(breaker.id()));
    } catch (RuntimeException e) {
      // MongoDB unavailable: the gauge keeps its last count until the next round
    }
  }

  /** Runs one claimed request; false when the breaker rejected it (stop for this round). */
  private boolean replay(DeferredRequest r) {
    T result;
    try {
      result = breaker.callChecked(() -> work.run(r.payload()));
    } catch (CallNotPermittedException e) {
      requests.release(r.trackingId(), owner);
      return false;
    } catch (Exception e) {
      if (requests.finish(r.trackingId(), owner, false, e.toString(), maxAttempts)
          && r.attempts() + 1 >= maxAttempts) {
        breaker.observer().deferredFinished(false);
      }
      return true;
    }
    if (requests.finish(r.trackingId(), owner, true, work.summarize(result), maxAttempts)) {
      breaker.observer().deferredFinished(true);
    }
    return true;
  }

  @Override
  public void close() {
    try {
      listener.close();
    } catch (Exception e) {
      // removing a listener cannot fail in practice
    }
    scheduler.shutdownNow();
  }
}
