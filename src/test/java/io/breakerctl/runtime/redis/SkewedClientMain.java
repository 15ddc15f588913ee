package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.store.AcquireResult;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.RecordResult;
import io.breakerctl.runtime.store.StoreFutures;
import java.time.Duration;

/**
 * Child process for {@link ClockSkewIT}, run under a faked wall clock: trips a breaker (threshold
 * 3, open 500 ms), then asks for permission until a probe is granted. Prints {@code skewMillis=S
 * trip=STATE openForMillis=N} where S is this process's clock minus Redis time and N the Redis time
 * from the trip to the first probe lease.
 *
 * <p>Args: uri breakerId
 */
public final class SkewedClientMain {
  private SkewedClientMain() {}

  public static void main(String[] args) {
    BreakerId id = BreakerId.parse(args[1]);
    Policy p = Policy.builder().failureThreshold(3).open(Duration.ofMillis(500)).build();
    try (RedisFleetStore store =
        RedisFleetStore.connect(StoreConfig.builder().uri(args[0]).build())) {
      long skew = System.currentTimeMillis() - StoreFutures.await(store.redisTimeMillis(id));
      RecordResult r = null;
      for (int i = 0; i < 3; i++) {
        r = StoreFutures.await(store.record(id, Outcome.failure("skewed", ""), p));
      }
      long tripped = StoreFutures.await(store.snapshot(id, 0)).number("openedAt");
      AcquireResult a = StoreFutures.await(store.acquire(id, "skewed", p));
      for (int i = 0; i < 100_000 && !a.allowed(); i++) {
        a = StoreFutures.await(store.acquire(id, "skewed", p));
      }
      long grantedAt = a.untilMillis() - p.probeLease().toMillis();
      long openFor = grantedAt - tripped;
      System.out.println("skewMillis=" + skew + " trip=" + r.state() + " openForMillis=" + openFor);
    }
  }
}
