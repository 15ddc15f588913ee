package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.RecordResult;
import io.breakerctl.runtime.store.StoreFutures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Child-process load for {@link ScriptConcurrencyIT}: {@code threads} threads each record {@code
 * perThread} failures on one breaker, starting together at wall-clock time {@code startAt}. Prints
 * {@code sent=N transitions=M}.
 *
 * <p>Args: uri breakerId threads perThread threshold startAtMillis node
 */
public final class FailureStormMain {
  private FailureStormMain() {}

  public static void main(String[] args) throws Exception {
    String uri = args[0];
    BreakerId id = BreakerId.parse(args[1]);
    int threads = Integer.parseInt(args[2]);
    int perThread = Integer.parseInt(args[3]);
    Policy policy =
        Policy.builder()
            .failureThreshold(Integer.parseInt(args[4]))
            .open(Duration.ofSeconds(60))
            .build();
    long startAt = Long.parseLong(args[5]);
    String node = args[6];
    AtomicInteger transitions = new AtomicInteger();
    AtomicInteger sent = new AtomicInteger();
    try (RedisFleetStore store =
        RedisFleetStore.connect(
            StoreConfig.builder().uri(uri).timeout(Duration.ofSeconds(10)).build())) {
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        Thread w =
            new Thread(
                () -> {
                  sleepUntil(startAt);
                  for (int i = 0; i < perThread; i++) {
                    RecordResult r =
                        StoreFutures.await(store.record(id, Outcome.failure(node, ""), policy));
                    sent.incrementAndGet();
                    if (r.transitioned()) {
                      transitions.incrementAndGet();
                    }
                  }
                });
        w.start();
        workers.add(w);
      }
      for (Thread w : workers) {
        w.join();
      }
    }
    System.out.println("sent=" + sent.get() + " transitions=" + transitions.get());
  }

  static void sleepUntil(long startAt) {
    long wait = startAt - System.currentTimeMillis();
    if (wait > 0) {
      try {
        Thread.sleep(wait);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
