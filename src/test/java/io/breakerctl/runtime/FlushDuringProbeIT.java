package io.breakerctl.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Redis loses its data (FLUSHALL) while a probe runs: the probe's lease went with the keys, while
 * its call goes on. The node that puts the trip back saw the breaker half-open, so every probe slot
 * stays held for one lease from the re-assertion (reassert.lua, a prober that stopped answering):
 * no second probe reaches the dependency in that time however the machine is loaded (each admission
 * is timed on this host's clock, which Redis shares), the old probe's success (from the lost
 * incarnation) closes nothing, and once the lease ran out one probe goes.
 */
@DisplayName("FLUSHALL while a probe runs: no second probe for one lease, then one")
class FlushDuringProbeIT {
  private static final Duration LEASE = Duration.ofSeconds(2);

  @RegisterExtension final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);

  @Test
  void flushDuringProbe() throws Exception {
    Policy policy =
        Policy.builder()
            .failureThreshold(2)
            .open(Duration.ofMillis(500))
            .halfOpenPermits(1)
            .probeLease(LEASE)
            .build();
    List<CircuitBreaker> nodes = new ArrayList<>();
    BreakerId id = BreakerId.parse("failover:probing");
    for (int i = 0; i < 3; i++) {
      nodes.add(
          redis
              .manage(
                  BreakerRegistry.builder()
                      .redisUri(redis.uri())
                      .nodeId("probing-" + i)
                      .defaults(policy)
                      .commandTimeout(Duration.ofMillis(500))
                      .refreshInterval(Duration.ofMillis(500))
                      .checkInterval(Duration.ofMillis(500))
                      .build())
              .breaker(id));
    }
    RedisFleetStore store =
        redis.manage(RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build()));
    CircuitBreaker prober = nodes.get(0);
    for (int i = 0; i < 2; i++) {
      Permission p = prober.tryAcquire();
      assertThat(p.allowed()).isTrue();
      p.onFailure(new IllegalStateException("down"), 1_000_000);
    }
    Permission[] probe = new Permission[1];
    Poll.until(
        Duration.ofSeconds(10),
        "node 0 is granted the probe",
        () -> (probe[0] = prober.tryAcquire()).allowed());

    List<Long> admittedAt = new CopyOnWriteArrayList<>();
    List<Permission> admitted = new CopyOnWriteArrayList<>();
    AtomicBoolean running = new AtomicBoolean(true);
    List<Thread> callers = new ArrayList<>();
    for (CircuitBreaker cb : nodes.subList(1, 3)) {
      Thread t =
          new Thread(
              () -> {
                long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (running.get() && System.nanoTime() < end) {
                  Permission p = cb.tryAcquire();
                  if (p.allowed()) {
                    admittedAt.add(System.currentTimeMillis());
                    admitted.add(p);
                  }
                  Fleet.sleep(2);
                }
              });
      t.setDaemon(true);
      t.start();
      callers.add(t);
    }
    try {
      // the other nodes' acquires answer HALF_OPEN, probes busy: every view holds it stored
      Poll.until(
          Duration.ofSeconds(5),
          "every node sees the half-open breaker",
          () -> nodes.stream().allMatch(cb -> cb.view().state() == State.HALF_OPEN));
      assertThat(admitted).as("no second probe before the flush").isEmpty();

      long flushedAt = System.currentTimeMillis();
      redis.server().flushAll();
      Poll.until(
          Duration.ofSeconds(5),
          "a node put the half-open breaker back",
          () -> StoreFutures.await(store.state(id)).storedState() == State.HALF_OPEN);
      probe[0].onSuccess(1_000); // the running probe ends: its lease was lost with the keys
      Poll.until(
          LEASE.plusSeconds(10),
          "one probe once the held slot returned",
          () -> !admitted.isEmpty());
      long first = admittedAt.get(0);
      System.out.printf(
          "flush during a probe: next probe %d ms after the FLUSHALL (lease %d ms)%n",
          first - flushedAt, LEASE.toMillis());
      assertThat(first)
          .as("no probe within one lease of the flush while the lost probe may still run")
          .isGreaterThanOrEqualTo(flushedAt + LEASE.toMillis());
      assertThat(admitted).as("one probe per permit").hasSize(1);
      assertThat(StoreFutures.await(store.state(id)).storedState())
          .as("the lost probe's success closed nothing")
          .isEqualTo(State.HALF_OPEN);
    } finally {
      running.set(false);
      for (Thread t : callers) {
        t.join(2_000);
      }
    }
  }
}
