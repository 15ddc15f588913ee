package io.breakerctl.cli.commands;

import io.breakerctl.cli.BreakerCtl;
import io.breakerctl.cli.ExitCode;
import io.breakerctl.cli.ServiceFactory;
import io.breakerctl.cli.WriteAccess;
import io.breakerctl.cli.output.Documents;
import io.breakerctl.cli.output.OutputFormat;
import io.breakerctl.cli.output.OutputOptions;
import io.breakerctl.cli.output.Printable;
import io.breakerctl.runtime.control.HistoryForwarder;
import io.breakerctl.runtime.control.SyncResult;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code breakerctl history sync}: one pass of the history forwarder. */
@Command(
    name = "sync",
    description = {
      "Run the history forwarder once: move every breaker's unforwarded stream events into"
          + " MongoDB history (idempotent; safe next to the fleet's elected forwarder), store the"
          + " audit of overrides made while MongoDB was down, then prune one batch older than the"
          + " retention (90 days). Exit 6 when a breaker could not be forwarded (retried next pass)."
    })
public final class HistorySyncCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin OutputOptions output;

  @Override
  public Integer call() {
    BreakerCtl root = BreakerCtl.of(spec);
    String actor = WriteAccess.actor(root);
    ServiceFactory services = root.services();
    WriteAccess.require(root, "history sync", List.of());
    SyncResult r =
        new HistoryForwarder(services.control(), services.redis(), actor, root.env().clock())
            .syncOnce();
    PrintWriter out = spec.commandLine().getOut();
    OutputFormat format = output.format();
    if (format.isTable()) {
      out.println(
          "forwarded "
              + r.events()
              + " event(s) and "
              + r.audits()
              + " audit record(s) from "
              + r.breakers()
              + " breaker(s)");
      out.flush();
    } else {
      Documents.single(format, "SyncResult", r, out);
    }
    PrintWriter err = spec.commandLine().getErr();
    r.failures().forEach(f -> err.println("error: " + Printable.escape(f)));
    err.flush();
    return r.failures().isEmpty() ? ExitCode.OK : ExitCode.UNAVAILABLE;
  }
}
