package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.model.RenewOutcome;
import io.breakerctl.runtime.store.RenewResult;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Keeps the lease of one probe this node is running alive while its call runs ({@code renew.lua},
 * or the local machine's {@code renew} for a probe it granted), so that no other caller is granted
 * the slot however long the call takes; and, {@code maxProbeSeconds} after the grant, sends the
 * renewal that ends the probe as failed (the breaker reopens with backoff), so a call that never
 * returns cannot hold the breaker half-open.
 *
 * <p>Why: a lease that lived {@code probeLeaseSeconds} from its grant freed its slot while a slow
 * probe still ran, so a dependency that hangs longer than the lease got a new probe per lease (up
 * to 4 in flight with a 1 s lease and a 3.5 s hang) and every late failure was ignored.
 *
 * <p>Cost: one renewal per probe every {@code probeLeaseSeconds / 3} and one at the deadline;
 * nothing per call.
 *
 * <p>The renewals go at a fixed rate from the grant, each without waiting for the one before it to
 * answer, from the registry's timer ({@link BreakerContext#later}), which runs nothing that waits
 * on Redis or on user code. So the lease survives two renewals that are lost, late or unanswered,
 * whatever else the node is doing. Why: the next renewal used to be scheduled when the previous one
 * answered, on the thread that also ran the registry's blocking background work (the canary and
 * stamp reads, the recovery check, health-check probes). One answer that came late on a loaded
 * machine, or one background read that waited on it, pushed the next renewal past the lease's
 * expiry, and a second probe was granted beside a live one (SlowProbeIT, HYBRID, in a CI run with
 * both test forks busy: two calls in flight at the dependency with a 1 s lease).
 *
 * <p>A renewal that fails (Redis down, a timeout) changes nothing here: the next one goes at its
 * time, and the node believes only what the store last confirmed. If the lease expired meanwhile, a
 * renewal answers LEASE_EXPIRED and the renewals end; the probe's result is then sent as usual and
 * not counted (the store decides, never the node's memory of a lease). The renewals end when the
 * probe's outcome is reported ({@link #stop}), when the store answers anything but RENEWED, and
 * when the registry closes.
 */
final class ProbeRenewal implements Runnable {

  /** Sends one renewal of a lease and answers what the store (or the local machine) decided. */
  interface Renewer {
    CompletableFuture<RenewResult> renew();
  }

  /** Hears each answer: RENEWED, PROBE_TIMED_OUT and the others. */
  interface Listener {
    void renewed(RenewResult answer);
  }

  private final BreakerContext registry;
  private final Ticker ticker;
  private final Renewer renewer;
  private final Listener listener;
  private final long intervalNanos;
  private final long deadlineNanos; // 0: no bound
  private long dueNanos; // when the next renewal goes (the timer's thread only, after start)
  private final AtomicBoolean done = new AtomicBoolean();
  private volatile ScheduledFuture<?> next;

  private ProbeRenewal(
      BreakerContext registry,
      Renewer renewer,
      Listener listener,
      long leaseMillis,
      long maxProbeMillis) {
    this.registry = registry;
    this.ticker = registry.ticker();
    this.renewer = renewer;
    this.listener = listener;
    this.intervalNanos = Math.max(1, leaseMillis / 3) * 1_000_000;
    long now = ticker.read();
    this.deadlineNanos = maxProbeMillis > 0 ? Math.max(1, now + maxProbeMillis * 1_000_000) : 0;
    this.dueNanos = now;
  }

  /**
   * Starts renewing a lease granted just now.
   *
   * @param leaseMillis the policy's {@code probeLeaseSeconds} in ms
   * @param maxProbeMillis the policy's {@code maxProbeSeconds} in ms, 0 for no bound
   */
  static ProbeRenewal start(
      BreakerContext registry,
      Renewer renewer,
      Listener listener,
      long leaseMillis,
      long maxProbeMillis) {
    ProbeRenewal r = new ProbeRenewal(registry, renewer, listener, leaseMillis, maxProbeMillis);
    r.scheduleNext();
    return r;
  }

  /** Ends the renewals: the probe's outcome is being reported. */
  void stop() {
    done.set(true);
    ScheduledFuture<?> f = next;
    if (f != null) {
      f.cancel(false);
    }
  }

  @Override
  public void run() {
    if (done.get()) {
      return;
    }
    CompletableFuture<RenewResult> answer;
    try {
      answer = renewer.renew();
    } catch (RuntimeException e) {
      answer = null; // the next renewal goes at its time
    }
    scheduleNext(); // at a fixed rate: never after this one's answer
    if (answer != null) {
      answer.whenComplete(
          (r, e) -> {
            if (e != null || done.get()) {
              return; // an answer that failed: the next renewal is already on its way
            }
            // several renewals may be in flight: the first answer that ends the lease is the one
            // heard, once
            if (r.outcome() == RenewOutcome.RENEWED || done.compareAndSet(false, true)) {
              if (r.outcome() != RenewOutcome.RENEWED) {
                stop();
              }
              listener.renewed(r);
            }
          });
    }
  }

  /**
   * Schedules the next renewal one interval after the last one was due (not after it ran), and the
   * one at the deadline when it comes first; one interval after the deadline the renewals go on
   * until the store answers (PROBE_TIMED_OUT ends them).
   */
  private void scheduleNext() {
    if (done.get()) {
      return;
    }
    long now = ticker.read();
    // one interval after the last one was due; a node that was frozen past it (SIGSTOP, a long
    // pause) sends one renewal now, not one for every interval it missed
    long due = Math.max(dueNanos + intervalNanos, now);
    if (deadlineNanos != 0 && dueNanos < deadlineNanos && deadlineNanos < due) {
      due = deadlineNanos;
    }
    dueNanos = due;
    long delay = Math.max(0, (due - now + 999_999) / 1_000_000);
    ScheduledFuture<?> f = registry.later(this, delay);
    if (f == null) {
      done.set(true); // the registry is closed
      return;
    }
    next = f;
    if (done.get()) {
      f.cancel(false);
    }
  }
}
