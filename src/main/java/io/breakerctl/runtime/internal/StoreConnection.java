package io.breakerctl.runtime.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.breakerctl.runtime.BackgroundTask;
import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.RegistryOptions;
import io.breakerctl.runtime.redis.RedisBreakerStore;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.BreakerStore;
import io.breakerctl.runtime.store.StoreException;
import io.breakerctl.runtime.store.StoreFault;
import io.breakerctl.runtime.store.StoreFutures;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A registry's connection to its store and its pub/sub subscription: connecting (at the start and
 * from a recovery check), subscribing again with backoff, replacing a subscription that closed or
 * went silent (the beacon), and the warm-up of the message path at the start.
 */
final class StoreConnection {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final System.Logger LOG = System.getLogger(BreakerRegistry.class.getName());

  /** Re-subscription after a failed (re)subscribe: first after this, doubling with jitter. */
  private static final long RESUBSCRIBE_MILLIS = 100;

  private static final long RESUBSCRIBE_MAX_MILLIS = 5_000;

  /** A subscription whose connection stayed closed this long is replaced by a new one. */
  private static final long SUBSCRIPTION_DEAD_MILLIS = 2_000;

  private final DefaultBreakerRegistry registry;
  private final RegistryOptions cfg;

  private volatile BreakerStore.Subscription subscription;
  private volatile boolean listening = true;
  private volatile long subscriptionClosedSince;
  private volatile boolean subscriptionLossReported;
  private volatile long resubscribeDelay = RESUBSCRIBE_MILLIS;

  /**
   * The last beacon this node sent itself through its subscription (see {@link #checkBeacon}), the
   * last it heard back, and when it sent one (on the registry's ticker).
   */
  private volatile long beaconSent;

  private volatile long beaconHeard;
  private volatile long beaconSentAt;
  private final AtomicBoolean resubscribeScheduled = new AtomicBoolean();

  private final CountDownLatch warmedUp = new CountDownLatch(1);
  private final String warmUpNonce;

  /** Why the last connect failed (the degradation's reason when the node starts without Redis). */
  private volatile StoreFault connectFault = StoreFault.UNREACHABLE;

  StoreConnection(DefaultBreakerRegistry registry) {
    this.registry = registry;
    this.cfg = registry.options();
    // an identity, not a time: random, so registries on one test ticker (or started in the same
    // nanosecond) never take each other's hello or beacons for their own
    this.warmUpNonce = Long.toHexString(ThreadLocalRandom.current().nextLong());
  }

  /** Why the last connect failed. */
  StoreFault connectFault() {
    return connectFault;
  }

  /** The subscription (null: none, or stopped listening). */
  BreakerStore.Subscription subscription() {
    return subscription;
  }

  /** False once {@link #stopListening} ran. */
  boolean listening() {
    return listening;
  }

  /** The nonce of this registry's own messages (the warm-up's hello, the beacons). */
  String nonce() {
    return warmUpNonce;
  }

  boolean connect() {
    BreakerStore s;
    try {
      if (cfg.store() != null) {
        s = cfg.store();
      } else if (cfg.redisClient() != null) {
        s =
            RedisBreakerStore.create(
                cfg.redisClient(), cfg.prefix(), cfg.idleTtl(), cfg.commandTimeout());
      } else if (cfg.redisClusterClient() != null) {
        s =
            RedisBreakerStore.create(
                cfg.redisClusterClient(), cfg.prefix(), cfg.idleTtl(), cfg.commandTimeout());
      } else {
        s =
            RedisBreakerStore.connect(
                StoreConfig.builder()
                    .uri(cfg.redisUri())
                    .timeout(cfg.connectTimeout())
                    .commandTimeout(cfg.commandTimeout())
                    .prefix(cfg.prefix())
                    .idleTtl(cfg.idleTtl())
                    .build());
      }
    } catch (StoreException e) {
      connectFault = e.fault();
      return false;
    }
    if (s instanceof RedisBreakerStore r && cfg.controlPlane() != null) {
      r.forwardsHistory(cfg.historyHold()); // history has a destination: see historyHold
    }
    RedisFleetStore fleet = null;
    if (s instanceof RedisBreakerStore r) {
      fleet = RedisFleetStore.over(r); // the control plane's port, on the node's connection
      registry.fleet(fleet);
    }
    BreakerStore connected = s;
    s = registry.connected(connected); // whoever sees the connection sees its timed store
    if (subscribe(s)) {
      warmUp();
    }
    try {
      StoreFutures.await(s.warmUp(), cfg.connectTimeout());
    } catch (StoreException e) {
      // a node that cannot warm its script path still works; its first call pays for it
    }
    // the periodic check's baseline: its first run (checkInterval after the start) then compares
    // with what Redis held at the start, and its read path is not cold at that moment
    registry.refresher().readCanary(s);
    warnIfEvicting(fleet);
    return true;
  }

