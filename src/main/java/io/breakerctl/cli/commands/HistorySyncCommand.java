package io.breakerctl.cli.commands;

import io.breakerctl.cli.CliContext;
import io.breakerctl.cli.ExitCode;
import io.breakerctl.cli.ServiceFactory;
import io.breakerctl.cli.WriteAccess;
import io.breakerctl.cli.output.Documents;
import io.breakerctl.cli.output.OutputFormat;
import io.breakerctl.cli.output.OutputOptions;
import io.breakerctl.cli.output.Printable;
import io.breakerctl.runtime.control.ControlException;
import io.breakerctl.runtime.control.audit.AuditLog;
import io.breakerctl.runtime.control.history.HistoryForwarder;
import io.breakerctl.runtime.control.history.SyncResult;
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
          + " audit of overrides made while MongoDB was down (from the streams, and from this"
          + " CLI's local audit spool under $XDG_STATE_HOME/breakerctl/audit-spool), then prune one"
          + " batch older than the retention (90 days); and put back every override MongoDB holds"
          + " live that Redis lost (a failover to a replica that missed it: a REASSERTED"
          + " transition by this actor), as the fleet's forwarder does every pass. Exit 6 when a"
          + " breaker could not be"
          + " forwarded or the spool not delivered (retried next pass)."
    })
public final class HistorySyncCommand implements Callable<Integer> {

  /**
   * What a pass did ({@code kind: SyncResult}).
   *
   * @param breakers breakers forwarded
   * @param events events stored in MongoDB history
   * @param audits audit records stored from override events
   * @param spooledAudits audit records delivered from this CLI's local spool
   * @param failures what could not be done (retried next pass)
   * @param reasserted breakers whose override, live in MongoDB and lost by Redis, was put back
   */
  @com.fasterxml.jackson.annotation.JsonPropertyOrder({
    "breakers",
    "events",
    "audits",
    "spooledAudits",
    "failures",
    "reasserted"
  })
  public record Report(
      int breakers,
      int events,
      int audits,
      int spooledAudits,
      List<String> failures,
      List<String> reasserted) {}

  @Spec CommandSpec spec;

  @Mixin OutputOptions output;

  @Override
  public Integer call() {
    CliContext root = CliContext.of(spec);
    String actor = WriteAccess.actor(root);
    ServiceFactory services = root.services();
    WriteAccess.require(root, "history sync", List.of());
    List<String> spoolFailures = new java.util.ArrayList<>();
    int spooled = 0;
    try {
      spooled = services.auditSpool().deliver(new AuditLog(services.control()));
    } catch (ControlException | java.io.UncheckedIOException e) {
      spoolFailures.add(
          "audit spool " + services.auditSpool().dir() + " not delivered: " + e.getMessage());
    }
    SyncResult forwarded =
        new HistoryForwarder(services.control(), services.redis(), actor, root.env().clock())
            .syncOnce();
    List<String> failures = new java.util.ArrayList<>(spoolFailures);
    failures.addAll(forwarded.failures());
    Report r =
        new Report(
            forwarded.breakers(),
            forwarded.events(),
            forwarded.audits(),
            spooled,
            failures,
            forwarded.reasserted());
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
              + " breaker(s)"
              + (r.spooledAudits() > 0
                  ? ", and " + r.spooledAudits() + " audit record(s) from the local spool"
                  : ""));
      if (!r.reasserted().isEmpty()) {
        out.println(
            "put back the override(s) Redis lost of "
                + r.reasserted().size()
                + " breaker(s): "
                + String.join(", ", r.reasserted()));
      }
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
