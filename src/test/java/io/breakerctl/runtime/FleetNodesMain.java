package io.breakerctl.runtime;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.testing.StartSignal;
import java.util.stream.Collectors;

/**
 * Child process for {@link FleetSplitIT}: runs {@code n} nodes of the fleet (separate registries)
 * calling the failing dependency for {@code durationMillis} from {@code startAt}, then prints every
 * time (ms) a call reached the dependency, {@code reached=t1,t2,...}, how many of them a node made
 * after it had rejected once, {@code afterRejection=N}, and whether every node rejected at least
 * once, {@code allRejected=true|false}. {@code startAt} is wall-clock ms or {@code @FILE} (see
 * {@link FirstTripMain}): the parent writes it once this child printed {@code READY}, so both
 * processes' nodes start together however long this JVM took to start.
 *
 * <p>Args: uri breakerId mode n nodePrefix startAt durationMillis
 */
public final class FleetNodesMain {
  private FleetNodesMain() {}

  public static void main(String[] args) {
    BreakerId id = BreakerId.parse(args[1]);
    Mode mode = Mode.valueOf(args[2]);
    int n = Integer.parseInt(args[3]);
    Fleet fleet = new Fleet(args[0], id, mode, n, args[4], FleetTableIT.policy());
    System.out.println("READY");
    long startAt = StartSignal.await(args[5], java.time.Duration.ofSeconds(60));
    long stopAt = startAt + Long.parseLong(args[6]);
    Fleet.sleep(Math.max(0, startAt - System.currentTimeMillis()));
    fleet.start(2);
    Fleet.sleep(Math.max(0, stopAt - System.currentTimeMillis()));
    fleet.close();
    System.out.println(
        "reached="
            + fleet.dependency.times.stream()
                .map(String::valueOf)
                .collect(Collectors.joining(",")));
    System.out.println("afterRejection=" + fleet.dependency.afterRejection.get());
    System.out.println("allRejected=" + (fleet.allRejectedAt() != 0));
  }
}
