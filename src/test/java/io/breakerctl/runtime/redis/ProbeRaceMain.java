package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.store.AcquireResult;
import io.breakerctl.runtime.store.StoreFutures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Child-process load for {@link ScriptConcurrencyIT}: {@code threads} threads each ask once for
 * permission at wall-clock time {@code startAt} (right after the open window ends). Prints {@code
 * allowed=N leases=id,id,...}.
 *
 * <p>Args: uri breakerId threads startAtMillis node
 */
public final class ProbeRaceMain {
  private ProbeRaceMain() {}

  public static void main(String[] args) throws Exception {
    String uri = args[0];
    BreakerId id = BreakerId.parse(args[1]);
    int threads = Integer.parseInt(args[2]);
    long startAt = Long.parseLong(args[3]);
    String node = args[4];
    ConcurrentLinkedQueue<String> leases = new ConcurrentLinkedQueue<>();
    try (RedisFleetStore store =
        RedisFleetStore.connect(
            StoreConfig.builder().uri(uri).timeout(Duration.ofSeconds(10)).build())) {
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        String me = node + "-" + t;
        Thread w =
            new Thread(
                () -> {
                  FailureStormMain.sleepUntil(startAt);
                  AcquireResult r = StoreFutures.await(store.acquire(id, me, Policy.DEFAULT));
                  if (r.allowed()) {
                    leases.add(r.leaseId());
                  }
                });
        w.start();
        workers.add(w);
      }
      for (Thread w : workers) {
        w.join();
      }
    }
    System.out.println("allowed=" + leases.size() + " leases=" + String.join(",", leases));
  }
}
