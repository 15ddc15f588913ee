package io.breakerctl.runtime.control.history;

import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.Permission;
import io.breakerctl.runtime.control.ControlConfig;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.testing.StartSignal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Child process for {@link ForwardingIT}: one node (a HYBRID registry with the control plane, so it
 * hands off its transitions and competes for the fleet forwarder lease) calling a failing
 * dependency through the given breakers from wall-clock {@code startAt} until {@code stopAt}, then
 * printing {@code DONE} and idling (its forwarder keeps running) until killed.
 *
 * <p>Args: redisUri mongoUri database nodeId startAt stopAt breakerId...; startAt is wall-clock
 * millis or {@code @FILE} ({@link StartSignal}), stopAt millis or {@code +MILLIS} after startAt.
 */
public final class TrippingNodeMain {
  private TrippingNodeMain() {}

  public static void main(String[] args) throws InterruptedException {
    ControlConfig control =
        ControlConfig.builder()
            .uri(args[1])
            .database(args[2])
            .timeout(Duration.ofMillis(500))
            .build();
    Policy policy =
        Policy.builder()
            .failureThreshold(2)
            .open(Duration.ofMillis(100))
            .maxOpen(Duration.ofMillis(200))
            .probeLease(Duration.ofMillis(300))
            .build();
    BreakerRegistry node =
        BreakerRegistry.builder()
            .redisUri(args[0])
            .nodeId(args[3])
            .defaults(policy)
            .controlPlane(control)
            .build();
    List<CircuitBreaker> breakers = new ArrayList<>();
    for (int i = 6; i < args.length; i++) {
      breakers.add(node.breaker(BreakerId.parse(args[i])));
    }
    System.out.println("READY");
    long startAt = StartSignal.await(args[4], Duration.ofSeconds(90));
    long stopAt =
        args[5].startsWith("+")
            ? startAt + Long.parseLong(args[5].substring(1))
            : Long.parseLong(args[5]);
    Thread.sleep(Math.max(0, startAt - System.currentTimeMillis()));
    while (System.currentTimeMillis() < stopAt) {
      for (CircuitBreaker cb : breakers) {
        Permission p = cb.tryAcquire();
        if (p.allowed()) {
          p.onFailure(new IllegalStateException("dependency down"), 1_000_000);
        }
      }
      Thread.sleep(5);
    }
    System.out.println("DONE");
    Thread.sleep(Duration.ofMinutes(5).toMillis());
    node.close();
  }
}
