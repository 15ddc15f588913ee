package io.breakerctl.cli;

import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.model.Policy;
import io.lettuce.core.RedisClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code n} HYBRID nodes (separate registries, ids {@code <prefix>0}, {@code <prefix>1}, ...)
 * serving one breaker, each calling it every 20 ms; the dependency fails while a marker file
 * exists, so a test trips and recovers the fleet by creating and deleting one file, in every JVM at
 * once. Run in the test JVM ({@link #start}) and as a child process ({@link #main}: prints {@code
 * READY} once every node holds its breaker, then runs until killed), for {@link ExporterIT}.
 *
 * <p>Args: redisUri breakerId n nodePrefix markerFile
 */
public final class ExporterNodesMain implements AutoCloseable {
  /** Every node's defaults: trips at 5 failures, open 1 s, backing off to at most 2 s. */
  static final Policy POLICY =
      Policy.builder()
          .failureThreshold(5)
          .open(Duration.ofSeconds(1))
          .maxOpen(Duration.ofSeconds(2))
          .build();

  private final RedisClient client;
  private final List<BreakerRegistry> registries = new ArrayList<>();
  private final List<CircuitBreaker> nodes = new ArrayList<>();
  private final Path marker;
  private final Thread loop;
  private volatile boolean running = true;

  private ExporterNodesMain(String uri, String id, int n, String prefix, Path marker) {
    this.marker = marker;
    // one Lettuce client (its threads) for the JVM's nodes, each with its own connections and
    // store: building ten clients costs seconds of CPU on a loaded machine
    this.client = RedisClient.create(uri);
    for (int i = 0; i < n; i++) {
      BreakerRegistry r =
          BreakerRegistry.builder()
              .redisClient(client)
              .nodeId(prefix + i)
              .mode(Mode.HYBRID)
              .defaults(POLICY)
              .flushInterval(Duration.ofMillis(200))
              .build();
      registries.add(r);
      nodes.add(r.breaker(id));
    }
    loop = new Thread(this::serve, "exporter-nodes-" + prefix);
    loop.setDaemon(true);
  }

  /** Starts {@code n} nodes in this JVM. */
  static ExporterNodesMain start(String uri, String id, int n, String prefix, Path marker) {
    ExporterNodesMain m = new ExporterNodesMain(uri, id, n, prefix, marker);
    m.loop.start();
    return m;
  }

  private void serve() {
    while (running) {
      boolean failing = Files.exists(marker);
      for (CircuitBreaker cb : nodes) {
        try {
          cb.call(
              () -> {
                if (failing) {
                  throw new IllegalStateException("dependency down");
                }
                return "ok";
              });
        } catch (RuntimeException rejectedOrFailed) {
          // the dependency's failure, or the breaker's rejection: what the node then serves
        }
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  @Override
  public void close() {
    running = false;
    loop.interrupt();
    try {
      loop.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    registries.forEach(BreakerRegistry::close);
    client.shutdown();
  }

  /** Runs the nodes until the process is killed. */
  public static void main(String[] args) throws Exception {
    start(args[0], args[1], Integer.parseInt(args[2]), args[3], Path.of(args[4]));
    System.out.println("READY");
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}
