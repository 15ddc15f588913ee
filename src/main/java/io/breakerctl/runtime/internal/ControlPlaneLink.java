package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.BackgroundTask;
import io.breakerctl.runtime.PolicySource;
import io.breakerctl.runtime.control.ControlConfig;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.history.HistoryForwarder;
import io.breakerctl.runtime.control.policy.PolicyControl;
import io.breakerctl.runtime.control.policy.PolicyVersion;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.store.BreakerStore;
import io.breakerctl.runtime.store.FleetStore;
import io.breakerctl.runtime.store.PolicyEncoding.WarmedPolicy;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.runtime.store.WarmResult;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A registry's link to the MongoDB control plane (only when one is configured): the history
 * hand-off of transitions this node won, the fleet forwarder this node runs while it holds the
 * forwarder lease, and policy resolution when Redis holds no policy for a breaker.
 *
 * <p>Nothing here is on a call's path: the hand-off queue is bounded and {@link #handOff} never
 * blocks (a dropped id is caught by the fleet forwarder's next pass, since the stream keeps every
 * unforwarded event). MongoDB being down only delays history.
 */
final class ControlPlaneLink implements PolicySource, AutoCloseable {
  /** How long the forwarder lease lasts; the holder renews it every third of that. */
  static final Duration LEASE = Duration.ofSeconds(15);

  private final ControlDatabase db;
  private final Supplier<FleetStore> store;
  private final Supplier<BreakerStore> commands;
  private final BackgroundHealth health;
  private final String node;
  private final Clock clock;
  private final BlockingQueue<BreakerId> queue = new ArrayBlockingQueue<>(1024);
  private final Thread worker;
  private volatile boolean closed;
  private HistoryForwarder fleetForwarder;
  private FleetStore fleetStore;

  ControlPlaneLink(
      ControlConfig config,
      Supplier<FleetStore> store,
      Supplier<BreakerStore> commands,
      String node,
      Clock clock,
      ScheduledExecutorService scheduler,
      BackgroundHealth health) {
    this.health = health;
    this.db = ControlDatabase.connect(config);
    this.store = store;
    this.commands = commands;
    this.node = node;
    this.clock = clock;
    this.worker = new Thread(this::drain, "breakerctl-history-" + node);
    worker.setDaemon(true);
    worker.start();
    long every = LEASE.toMillis() / 3;
    scheduler.scheduleWithFixedDelay(this::forwardIfLeader, 0, every, TimeUnit.MILLISECONDS);
  }

  /** Queues a breaker whose transition this node won; never blocks (false when full). */
  boolean handOff(BreakerId id) {
    return queue.offer(id);
  }

  private void drain() {
    while (!closed) {
      try {
        BreakerId id = queue.poll(500, TimeUnit.MILLISECONDS);
        FleetStore s = store.get();
        if (id != null && s != null) {
          fleetForwarder(s).syncBreaker(id); // one identity lookup per store, not per hand-off
          health.succeeded(BackgroundTask.FORWARDING);
        }
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        // MongoDB or Redis down: the event stays in the stream for the next pass
        health.failed(BackgroundTask.FORWARDING, e);
      }
    }
  }

  /** Runs one fleet-wide forwarding pass when this node holds (or takes) the forwarder lease. */
  void forwardIfLeader() {
    FleetStore s = store.get();
    if (closed || s == null) {
      return;
    }
    try {
      String holder = StoreFutures.await(s.holdForwarderLease(node, LEASE));
      if (node.equals(holder)) {
        fleetForwarder(s).syncOnce();
      }
      health.succeeded(BackgroundTask.FORWARDING);
    } catch (RuntimeException e) {
      // retried on the next tick
      health.failed(BackgroundTask.FORWARDING, e);
    }
  }

  /**
   * One forwarder per store, kept across passes: its passes read only the breakers marked
   * unforwarded, with a full sweep on its first pass and every {@link
   * HistoryForwarder#FULL_SWEEP_EVERY}.
   */
  private synchronized HistoryForwarder fleetForwarder(FleetStore s) {
    if (fleetForwarder == null || fleetStore != s) {
      fleetForwarder = new HistoryForwarder(db, s, node, clock);
      fleetStore = s;
    }
    return fleetForwarder;
  }

  @Override
  public Optional<WarmedPolicy> resolveAndWarm(BreakerId id) {
    FleetStore s = store.get();
    if (s == null) {
      return Optional.empty();
    }
    try {
      Optional<PolicyVersion> v = new PolicyControl(db, s, clock).resolve(id).map(r -> r.value());
      if (v.isEmpty()) {
        return Optional.empty();
      }
      PolicyVersion pv = v.get();
      // through the registry's timed store, so the warm is one of the node's timed commands
      WarmResult w =
          StoreFutures.await(
              commands.get().warm(id, pv.policyId().toString(), pv.version(), pv.policy(), node));
      health.succeeded(BackgroundTask.POLICY_RESOLUTION);
      if (!w.policyId().equals(pv.policyId().toString()) || w.policyVersion() != pv.version()) {
        return Optional.empty(); // the keys hold something else (newer, or removed): read them
      }
      return Optional.of(new WarmedPolicy(w.policyId(), w.policyVersion(), pv.policy()));
    } catch (RuntimeException e) {
      health.failed(BackgroundTask.POLICY_RESOLUTION, e);
      return Optional.empty();
    }
  }

  @Override
  public void close() {
    closed = true;
    worker.interrupt();
    db.close();
  }
}
