package io.breakerctl.runtime;

import static io.breakerctl.runtime.store.StoreFutures.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.StoreFailureMode;
import io.breakerctl.runtime.model.TransitionCause;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.BreakerEvent;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.testing.ChildJvm;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import io.breakerctl.testing.RedisServerProcess;
import io.breakerctl.testing.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Redis is never a reason to fail a call: killed, paused, delayed, dropped, reset. */
@DisplayName("Runtime under Redis faults")
class RuntimeFaultsIT {

  @RegisterExtension final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);

  private static final AtomicInteger SEQ = new AtomicInteger();
  private static final Duration TIMEOUT = Duration.ofMillis(50);

  /**
   * What every call must return within: a generous multiple of the command timeout (a loaded 2-core
   * machine deschedules threads, GCs), still far below what a wait on Redis would show (the pause
   * is 3 s, the proxy's delay 2 s per chunk, a hang unbounded).
   */
  private static final long BOUND_MILLIS = TIMEOUT.toMillis() * 10;

  private static BreakerId fresh(String name) {
    return BreakerId.parse("faults-" + name + ":dep-" + SEQ.incrementAndGet());
  }

  private BreakerRegistry node(String uri, String name, Mode mode, Policy p) {
    return redis.manage(
        BreakerRegistry.builder()
            .redisUri(uri)
            .nodeId(name)
            .mode(mode)
            .defaults(p)
            .commandTimeout(TIMEOUT)
            .flushInterval(Duration.ofMillis(100))
            .refreshInterval(Duration.ofMillis(200))
            .build());
  }

  /** Milliseconds one call spends in the breaker (acquire and report), not in the dependency. */
  private static long overhead(CircuitBreaker cb, boolean fail) {
    long start = System.nanoTime();
    Permission p = cb.tryAcquire();
    if (p.allowed()) {
      if (fail) {
        p.onFailure(new RuntimeException("dependency down"), 1_000_000);
      } else {
        p.onSuccess(1_000_000);
      }
    }
    return (System.nanoTime() - start) / 1_000_000;
  }

  @Test
  @DisplayName(
      "Redis killed: calls continue, bounded by the timeout, then not waiting at all; local trips; restart reconciles")
  void killedMidRun() {
    BreakerId id = fresh("killed");
    Policy p = Policy.builder().failureThreshold(5).open(Duration.ofSeconds(30)).build();
    List<CircuitBreaker> nodes = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      nodes.add(node(redis.uri(), "k" + i, i == 0 ? Mode.SHARED : Mode.HYBRID, p).breaker(id));
    }
    List<CircuitEvent.Type> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    for (CircuitBreaker cb : nodes) {
      overhead(cb, false);
      cb.onEvent(e -> seen.add(e.type()));
    }
    RedisServerProcess server = redis.server();
    server.kill();

    long worst = 0;
    for (int round = 0; round < 20; round++) {
      for (CircuitBreaker cb : nodes) {
        worst = Math.max(worst, overhead(cb, false));
      }
    }
    assertThat(worst)
        .as("every call returns within 10x the command timeout")
        .isLessThanOrEqualTo(BOUND_MILLIS);
    Poll.until(
        Duration.ofSeconds(3),
        "every node degraded",
        () -> nodes.stream().allMatch(cb -> cb.view().degraded()));

    // after detection no call waits for Redis: 30 calls that each waited their timeout would take
    // 1.5 s together; half of that is left for a loaded machine's scheduling
    long afterDetection = 0;
    for (int round = 0; round < 10; round++) {
      for (CircuitBreaker cb : nodes) {
        afterDetection += overhead(cb, true);
      }
    }
    System.out.printf("30 calls after detection took %d ms together%n", afterDetection);
    assertThat(afterDetection)
        .as("after detection no call waits: 30 calls together (ms)")
        .isLessThan(30 * TIMEOUT.toMillis() / 2);
    assertThat(nodes)
        .as("each local breaker tripped on its own")
        .allSatisfy(
            cb -> {
              assertThat(cb.view().state()).isEqualTo(State.OPEN);
              assertThat(cb.tryAcquire().allowed()).isFalse();
            });

    server.restart();
    Poll.until(
        Duration.ofSeconds(15),
        "every node recovered",
        () -> nodes.stream().noneMatch(cb -> cb.view().degraded()));
    try (RedisFleetStore store =
        RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build())) {
      Poll.until(
          Duration.ofSeconds(5),
          "the local trips published to the shared state",
          () -> await(store.snapshot(id, 0)).effectiveState() == State.OPEN);
      Poll.until(
          Duration.ofSeconds(5),
          "nodes agree with the shared OPEN",
          () -> nodes.stream().allMatch(cb -> cb.view().sharedState() == State.OPEN));
    }
  }

  @Test
  @DisplayName(
      "storeFailureMode while Redis is down: ALLOW_ALL admits, LAST_KNOWN keeps the shared OPEN, LOCAL_ONLY starts from it")
  void storeFailureModes() {
    BreakerId id = fresh("modes");
    Policy base = Policy.builder().failureThreshold(1).open(Duration.ofSeconds(60)).build();
    CircuitBreaker allowAll =
        node(
                redis.uri(),
                "allow-all",
                Mode.HYBRID,
                base.toBuilder().storeFailureMode(StoreFailureMode.ALLOW_ALL).build())
            .breaker(id);
    CircuitBreaker lastKnown =
        node(
                redis.uri(),
                "last-known",
                Mode.HYBRID,
                base.toBuilder().storeFailureMode(StoreFailureMode.LAST_KNOWN).build())
            .breaker(id);
    CircuitBreaker localOnly = node(redis.uri(), "local-only", Mode.HYBRID, base).breaker(id);
    List<CircuitBreaker> nodes = List.of(allowAll, lastKnown, localOnly);
    allowAll.tryAcquire().onFailure(new RuntimeException("down"), 1_000_000);
    Poll.until(
        Duration.ofSeconds(3),
        "every node sees the shared OPEN",
        () -> nodes.stream().allMatch(cb -> cb.view().state() == State.OPEN));

    redis.server().kill();
    for (CircuitBreaker cb : nodes) {
      overhead(cb, false);
    }
    Poll.until(
        Duration.ofSeconds(3),
        "every node degraded",
        () -> nodes.stream().allMatch(cb -> cb.view().degraded()));

    assertThat(allowAll.tryAcquire().allowed()).as("ALLOW_ALL admits while Redis is down").isTrue();
    assertThat(lastKnown.tryAcquire().allowed())
        .as("LAST_KNOWN keeps the last shared OPEN")
        .isFalse();
    Permission local = localOnly.tryAcquire();
    assertThat(local.allowed())
        .as("LOCAL_ONLY: its local machine was seeded from the fleet's OPEN, not from scratch")
        .isFalse();
    assertThat(local.state()).isEqualTo(State.OPEN);
  }

  @Test
  @DisplayName("CLIENT PAUSE 3 s: closed-state HYBRID calls are not delayed")
  void paused() {
    BreakerId id = fresh("paused");
    BreakerRegistry registry = node(redis.uri(), "paused", Mode.HYBRID, Policy.DEFAULT);
    CircuitBreaker cb = registry.breaker(id);
    Poll.until(Duration.ofSeconds(3), "the view is read", () -> !cb.view().generation().isEmpty());
    long asked = callPathCommands(registry);
    redis.server().pause(Duration.ofSeconds(3));
    long worst = 0;
    long calls = 0;
    long end = System.nanoTime() + Duration.ofMillis(2500).toNanos();
    while (System.nanoTime() < end) {
      worst = Math.max(worst, overhead(cb, false));
      calls++;
      Fleet.sleep(1);
    }
    System.out.printf("%d calls during the pause, worst %d ms%n", calls, worst);
    assertThat(calls).isGreaterThan(100);
    // not delayed means never waiting on Redis: no call sent an acquire or a record, whatever the
    // machine's speed; and every call returned
    assertThat(callPathCommands(registry))
        .as("acquires and records sent during the pause (closed-state calls touch no network)")
        .isEqualTo(asked);
    assertThat(worst).as("worst call during the pause, ms").isLessThanOrEqualTo(BOUND_MILLIS);
  }

  /** Acquires and records the node sent (answered, failed or timed out). */
  private static long callPathCommands(BreakerRegistry registry) {
    StoreStats stats = registry.storeStats();
    long n = 0;
    for (StoreCommand kind : List.of(StoreCommand.ACQUIRE, StoreCommand.RECORD)) {
      n += stats.command(kind).count() + stats.command(kind).failures();
    }
    return n;
  }

  @Test
  @DisplayName(
      "through a proxy that delays, drops or resets: calls keep their budget and nodes recover")
  void proxyFaults() {
    BreakerId id = fresh("proxy");
    Policy p = Policy.builder().failureThreshold(1000).build();
    try (TcpProxy proxy = TcpProxy.to(redis.server().port())) {
      BreakerRegistry shared = node(proxy.uri(), "proxied-shared", Mode.SHARED, p);
      BreakerRegistry hybrid = node(proxy.uri(), "proxied-hybrid", Mode.HYBRID, p);
      List<CircuitBreaker> nodes = List.of(shared.breaker(id), hybrid.breaker(id));
      for (Runnable fault :
          List.<Runnable>of(() -> proxy.delay(Duration.ofSeconds(2)), proxy::drop, proxy::reset)) {
        fault.run();
        long worst = 0;
        for (int i = 0; i < 50; i++) {
          for (CircuitBreaker cb : nodes) {
            worst = Math.max(worst, overhead(cb, false));
          }
          Fleet.sleep(2);
        }
        assertThat(worst)
            .as("worst call under %s (every call returns within 10x its timeout)", proxy.mode())
            .isLessThanOrEqualTo(BOUND_MILLIS);
        proxy.pass();
        Poll.until(
            Duration.ofSeconds(15),
            "nodes recover after " + proxy.mode(),
            () -> !shared.degraded() && !hybrid.degraded() && nodes.get(0).tryAcquire().allowed());
      }
    }
  }

  @Test
  @DisplayName(
      "a node SIGKILLed while holding a probe lease: another node probes after the lease expires")
  void killedProber() {
    BreakerId id = fresh("prober");
    Policy p =
        Policy.builder()
            .failureThreshold(1)
            .open(Duration.ofMillis(300))
            // long enough that the survivor's first acquire, after a registry start on a loaded
            // machine, still meets the dead node's lease
            .probeLease(Duration.ofSeconds(6))
            .build();
    try (RedisFleetStore store =
        RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build())) {
      await(store.record(id, Outcome.failure("setup", ""), p));
      ChildJvm doomed =
          redis.manage(ChildJvm.start(LeaseHolderMain.class, redis.uri(), id.toString()));
      Poll.until(
          Duration.ofSeconds(20),
          "the child holds the lease",
          () -> doomed.stdout().stream().anyMatch(l -> l.startsWith("LEASED")));
      doomed.kill();

      CircuitBreaker survivor = node(redis.uri(), "survivor", Mode.HYBRID, p).breaker(id);
      assertThat(survivor.tryAcquire().allowed()).as("the dead node's lease is live").isFalse();
      Permission probe = null;
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (System.nanoTime() < deadline) {
        Permission attempt = survivor.tryAcquire();
        if (attempt.allowed()) {
          probe = attempt;
          break;
        }
        Fleet.sleep(20);
      }
      assertThat(probe).as("a probe lease after the dead one expired").isNotNull();
      assertThat(probe.lease()).isNotEmpty();
      probe.onSuccess(1_000_000);
      Poll.until(
          Duration.ofSeconds(3),
          "the breaker closes",
          () -> await(store.snapshot(id, 0)).effectiveState() == State.CLOSED);
      List<BreakerEvent> events = await(store.eventsAfter(id, "", 100));
      assertThat(events).extracting(BreakerEvent::cause).endsWith(TransitionCause.PROBES_SUCCEEDED);
    }
  }
}