  /**
   * Logs once, at start, when Redis may evict breaker keys ({@code maxmemory} with a policy other
   * than {@code noeviction}: {@link RedisFleetStore#evictionRisk()}). A user without {@code CONFIG
   * GET} cannot tell, and nothing is logged; {@code breakerctl doctor} says so.
   */
  private static void warnIfEvicting(RedisFleetStore fleet) {
    if (fleet != null) {
      fleet
          .evictionRisk()
          .whenComplete(
              (risk, e) -> {
                if (e == null && risk.isPresent()) {
                  LOG.log(System.Logger.Level.WARNING, "Redis " + risk.get());
                }
              });
    }
  }

  /**
   * Subscribes to the fleet's messages; a failure closes what it opened and retries in the
   * background with a jittered, doubling delay, so pub/sub is never lost for good.
   */
  private boolean subscribe(BreakerStore s) {
    if (!listening || registry.isClosed()) {
      return false;
    }
    try {
      BreakerStore.Subscription sub =
          s.subscribe(
              registry.messages()::onMessage,
              () -> registry.background(registry.refresher()::readAll));
      BreakerStore.Subscription old = subscription;
      subscription = sub;
      subscriptionClosedSince = 0;
      resubscribeDelay = RESUBSCRIBE_MILLIS;
      if (old != null) {
        old.close();
      }
      registry.health().succeeded(BackgroundTask.SUBSCRIPTION);
      return true;
    } catch (StoreException e) {
      registry.health().failed(BackgroundTask.SUBSCRIPTION, e);
      scheduleResubscribe();
      return false;
    }
  }

  private void scheduleResubscribe() {
    if (registry.isClosed() || !resubscribeScheduled.compareAndSet(false, true)) {
      return;
    }
    long delay = DefaultBreakerRegistry.jitter(resubscribeDelay);
    resubscribeDelay = Math.min(RESUBSCRIBE_MAX_MILLIS, resubscribeDelay * 2);
    try {
      registry
          .scheduler()
          .schedule(
              () -> {
                resubscribeScheduled.set(false);
                BreakerStore s = registry.store();
                if (s != null && subscribe(s)) {
                  registry.background(registry.refresher()::readAll);
                }
              },
              delay,
              TimeUnit.MILLISECONDS);
    } catch (RuntimeException e) {
      resubscribeScheduled.set(false); // rejected after close
    }
  }

  /**
   * Replaces a subscription whose connection stayed closed (Lettuce reconnects and resubscribes by
   * itself while the server it chose comes back; on a Cluster whose node died it must move).
   */
  void watchSubscription() {
    BreakerStore s = registry.store();
    if (!listening || s == null) {
      return;
    }
    BreakerStore.Subscription sub = subscription;
    if (sub == null) {
      scheduleResubscribe();
      return;
    }
    if (sub.isOpen()) {
      subscriptionClosedSince = 0;
      subscriptionLossReported = false;
      checkBeacon(s, sub);
      return;
    }
    StoreGuard guard = registry.guard();
    if (!subscriptionLossReported && guard.up()) {
      // An idle node sends nothing, so its subscription's connection is what notices a lost
      // Redis first: one failure per closure starts the guard's confirming PING.
      subscriptionLossReported = true;
      guard.failure(
          new io.breakerctl.runtime.store.StoreUnavailableException(
              "the pub/sub connection closed", null));
    }
    long now = registry.nanoTime();
    if (subscriptionClosedSince == 0) {
      subscriptionClosedSince = now;
    } else if (now - subscriptionClosedSince > SUBSCRIPTION_DEAD_MILLIS * 1_000_000) {
      subscriptionClosedSince = 0;
      scheduleResubscribe();
    }
  }

