package io.breakerctl.runtime;

import io.breakerctl.runtime.model.BreakerId;
import java.util.stream.Collectors;

/**
 * Child process for {@link FleetSplitIT}: runs {@code n} nodes of the fleet (separate registries)
 * calling the failing dependency until wall-clock time {@code stopAt}, then prints every time (ms)
 * a call reached the dependency: {@code reached=t1,t2,...}. The nodes start calling at {@code
 * startAtMillis}, so both processes' nodes start together once both are up.
 *
 * <p>Args: uri breakerId mode n nodePrefix startAtMillis stopAtMillis
 */
public final class FleetNodesMain {
  private FleetNodesMain() {}

  public static void main(String[] args) {
    BreakerId id = BreakerId.parse(args[1]);
    Mode mode = Mode.valueOf(args[2]);
    int n = Integer.parseInt(args[3]);
    long startAt = Long.parseLong(args[5]);
    long stopAt = Long.parseLong(args[6]);
    Fleet fleet = new Fleet(args[0], id, mode, n, args[4], FleetTableIT.policy());
    System.out.println("READY");
    Fleet.sleep(Math.max(0, startAt - System.currentTimeMillis()));
    fleet.start(2);
    Fleet.sleep(Math.max(0, stopAt - System.currentTimeMillis()));
    fleet.close();
    System.out.println(
        "reached="
            + fleet.dependency.times.stream()
                .map(String::valueOf)
                .collect(Collectors.joining(",")));
  }
}
