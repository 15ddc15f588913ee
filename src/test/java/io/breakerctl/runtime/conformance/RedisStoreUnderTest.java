package io.breakerctl.runtime.conformance;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.BreakerStore;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.RedisServerProcess;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The scripts on a real Redis deployment as {@link StoreUnderTest}: two nodes' connections (nodes
 * with an even index share one, odd ones the other), Redis {@code TIME} as the store's time (waited
 * for, never faked), FLUSHALL on every master as the failover to an empty replica, and {@code PTTL}
 * of every key of a breaker read with {@code TIME} in one {@code EVAL} (one instant) for key
 * expiry.
 */
final class RedisStoreUnderTest implements StoreUnderTest {

  /** The unit of every case's durations: long enough for a step and a time read on a busy host. */
  static final Duration UNIT = Duration.ofMillis(Long.getLong("conformance.unitMillis", 150));

  /** The idle expiry the key-expiry store writes: the least the store accepts. */
  private static final Duration SHORT_IDLE = Duration.ofSeconds(1);

  private static final Duration HOLD = Duration.ofSeconds(3);

  /** One read of TIME and of every key's PTTL, atomically (a test's read, not a breaker script). */
  private static final String TTLS =
      "local t = redis.call('TIME') local out = {t[1], t[2]} "
          + "for i = 1, #KEYS do out[#out + 1] = redis.call('PTTL', KEYS[i]) end return out";

  private static final Duration WAIT_BOUND = Duration.ofSeconds(60);

  private final String name;
  private final List<RedisServerProcess> masters;
  private final Function<String, RedisServerProcess> masterFor;
  private final AutoCloseable deployment;
  private final RedisFleetStore even;
  private final RedisFleetStore odd;
  private final RedisFleetStore shortIdle;
  private final RedisFleetStore held;

  /**
   * @param name the label
   * @param uri the deployment's URI (cluster: the seeds)
   * @param masters every master (FLUSHALL)
   * @param masterFor the master holding a key
   * @param deployment closed last
   */
  RedisStoreUnderTest(
      String name,
      String uri,
      List<RedisServerProcess> masters,
      Function<String, RedisServerProcess> masterFor,
      AutoCloseable deployment) {
    this.name = name;
    this.masters = masters;
    this.masterFor = masterFor;
    this.deployment = deployment;
    this.even = connect(uri, StoreConfig.DEFAULT_IDLE_TTL);
    this.odd = connect(uri, StoreConfig.DEFAULT_IDLE_TTL);
    this.shortIdle = connect(uri, SHORT_IDLE);
    this.held = connect(uri, SHORT_IDLE).forwardsHistory(HOLD);
  }

  private static RedisFleetStore connect(String uri, Duration idleTtl) {
    return RedisFleetStore.connect(
        StoreConfig.builder().uri(uri).timeout(Duration.ofSeconds(5)).idleTtl(idleTtl).build());
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public BreakerStore node(int index) {
    return index % 2 == 0 ? even : odd;
  }

  @Override
  public Duration unit() {
    return UNIT;
  }

  @Override
  public void awaitStoreTime(BreakerId id, long storeMillis) {
    long bound = System.nanoTime() + WAIT_BOUND.toNanos();
    while (true) {
      long now = StoreFutures.await(even.redisTimeMillis(id));
      if (now >= storeMillis) {
        return;
      }
      if (System.nanoTime() > bound) {
        throw new AssertionError(
            "Redis TIME " + now + " did not reach " + storeMillis + " within " + WAIT_BOUND);
      }
      try {
        Thread.sleep(Math.max(1, Math.min(storeMillis - now, 50)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for Redis TIME " + storeMillis, e);
      }
    }
  }

  @Override
  public Optional<String> unsupported(Capability c) {
    return Optional.empty();
  }

  @Override
  public java.util.List<io.breakerctl.runtime.store.NodeHeartbeat> reports(BreakerId id) {
    return StoreFutures.await(even.snapshot(id, 0)).nodes();
  }

  @Override
  public void loseAllData() {
    for (RedisServerProcess m : masters) {
      m.flushAll();
    }
  }

  @Override
  public KeyExpiry keyExpiry() {
    return new KeyExpiry() {
      @Override
      public BreakerStore store() {
        return shortIdle;
      }

      @Override
      public Duration idleTtl() {
        return SHORT_IDLE;
      }

      @Override
      public BreakerStore heldStore() {
        return held;
      }

      @Override
      public Duration hold() {
        return HOLD;
      }

      @Override
      public void forwardAll(BreakerId id) {
        BreakerSnapshot s = StoreFutures.await(shortIdle.state(id));
        String last = s.fields().get("lastEvent");
        if (last != null) {
          StoreFutures.await(shortIdle.markForwarded(id, s.epoch(), last, "conformance"));
        }
      }

      @Override
      public KeyTtls ttls(BreakerId id) {
        String[] keys = shortIdle.keys().scriptKeys(id);
        String[] command = new String[3 + keys.length];
        command[0] = "EVAL";
        command[1] = TTLS;
        command[2] = Integer.toString(keys.length);
        System.arraycopy(keys, 0, command, 3, keys.length);
        List<?> reply = (List<?>) masterFor.apply(keys[0]).call(command);
        long time =
            Long.parseLong(String.valueOf(reply.get(0))) * 1000
                + Long.parseLong(String.valueOf(reply.get(1))) / 1000;
        Map<String, Long> ttls = new LinkedHashMap<>();
        for (int i = 0; i < keys.length; i++) {
          ttls.put(keys[i], ((Number) reply.get(2 + i)).longValue());
        }
        return new KeyTtls(time, ttls);
      }
    };
  }

  @Override
  public void close() {
    RuntimeException first = null;
    for (AutoCloseable c : new AutoCloseable[] {even, odd, shortIdle, held, deployment}) {
      try {
        c.close();
      } catch (Exception e) {
        if (first == null) {
          first = new IllegalStateException("closing " + name, e);
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  @Override
  public String toString() {
    return name;
  }
}
