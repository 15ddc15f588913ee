package io.breakerctl.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.BreakerEvent;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A hang seen at the slow-call threshold (issue 40, item 3): {@code slowCallMillis} 500, threshold
 * 3, ten callers whose every call takes 3 s (and then succeeds). The calls still running at 500 ms
 * count as slow then, so the breaker opens while the first wave still runs: a call tried meanwhile
 * is rejected before any call has returned, and no second wave reaches the dependency.
 */
@DisplayName("a hanging dependency trips at slowCallMillis, not when its calls return")
class SlowCallIT {

  @RegisterExtension
  static final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);

  private static final long CALL_MILLIS = 3_000;

  @ParameterizedTest(name = "{0}")
  @EnumSource(
      value = Mode.class,
      names = {"SHARED", "HYBRID"})
  @DisplayName("ten callers, 3 s calls: rejected before the first returns, no second wave")
  void hangTripsAtSlowCallMillis(Mode mode) throws Exception {
    BreakerId id = BreakerId.parse("slowcall-" + mode.name().toLowerCase() + ":hang");
    Policy policy =
        Policy.builder()
            .failureThreshold(3)
            .slowCallMillis(500)
            .open(Duration.ofSeconds(60)) // no probe within the test
            .build();
    AtomicInteger arrived = new AtomicInteger();
    AtomicLong firstReturn = new AtomicLong(Long.MAX_VALUE);
    ConcurrentLinkedQueue<Long> arrivals = new ConcurrentLinkedQueue<>();
    AtomicLong firstRejection = new AtomicLong(Long.MAX_VALUE);
    List<State> rejectedIn = java.util.Collections.synchronizedList(new ArrayList<>());
    try (BreakerRegistry registry =
        BreakerRegistry.builder()
            .redisUri(redis.uri())
            .nodeId("slow-" + mode)
            .mode(mode)
            .defaults(policy)
            .build()) {
      CircuitBreaker breaker = registry.breaker(id);
      Poll.until(Duration.ofSeconds(30), "the node has read the breaker", () -> readOnce(breaker));
      long start = System.nanoTime();
      long end = start + TimeUnit.MILLISECONDS.toNanos(CALL_MILLIS * 2);
      CountDownLatch go = new CountDownLatch(1);
      List<Thread> callers = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        Thread t =
            new Thread(
                () -> {
                  await(go);
                  while (System.nanoTime() < end) {
                    Permission p = breaker.tryAcquire();
                    if (!p.allowed()) {
                      firstRejection.accumulateAndGet(System.nanoTime(), Math::min);
                      rejectedIn.add(p.state());
                      sleep(50);
                      continue;
                    }
                    long t0 = System.nanoTime();
                    arrivals.add(t0);
                    arrived.incrementAndGet();
                    sleep(CALL_MILLIS); // the dependency: every call hangs 3 s, then succeeds
                    firstReturn.accumulateAndGet(System.nanoTime(), Math::min);
                    p.onSuccess(System.nanoTime() - t0);
                  }
                },
                "caller-" + i);
        t.start();
        callers.add(t);
      }
      // a witness tries a call every 20 ms while the ten run; admitted, it ends at once, ignored
      Thread witness =
          new Thread(
              () -> {
                await(go);
                while (System.nanoTime() < end && firstRejection.get() == Long.MAX_VALUE) {
                  Permission p = breaker.tryAcquire();
                  if (p.allowed()) {
                    p.onIgnored();
                  } else {
                    firstRejection.accumulateAndGet(System.nanoTime(), Math::min);
                    rejectedIn.add(p.state());
                  }
                  sleep(20);
                }
              },
              "witness");
      witness.start();
      go.countDown();
      for (Thread t : callers) {
        t.join(TimeUnit.MILLISECONDS.toMillis(CALL_MILLIS * 10));
        assertThat(t.isAlive()).as("%s returned", t.getName()).isFalse();
      }
      witness.join(10_000);

      System.out.printf(
          "%s slow calls: %d reached the dependency, first rejection %d ms, first return %d ms%n",
          mode,
          arrived.get(),
          (firstRejection.get() - start) / 1_000_000,
          (firstReturn.get() - start) / 1_000_000);
      assertThat(firstRejection.get())
          .as("a call was rejected before any of the hanging calls returned")
          .isLessThan(firstReturn.get());
      assertThat(arrivals)
          .as("no second wave: every call reached the dependency before the first returned")
          .allSatisfy(at -> assertThat(at).isLessThan(firstReturn.get()));
      assertThat(arrived.get()).as("at most the first wave").isLessThanOrEqualTo(10);
      assertThat(rejectedIn).as("rejected because the breaker is open").containsOnly(State.OPEN);
    }
    List<BreakerEvent> events = events(id);
    assertThat(events)
        .as("one trip, on the slow calls")
        .filteredOn(e -> e.to() == State.OPEN)
        .singleElement()
        .satisfies(e -> assertThat(e.from()).isEqualTo(State.CLOSED));
  }

  private static boolean readOnce(CircuitBreaker b) {
    return !b.view().generation().isEmpty();
  }

  private static List<BreakerEvent> events(BreakerId id) {
    try (RedisFleetStore store =
        RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build())) {
      return StoreFutures.await(store.eventsAfter(id, "", 1000));
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
