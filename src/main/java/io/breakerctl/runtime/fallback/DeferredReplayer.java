package io.breakerctl.runtime.fallback;

import io.breakerctl.runtime.CallNotPermittedException;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.CircuitEvent;
import io.breakerctl.runtime.model.State;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Runs a breaker's deferred requests whenever it admits calls: on the transition to a state that
 * admits them and every {@code interval} while in one. CLOSED, FORCED_CLOSED (an operator says the
 * dependency takes calls), METRICS_ONLY and DISABLED (calls flow, the breaker only measures or does
 * nothing) admit calls; OPEN and FORCED_OPEN do not, and HALF_OPEN admits only its probes, which a
 * replay must not take. Each request runs under its replay lease in MongoDB ({@link
 * DeferredQueue#claimAttempt}, which counts the attempt before the work runs), through the breaker,
 * with its tracking id as idempotency key ({@link DeferredWork#run(byte[], String)}); its result is
 * recorded for {@link Fallbacks#deferred}. Delivery is at least once: a node that stops mid-run
 * leaves its lease to run out and another node runs the request again, recorded as the next
 * attempt.
 *
 * <p>A request no replay can read (its payload does not decrypt, its record is malformed) is
 * quarantined: FAILED with the reason as its result, counted ({@code deferred.finished}, result
 * {@code quarantined}) and logged; the others are replayed. A request whose attempts all started
 * without recording an end fails once its last lease runs out.
 *
 * <p>In every state, every {@code countInterval}, it counts the breaker's pending requests in the
 * control plane (the whole fleet's, uncapped) and reports the count to the breaker's observer: the
 * {@code deferred.pending} gauge reads that cached figure, so no call and no meter poll waits on
 * MongoDB.
 */
final class DeferredReplayer<T> implements AutoCloseable {
  static final int BATCH = 100;

  private final CircuitBreaker breaker;
  private final DeferredQueue requests;
  private final DeferredWork<T> work;
  private final String owner;
  private final Duration lease;
  private final int maxAttempts;
  private final ScheduledThreadPoolExecutor scheduler;
  private final AutoCloseable listener;

  DeferredReplayer(
      CircuitBreaker breaker,
      DeferredQueue requests,
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
    this.scheduler = SnapshotAgeCheck.daemon("breakerctl-deferred-" + breaker.id());
    long every = interval.toMillis();
    scheduler.scheduleWithFixedDelay(this::drain, every, every, TimeUnit.MILLISECONDS);
    long count = countInterval.toMillis();
    scheduler.scheduleWithFixedDelay(this::countPending, 0, count, TimeUnit.MILLISECONDS);
    this.listener =
        breaker.onEvent(
            e -> {
              if (e.type() == CircuitEvent.Type.TRANSITION && admits(e.to())) {
                scheduler.execute(this::drain);
              }
            });
  }

  private static final System.Logger LOG = System.getLogger(Fallbacks.class.getName());

  /** Whether a breaker in {@code s} admits calls (and so replays). */
  static boolean admits(State s) {
    return s == State.CLOSED
        || s == State.FORCED_CLOSED
        || s == State.METRICS_ONLY
        || s == State.DISABLED;
  }

  /** Replays what is pending while the breaker admits calls; MongoDB being down waits a round. */
  void drain() {
    if (!admits(breaker.view().state())) {
      return;
    }
    try {
      List<DeferredRequest> pending = requests.pending(breaker.id(), BATCH, this::quarantine);
      for (DeferredRequest r : pending) {
        java.util.OptionalInt attempt =
            requests.claimAttempt(r.trackingId(), owner, lease, maxAttempts);
        if (attempt.isEmpty()) {
          requests.exhaust(r.trackingId(), maxAttempts);
          continue;
        }
        if (!replay(r, attempt.getAsInt())) {
          return;
        }
      }
    } catch (RuntimeException e) {
      // MongoDB unavailable: the next round tries again
    }
  }

  /** Takes an unreadable request out of the queue, counted and logged. */
  private void quarantine(String trackingId, String why) {
    if (requests.quarantine(trackingId, why)) {
      breaker.observer().deferredQuarantined();
      LOG.log(
          System.Logger.Level.WARNING,
          "breakerctl breaker {0}: deferred request {1} quarantined as FAILED ({2}); the others"
              + " are replayed",
          breaker.id(),
          trackingId,
          why);
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
  private boolean replay(DeferredRequest r, int attempt) {
    T result;
    try {
      result = breaker.callChecked(() -> work.run(r.payload(), r.trackingId()));
    } catch (CallNotPermittedException e) {
      requests.release(r.trackingId(), owner);
      return false;
    } catch (Exception e) {
      if (requests.finish(r.trackingId(), owner, false, e.toString(), maxAttempts)
          && attempt >= maxAttempts) {
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
