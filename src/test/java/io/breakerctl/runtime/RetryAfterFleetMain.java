package io.breakerctl.runtime;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.testing.StartSignal;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Child process for {@link RetryAfterFleetIT}: {@code n} nodes of a {@link RetryAfterFleet}, each
 * calling the dependency from {@code startAt} ({@code @FILE}, written once every JVM printed {@code
 * READY}) until the stop file exists (at most {@code runMillis}); then prints {@code
 * rejections=node:count,...}.
 *
 * <p>Args: uri breakerId n nodePrefix startAt runMillis dependencyUrl stopFile openMillis
 * maxOpenMillis
 */
public final class RetryAfterFleetMain {
  private RetryAfterFleetMain() {}

  public static void main(String[] args) throws Exception {
    RetryAfterFleet fleet =
        new RetryAfterFleet(
            args[0],
            BreakerId.parse(args[1]),
            Integer.parseInt(args[2]),
            args[3],
            Long.parseLong(args[8]),
            Long.parseLong(args[9]));
    System.out.println("READY");
    long startAt = StartSignal.await(args[4], Duration.ofMinutes(4));
    long stopAt = startAt + Long.parseLong(args[5]);
    Fleet.sleep(startAt - System.currentTimeMillis());
    fleet.start(args[6], Path.of(args[7]), stopAt);
    while (System.currentTimeMillis() < stopAt && !java.nio.file.Files.exists(Path.of(args[7]))) {
      Fleet.sleep(50);
    }
    fleet.close();
    System.out.println("rejections=" + fleet.rejectionsLine());
  }
}
