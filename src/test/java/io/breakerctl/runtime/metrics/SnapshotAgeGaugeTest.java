package io.breakerctl.runtime.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.fallback.FallbackSnapshot;
import io.breakerctl.runtime.fallback.Fallbacks;
import io.breakerctl.runtime.fallback.SnapshotApproval;
import io.breakerctl.runtime.fallback.SnapshotCodec;
import io.breakerctl.runtime.fallback.SnapshotRead;
import io.breakerctl.runtime.fallback.SnapshotSource;
import io.breakerctl.runtime.fallback.Unserved;
import io.breakerctl.runtime.model.BreakerId;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The {@value BreakerMetrics#SNAPSHOT_AGE} gauge: the capture time the fallbacks' background check
 * read, aged at each scrape; a scrape never reads the snapshot store, and the store failing keeps
 * the last value.
 */
@DisplayName("the age of the newest approved snapshot")
class SnapshotAgeGaugeTest {

  /** A snapshot store that answers the age check only (and counts its reads). */
  static final class AgeOnly implements SnapshotSource {
    final AtomicReference<Optional<Instant>> newest = new AtomicReference<>(Optional.empty());
    final AtomicReference<RuntimeException> failing = new AtomicReference<>();
    final BlockingQueue<BreakerId> reads = new LinkedBlockingQueue<>();

    @Override
    public boolean encrypts() {
      return true;
    }

    @Override
    public SnapshotRead serve(BreakerId id, String businessKey) {
      throw new UnsupportedOperationException();
    }

    @Override
    public FallbackSnapshot capture(
        BreakerId id,
        String businessKey,
        byte[] payload,
        String source,
        Duration ttl,
        SnapshotApproval approval) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Optional<Instant> newestApproved(BreakerId id) {
      try {
        RuntimeException e = failing.get();
        if (e != null) {
          throw e;
        }
        return newest.get();
      } finally {
        reads.add(id);
      }
    }

    @Override
    public Optional<Unserved> unserved(RuntimeException e) {
      return Optional.empty();
    }
  }

  @Test
  @DisplayName("NaN before a read and with none; the age since capture after; kept on failure")
  void gaugeFollowsTheBackgroundRead() throws InterruptedException {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    AgeOnly store = new AgeOnly();
    store.failing.set(new IllegalStateException("MongoDB down"));
    try (BreakerRegistry node = BreakerRegistry.builder().mode(Mode.LOCAL).nodeId("n").build();
        BreakerRegistryMetrics metrics = BreakerRegistryMetrics.bind(node, meters)) {
      CircuitBreaker cb = metrics.breaker("claims:members");
      assertThat(age(meters)).as("no read yet").isNaN();
      try (Fallbacks<String> fallbacks =
          Fallbacks.<String>builder(cb)
              .cached(
                  store, SnapshotCodec.utf8(), Duration.ofMinutes(5), SnapshotApproval.AUTOMATIC)
              .snapshotAgeInterval(Duration.ofMillis(100))
              .build()) {
        awaitRead(store);
        assertThat(store.reads.poll(30, TimeUnit.SECONDS)).isEqualTo(cb.id());
        assertThat(age(meters)).as("a failed read leaves it unknown").isNaN();

        Instant capturedAt =
            Instant.now()
                .truncatedTo(java.time.temporal.ChronoUnit.MILLIS)
                .minus(Duration.ofHours(1));
        store.newest.set(Optional.of(capturedAt));
        store.failing.set(null);
        awaitRead(store);
        double seen = age(meters);
        assertThat(seen).isGreaterThanOrEqualTo(3600.0);
        assertThat(seen)
            .isLessThanOrEqualTo(Duration.between(capturedAt, Instant.now()).toMillis() / 1000.0);

        store.failing.set(new IllegalStateException("MongoDB down"));
        awaitRead(store);
        assertThat(age(meters)).as("MongoDB down keeps the last capture time").isGreaterThan(3600);

        store.newest.set(Optional.empty());
        store.failing.set(null);
        awaitRead(store);
        assertThat(age(meters)).as("no approved snapshot").isNaN();
      }
    } finally {
      meters.close();
    }
  }

  /**
   * Waits until a read that began after this call has been reported: reads run one after another on
   * one thread, the first one seen may have begun before the call, the second began after it, and
   * the third begins only once the second's report is done.
   */
  private static void awaitRead(AgeOnly store) throws InterruptedException {
    store.reads.clear();
    for (int i = 0; i < 3; i++) {
      assertThat(store.reads.poll(30, TimeUnit.SECONDS)).isNotNull();
    }
  }

  private static double age(SimpleMeterRegistry meters) {
    return meters.get(BreakerMetrics.SNAPSHOT_AGE).gauge().value();
  }
}
