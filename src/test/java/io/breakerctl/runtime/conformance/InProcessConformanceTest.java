package io.breakerctl.runtime.conformance;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.store.BreakerStore;
import io.breakerctl.runtime.store.inprocess.InProcessBreakerStore;
import io.breakerctl.testing.MutableClock;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;

/**
 * The conformance suite ({@link ConformanceSuite}) on {@link InProcessBreakerStore}: the Java
 * machine the runtime uses for LOCAL mode, for degraded decisions and in tests without Redis must
 * keep every promise the scripts keep, answer for answer. Time is a {@link MutableClock} the hooks
 * move, so the suite runs in milliseconds and no case can be late. Every node is the same store
 * object (the store has no connections); {@link InProcessBreakerStore#flushAll()} is the failover
 * to an empty replica; key expiry is not applicable (the store keeps no keys).
 */
@DisplayName("Conformance suite on the in-process store")
class InProcessConformanceTest extends ConformanceSuite {

  @Override
  protected StoreUnderTest open() {
    MutableClock clock = new MutableClock(1_767_225_600_000L);
    InProcessBreakerStore store = new InProcessBreakerStore(clock);
    return new StoreUnderTest() {
      @Override
      public String name() {
        return "in-process";
      }

      @Override
      public BreakerStore node(int index) {
        return store;
      }

      @Override
      public Duration unit() {
        return Duration.ofSeconds(1);
      }

      @Override
      public void awaitStoreTime(BreakerId id, long storeMillis) {
        long now = clock.millis();
        if (storeMillis > now) {
          clock.advanceMillis(storeMillis - now);
        }
      }

      @Override
      public Optional<String> unsupported(Capability c) {
        return c == Capability.KEY_EXPIRY
            ? Optional.of("the in-process store keeps no keys, so nothing of it expires")
            : Optional.empty();
      }

      @Override
      public void loseAllData() {
        store.flushAll();
      }

      @Override
      public KeyExpiry keyExpiry() {
        throw new UnsupportedOperationException(unsupported(Capability.KEY_EXPIRY).orElseThrow());
      }

      @Override
      public java.util.List<io.breakerctl.runtime.store.NodeHeartbeat> reports(BreakerId id) {
        return io.breakerctl.runtime.store.StoreFutures.await(store.state(id)).nodes();
      }

      @Override
      public void close() {
        store.close();
      }
    };
  }
}
