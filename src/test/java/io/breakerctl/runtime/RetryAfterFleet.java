package io.breakerctl.runtime;

import io.breakerctl.runtime.model.AdmissionReason;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.RateLimitAction;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * Nodes (separate HYBRID registries) with one caller each, calling an HTTP dependency and reporting
 * each answer with {@link Permission#onResult}: the default classifier makes a 429 RATE_LIMITED and
 * finds its {@code Retry-After}, and the policy's {@code rateLimited: BACKOFF} turns it into the
 * fleet's window. Each request names its node ({@code X-Node}), how it was admitted ({@code
 * X-Reason}: CLOSED or PROBE) and how many OPEN rejections its node had seen before ({@code
 * X-Rejections}), so the dependency can judge every arrival. For {@link RetryAfterFleetIT} and its
 * child-process twin {@link RetryAfterFleetMain}.
 */
final class RetryAfterFleet implements AutoCloseable {

  /** The scenario's policy: threshold 5, one probe, a 5 s lease, rateLimited BACKOFF. */
  static Policy policy(long openMillis, long maxOpenMillis) {
    return Policy.builder()
        .failureThreshold(5)
        .open(Duration.ofMillis(openMillis))
        .maxOpen(Duration.ofMillis(maxOpenMillis))
        .halfOpenPermits(1)
        .probeLease(Duration.ofSeconds(5))
        .rateLimited(RateLimitAction.BACKOFF)
        .build();
  }

  final List<BreakerRegistry> registries = new ArrayList<>();
  final List<CircuitBreaker> breakers = new ArrayList<>();
  final List<String> nodes = new ArrayList<>();
  final List<AtomicLong> rejections = new ArrayList<>();
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final List<Thread> threads = new ArrayList<>();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  RetryAfterFleet(
      String uri, BreakerId id, int n, String nodePrefix, long openMillis, long maxOpenMillis) {
    for (int i = 0; i < n; i++) {
      BreakerRegistry r =
          BreakerRegistry.builder()
              .redisUri(uri)
              .nodeId(nodePrefix + i)
              .mode(Mode.HYBRID)
              .defaults(policy(openMillis, maxOpenMillis))
              .flushInterval(Duration.ofMillis(200))
              .refreshInterval(Duration.ofMillis(500))
              .commandTimeout(Duration.ofSeconds(1))
              .build();
      registries.add(r);
      breakers.add(r.breaker(id));
      nodes.add(nodePrefix + i);
      rejections.add(new AtomicLong());
    }
  }

  /** Starts one caller per node until {@code stop} exists or {@code stopAt} (wall ms) passes. */
  void start(String dependency, Path stop, long stopAt) {
    for (int i = 0; i < breakers.size(); i++) {
      CircuitBreaker cb = breakers.get(i);
      String node = nodes.get(i);
      AtomicLong rejected = rejections.get(i);
      Thread t =
          new Thread(
              () -> {
                while (running.get()
                    && System.currentTimeMillis() < stopAt
                    && !Files.exists(stop)) {
                  call(cb, node, rejected, dependency);
                  Fleet.sleep(10);
                }
              },
              "retry-after-caller");
      t.setDaemon(true);
      t.start();
      threads.add(t);
    }
  }

  private void call(CircuitBreaker cb, String node, AtomicLong rejected, String dependency) {
    long seen = rejected.get();
    Permission p = cb.tryAcquire();
    if (!p.allowed()) {
      if (p.reason() == AdmissionReason.OPEN) {
        rejected.incrementAndGet();
      }
      return;
    }
    long began = System.nanoTime();
    try {
      HttpResponse<Void> r =
          http.send(
              HttpRequest.newBuilder(URI.create(dependency))
                  .header("X-Node", node)
                  .header("X-Reason", p.reason().name())
                  .header("X-Rejections", Long.toString(seen))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.discarding());
      p.onResult(r, System.nanoTime() - began);
    } catch (Exception e) {
      p.onError(e, System.nanoTime() - began);
    }
  }

  /** Each node's OPEN rejections, {@code node:count,...}. */
  String rejectionsLine() {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < nodes.size(); i++) {
      out.add(nodes.get(i) + ":" + rejections.get(i).get());
    }
    return out.stream().collect(Collectors.joining(","));
  }

  @Override
  public void close() {
    running.set(false);
    Fleet.stop(threads, registries);
  }
}
