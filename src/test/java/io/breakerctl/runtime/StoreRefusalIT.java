package io.breakerctl.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.runtime.redis.RedisBreakerStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A Redis that answers with errors is a coordinator that cannot do its job, not a healthy one: with
 * the real fault on a real redis-server (an ACL that denies {@code EVALSHA}, {@code maxmemory}
 * reached under {@code noeviction}), one node with a failing dependency goes degraded with the
 * fault as its reason, its local machine trips it, and it leaves degraded only once the fault is
 * undone and a script writes again; the trip it made meanwhile is then published to the fleet.
 */
@DisplayName("Redis answering with errors degrades the node to local decisions")
class StoreRefusalIT {

  @RegisterExtension final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);

  private static final int THRESHOLD = 5;
  private static final AtomicInteger SEQ = new AtomicInteger();

  enum Fault {
    NOPERM,
    OOM
  }

  private void apply(Fault f) {
    switch (f) {
      case NOPERM -> redis.server().call("ACL", "SETUSER", "node", "-evalsha");
      case OOM -> {
        redis.server().call("CONFIG", "SET", "maxmemory-policy", "noeviction");
        redis.server().call("CONFIG", "SET", "maxmemory", "1");
      }
    }
  }

  private void undo(Fault f) {
    switch (f) {
      case NOPERM -> redis.server().call("ACL", "SETUSER", "node", "+evalsha");
      case OOM -> redis.server().call("CONFIG", "SET", "maxmemory", "0");
    }
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({"NOPERM, SHARED", "NOPERM, HYBRID", "OOM, SHARED", "OOM, HYBRID"})
  @DisplayName("NOPERM and OOM: degraded with the reason, tripped locally, recovered and published")
  void refusedWorkDegradesTheNode(Fault fault, Mode mode) {
    redis.server().call("ACL", "SETUSER", "node", "on", ">pw", "~*", "&*", "+@all");
    String uri = "redis://node:pw@127.0.0.1:" + redis.server().port();
    BreakerId id =
        BreakerId.parse("refusal-" + fault.name().toLowerCase() + ":dep-" + SEQ.incrementAndGet());
    List<LogRecord> warnings = new CopyOnWriteArrayList<>();
    Logger jul = Logger.getLogger(BreakerRegistry.class.getName());
    Handler capture =
        new Handler() {
          @Override
          public void publish(LogRecord r) {
            if (r.getLevel().intValue() >= Level.WARNING.intValue() && r.getParameters() != null) {
              warnings.add(r);
            }
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    Level was = jul.getLevel();
    jul.addHandler(capture);
    jul.setLevel(Level.ALL); // the CLI run in-process by other tests turns the root logger off
    BreakerRegistry node =
        redis.manage(
            BreakerRegistry.builder()
                .redisUri(uri)
                .nodeId("refusal-" + SEQ.get())
                .mode(mode)
                .defaults(
                    Policy.builder()
                        .failureThreshold(THRESHOLD)
                        .open(Duration.ofSeconds(30))
                        .build())
                .commandTimeout(Duration.ofMillis(50))
                .flushInterval(Duration.ofMillis(100))
                .build());
    try {
      CircuitBreaker cb = node.breaker(id);
      for (int i = 0; i < 20; i++) { // a healthy start: the node has the shared view
        Permission p = cb.tryAcquire();
        assertThat(p.allowed()).isTrue();
        p.onSuccess(1_000);
      }
      Fleet.sleep(300);
      assertThat(node.degraded()).as("degraded before the fault").isFalse();

      apply(fault);
      int reached = 0;
      long end = System.currentTimeMillis() + 1500;
      while (System.currentTimeMillis() < end) {
        Permission p = cb.tryAcquire();
        if (p.allowed()) {
          reached++; // the failing dependency is called
          p.onFailure(new IllegalStateException("down"), 1_000_000);
        }
        Fleet.sleep(4);
      }
      assertThat(node.degraded()).as("degraded under %s", fault).isTrue();
      assertThat(node.degradedReason()).hasValue(fault.name().toLowerCase());
      assertThat(cb.view().state().rejects()).as("the local machine tripped").isTrue();
      // the failures before the refusal reached the node's guard were counted against the shared
      // view (which never hears of them), the rest by the local machine: at most the threshold
      // each (a call at a time here)
      assertThat(reached)
          .as("calls that reached the failing dependency while Redis refused the work")
          .isBetween(THRESHOLD, 2 * THRESHOLD);
      System.out.printf("refusal %s %s: %d calls reached the dependency%n", fault, mode, reached);
      Fleet.sleep(500); // recovery checks run meanwhile (100 ms, then 200 ms)
      assertThat(node.degraded()).as("still degraded while the fault lasts").isTrue();

      undo(fault);
      Poll.until(Duration.ofSeconds(5), "recovered", () -> !node.degraded());
      assertThat(node.degradedReason()).isEmpty();
      try (RedisBreakerStore store =
          RedisBreakerStore.connect(StoreConfig.builder().uri(redis.uri()).build())) {
        Poll.until(
            Duration.ofSeconds(3),
            "the local trip published",
            () -> RedisBreakerStore.await(store.snapshot(id, 0)).effectiveState() == State.OPEN);
      }
      List<String> mine =
          warnings.stream()
              .filter(r -> String.valueOf(List.of(r.getParameters())).contains(node.nodeId()))
              .map(r -> r.getMessage() + " " + List.of(r.getParameters()))
              .toList();
      assertThat(mine)
          .as("one warning for the episode, naming the reason")
          .hasSize(1)
          .allSatisfy(m -> assertThat(m).contains(", " + fault.name().toLowerCase() + ","));
    } finally {
      undo(fault);
      jul.removeHandler(capture);
      jul.setLevel(was);
    }
  }
}
