package io.breakerctl.runtime;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import java.time.Duration;

/**
 * Child process for {@link RuntimeFaultsIT}: a HYBRID node that asks until it gets a probe lease,
 * prints {@code LEASED <id>} and then hangs (the test SIGKILLs it while it holds the lease).
 *
 * <p>Args: uri breakerId
 */
public final class LeaseHolderMain {
  private LeaseHolderMain() {}

  public static void main(String[] args) throws Exception {
    Policy p =
        Policy.builder()
            .failureThreshold(1)
            .open(Duration.ofMillis(300))
            .probeLease(Duration.ofSeconds(6)) // as RuntimeFaultsIT.killedProber
            .build();
    BreakerRegistry r =
        BreakerRegistry.builder().redisUri(args[0]).nodeId("doomed").defaults(p).build();
    CircuitBreaker cb = r.breaker(BreakerId.parse(args[1]));
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (System.nanoTime() < deadline) {
      Permission permission = cb.tryAcquire();
      if (permission.allowed() && !permission.lease().isEmpty()) {
        System.out.println("LEASED " + permission.lease());
        System.out.flush();
        Thread.sleep(60_000);
      }
      Thread.sleep(5);
    }
    System.exit(3);
  }
}
