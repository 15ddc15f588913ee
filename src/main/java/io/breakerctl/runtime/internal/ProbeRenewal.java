package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.model.RenewOutcome;
import io.breakerctl.runtime.store.RenewResult;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;

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
 * <p>Cost: one renewal per probe every {@code probeLeaseSeconds / 3} (the lease survives two lost
 * renewals) and one at the deadline; nothing per call. Renewals are sent from the registry's
 * scheduler and answered on the client's thread. A renewal that fails (Redis down, a timeout)
 * changes nothing here: the node keeps trying at the same interval and believes only what the store
 * last confirmed. If the lease expired meanwhile, the next renewal answers LEASE_EXPIRED and the
 * renewals end; the probe's result is then sent as usual and not counted (the store decides, never
 * the node's memory of a lease). The renewals end when the probe's outcome is reported ({@link
 * #stop}), when the store answers anything but RENEWED, and when the registry closes.
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
  private final long intervalMillis;
  private final long deadlineNanos; // 0: no bound
  private volatile boolean done;
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
    this.intervalMillis = Math.max(1, leaseMillis / 3);
    this.deadlineNanos =
        maxProbeMillis > 0 ? Math.max(1, ticker.read() + maxProbeMillis * 1_000_000) : 0;
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
    done = true;
    ScheduledFuture<?> f = next;
    if (f != null) {
      f.cancel(false);
    }
  }

  @Override
  public void run() {
    if (done) {
      return;
    }
    CompletableFuture<RenewResult> answer;
    try {
      answer = renewer.renew();
    } catch (RuntimeException e) {
      scheduleNext();
      return;
    }
    answer.whenComplete(
        (r, e) -> {
          if (done) {
            return;
          }
          if (e != null) {
            scheduleNext(); // the store did not answer: try again; it decides what the lease is
            return;
          }
          if (r.outcome() != RenewOutcome.RENEWED) {
            done = true;
          }
          listener.renewed(r);
          if (!done) {
            scheduleNext();
          }
        });
  }

  private void scheduleNext() {
    if (done) {
      return;
    }
    long delay = intervalMillis;
    if (deadlineNanos != 0) {
      long toDeadline = Math.max(0, (deadlineNanos - ticker.read() + 999_999) / 1_000_000);
      delay = Math.min(delay, toDeadline);
    }
    ScheduledFuture<?> f = registry.later(this, delay);
    if (f == null) {
      done = true; // the registry is closed
      return;
    }
    next = f;
    if (done) {
      f.cancel(false);
    }
  }
}
