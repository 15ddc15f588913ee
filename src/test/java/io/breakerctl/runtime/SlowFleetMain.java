package io.breakerctl.runtime;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.testing.StartSignal;
import java.time.Duration;
import java.util.stream.Collectors;

/**
 * Child process for {@link SlowProbeIT}: {@code n} nodes of a {@link SlowFleet} with {@code
 * callers} threads each, from {@code startAt} ({@code @FILE}: written by the parent once this child
 * printed {@code READY}) for {@code runMillis}; then prints {@code calls=start:end:node:how,...}
 * and {@code events=...|...} (see {@link SlowFleet.Call}). A negative failFastMillis: the
 * dependency fails at once until the trip ({@link SlowFleet#UNTIL_THE_TRIP}).
 *
 * <p>Args: uri breakerId mode n nodePrefix startAt runMillis failFastMillis hangMillis callers
 * maxProbeMillis
 */
public final class SlowFleetMain {
  private SlowFleetMain() {}

  public static void main(String[] args) throws Exception {
    BreakerId id = BreakerId.parse(args[1]);
    Mode mode = Mode.valueOf(args[2]);
    int n = Integer.parseInt(args[3]);
    SlowFleet fleet =
        new SlowFleet(args[0], id, mode, n, args[4], SlowProbeIT.policy(Long.parseLong(args[10])));
    System.out.println("READY");
    // SlowProbeIT starts its children one at a time and starts them calling once all are up
    long startAt = StartSignal.await(args[5], Duration.ofMinutes(4));
    long stopAt = startAt + Long.parseLong(args[6]);
    Fleet.sleep(startAt - System.currentTimeMillis());
    fleet.start(
        Integer.parseInt(args[9]),
        Long.parseLong(args[7]) < 0 ? SlowFleet.UNTIL_THE_TRIP : startAt + Long.parseLong(args[7]),
        Long.parseLong(args[8]),
        stopAt);
    fleet.join(Duration.ofMillis(stopAt - System.currentTimeMillis() + 15_000));
    System.out.println(
        "calls=" + fleet.calls.stream().map(String::valueOf).collect(Collectors.joining(",")));
    System.out.println("events=" + String.join("|", fleet.events));
    fleet.close();
  }
}
