package io.breakerctl.cli.commands;

import io.breakerctl.cli.BreakerCtl;
import io.breakerctl.cli.ExitCode;
import io.breakerctl.runtime.redis.RedisBreakerStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.sandbox.DemoFleet;
import io.breakerctl.sandbox.SandboxStart;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code breakerctl demo}: the sandbox, a simulated fleet, one breaker tripping and recovering. */
@Command(
    name = "demo",
    description = {
      "Start the sandbox when it is not running (and make its context current), let three"
          + " simulated HYBRID nodes (embedded runtime registries) call five breakers, one of them"
          + " tripping fleet-wide, electing one probe and recovering, then print 'status'.",
      "Stop the sandbox afterwards with 'breakerctl sandbox down'."
    })
public final class DemoCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    BreakerCtl root = BreakerCtl.of(spec);
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    SandboxStart start = SandboxCommand.up(root.env(), err);
    try (RedisBreakerStore store =
        RedisBreakerStore.connect(
            StoreConfig.builder()
                .uri(start.state().redisUri())
                .timeout(Duration.ofSeconds(5))
                .build())) {
      new DemoFleet(start.state().redisUri(), store, err).run(Duration.ofSeconds(30));
    }
    err.println();
    err.flush();
    CommandLine status = BreakerCtl.commandLine(root.env());
    status.setOut(out);
    status.setErr(err);
    int code = status.execute("--context", SandboxCommand.CONTEXT, "status");
    out.flush();
    err.println();
    err.println(
        "next: breakerctl describe " + DemoFleet.TRIPPING + "   |   breakerctl sandbox down");
    return code == ExitCode.OK ? ExitCode.OK : code;
  }
}
