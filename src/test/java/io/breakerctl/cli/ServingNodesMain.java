package io.breakerctl.cli;

import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.Mode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Child process for {@link FlushRecoveryIT}: {@code n} HYBRID nodes (separate registries, ids
 * {@code <prefix>0}, {@code <prefix>1}, ...) serving one breaker: each calls it every 20 ms (the
 * dependency answers at once; a rejected call is dropped). Prints {@code READY} once every node
 * holds its breaker, then runs until killed.
 *
 * <p>Args: redisUri breakerId n nodePrefix checkIntervalMillis
 */
public final class ServingNodesMain {
  private ServingNodesMain() {}

  /** Runs the nodes until the process is killed. */
  public static void main(String[] args) throws Exception {
    String uri = args[0];
    String id = args[1];
    int n = Integer.parseInt(args[2]);
    String prefix = args[3];
    Duration check = Duration.ofMillis(Long.parseLong(args[4]));
    List<CircuitBreaker> nodes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      nodes.add(
          BreakerRegistry.builder()
              .redisUri(uri)
              .nodeId(prefix + i)
              .mode(Mode.HYBRID)
              .checkInterval(check)
              .flushInterval(Duration.ofMillis(200))
              .build()
              .breaker(id));
    }
    System.out.println("READY");
    System.out.flush();
    while (true) {
      for (CircuitBreaker cb : nodes) {
        try {
          cb.call(() -> "ok");
        } catch (RuntimeException rejected) {
          // forced open: the call is rejected, which is what the node then serves
        }
      }
      Thread.sleep(20);
    }
  }
}