  /**
   * A subscription that cannot go silent. Its connection can stay open while its server delivers
   * nothing (a stalled replica: an override went unobeyed by 4 of 6 nodes for 25.7 s with every
   * master healthy, the canary and the stamp sweep blind to it). So every half {@code
   * checkInterval} the node publishes a beacon to itself through the command connection, on a
   * channel only its subscription hears ({@link BreakerStore.Subscription#beacon}), and a beacon
   * not heard back within that half interval makes the subscription silent: counted and logged (the
   * background task {@code subscription}), replaced at once (on a Cluster by one on a master), and
   * the new subscription's start reads every breaker, as after any resubscription. A stall is so
   * noticed within one {@code checkInterval}. One PUBLISH per node per half interval, heard by that
   * node alone.
   */
  private void checkBeacon(BreakerStore s, BreakerStore.Subscription sub) {
    long now = registry.nanoTime();
    if (!registry.guard().up() || now - beaconSentAt < cfg.checkInterval().toNanos() / 2) {
      return;
    }
    beaconSentAt = now;
    if (beaconHeard < beaconSent) {
      beaconHeard = beaconSent;
      registry
          .health()
          .failed(
              BackgroundTask.SUBSCRIPTION,
              new IllegalStateException(
                  "the pub/sub subscription delivered nothing for "
                      + cfg.checkInterval().toMillis() / 2
                      + " ms while its connection stayed open (its server stalled?): subscribing"
                      + " again"));
      registry.background(
          () -> {
            if (subscription == sub && subscribe(s)) {
              registry.background(registry.refresher()::readAll);
            }
          });
      return;
    }
    long seq = beaconSent + 1;
    beaconSent = seq;
    ObjectNode beacon =
        JSON.createObjectNode()
            .put("type", "beacon")
            .put("node", cfg.nodeId())
            .put("nonce", warmUpNonce)
            .put("seq", seq);
    sub.beacon(beacon.toString())
        .whenComplete(
            (n, e) -> {
              if (e != null && beaconHeard < seq) {
                beaconHeard = seq; // not sent: Redis failing is the guard's to judge, not silence
              }
            });
  }

  /** A beacon heard back through the subscription: ours when its nonce is. */
  void beaconHeard(String nonce, long seq) {
    if (warmUpNonce.equals(nonce) && seq > beaconHeard) {
      beaconHeard = seq;
    }
  }

  /**
   * Sends this node one message through its own subscription and waits (bounded) until it has run
   * through the whole message path (Lettuce's pub/sub decoding, JSON, the view update), so the
   * first real trip is not the message that pays for class loading and a cold path.
   */
  private void warmUp() {
    BreakerStore.Subscription sub = subscription;
    if (sub == null || warmedUp.getCount() == 0) {
      return;
    }
    try {
      ObjectNode hello =
          JSON.createObjectNode()
              .put("type", "hello")
              .put("node", cfg.nodeId())
              .put("nonce", warmUpNonce);
      hello.set(
          "message", MessagePath.warmUpTransitions(cfg.nodeId(), System.currentTimeMillis())[0]);
      sub.publish(hello.toString());
      warmedUp.await(Math.min(cfg.connectTimeout().toMillis(), 1_000), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      // a node that cannot warm its path still works; the first message pays for it
    }
  }

  /** The message path ran the warm-up's hello: {@link #warmUp} waits no longer. */
  void warmedUp() {
    warmedUp.countDown();
  }

  /**
   * Stops listening to pub/sub (the node then learns only from its periodic refresh and its own
   * script results). Tests use it to make a node miss fleet messages.
   */
  void stopListening() {
    listening = false;
    try {
      AutoCloseable sub = subscription;
      subscription = null;
      if (sub != null) {
        sub.close();
      }
    } catch (Exception e) {
      // nothing to release
    }
  }

  /** Closes the subscription (the registry's close). */
  void close() {
    try {
      AutoCloseable sub = subscription;
      if (sub != null) {
        sub.close();
      }
    } catch (Exception e) {
      // closing a subscription cannot fail the caller
    }
  }
}
