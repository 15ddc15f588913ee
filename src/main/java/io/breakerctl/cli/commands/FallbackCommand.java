package io.breakerctl.cli.commands;

import io.breakerctl.cli.CliContext;
import io.breakerctl.cli.CliException;
import io.breakerctl.cli.output.Documents;
import io.breakerctl.cli.output.FallbackViews;
import io.breakerctl.cli.output.OutputFormat;
import io.breakerctl.cli.output.OutputOptions;
import io.breakerctl.cli.output.Style;
import io.breakerctl.cli.output.Table;
import io.breakerctl.runtime.control.fallback.FallbackCatalog;
import io.breakerctl.runtime.control.fallback.FallbackCatalog.DeferredSummary;
import io.breakerctl.runtime.fallback.FallbackSnapshot;
import io.breakerctl.runtime.model.BreakerId;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code breakerctl fallback ...}: fallback snapshots and deferred requests. */
@Command(
    name = "fallback",
    description = {
      "Fallback snapshots (last-known-good values served while a breaker rejects) and deferred"
          + " requests. Business keys are stored only as salted hashes; payloads are never shown"
          + " unless 'show --payload' is run with the keys that decrypt them."
    },
    subcommands = {
      FallbackCommand.ListSnapshots.class,
      FallbackShowCommand.class,
      FallbackReviewCommand.Approve.class,
      FallbackReviewCommand.Revoke.class,
      FallbackCommand.Deferred.class
    })
public final class FallbackCommand implements Callable<Integer> {

  static final int LIMIT = 10_000;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    throw new ParameterException(
        spec.commandLine(), "a subcommand is required: list, show, approve, revoke, deferred");
  }

  /** {@code fallback list [PATTERN]}. */
  @Command(
      name = "list",
      description = {
        "List snapshots: breaker, key hash, status, age, expiry, approver, the age of the pending"
            + " candidate a fresh capture left beside an approved one (CANDIDATE, '-' when none;"
            + " 'fallback approve' puts it in the approved one's place), source (never the"
            + " payload)."
      })
  static final class ListSnapshots implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(
        arity = "0..1",
        paramLabel = "PATTERN",
        description = "A breaker id or a glob (default: every breaker).")
    String pattern;

    @Mixin OutputOptions output;

    @Override
    public Integer call() {
      CliContext root = CliContext.of(spec);
      List<FallbackSnapshot> all =
          new FallbackCatalog(root.services().control())
              .snapshots(ReplayCommand.pattern(pattern), LIMIT);
      Instant now = root.env().clock().instant();
      PrintWriter out = spec.commandLine().getOut();
      OutputFormat format = output.format();
      if (format.isTable()) {
        Table t =
            new Table(
                    "BREAKER",
                    "KEY-HASH",
                    "STATUS",
                    "AGE",
                    "EXPIRES",
                    "APPROVED-BY",
                    "CANDIDATE",
                    "SOURCE")
                .flexible(7);
        Style style = root.style();
        for (FallbackSnapshot s : all) {
          t.row(
              null,
              s.breakerId().toString(),
              s.keyHash().substring(0, Math.min(16, s.keyHash().length())),
              s.status().name() + (now.isBefore(s.expiresAt()) ? "" : " (expired)"),
              Style.age(Math.max(0, now.toEpochMilli() - s.capturedAt().toEpochMilli())),
              style.time(s.expiresAt().toEpochMilli(), now.toEpochMilli()),
              s.approvedBy().isEmpty() ? "-" : s.approvedBy(),
              s.candidate()
                  .map(c -> Style.age(Math.max(0, now.toEpochMilli() - c.toEpochMilli())))
                  .orElse("-"),
              s.source());
        }
        if (all.isEmpty()) {
          spec.commandLine().getErr().println("No snapshots found.");
          spec.commandLine().getErr().flush();
        } else {
          t.print(out, style, output.headers());
        }
      } else {
        try (Documents.ListWriter w = Documents.list(format, "SnapshotList", out)) {
          all.forEach(
              s -> w.item(FallbackViews.of(s, now, null), s.breakerId() + "|" + s.keyHash()));
        }
      }
      out.flush();
      return 0;
    }
  }

  /** {@code fallback deferred [TRACKING-ID]}. */
  @Command(
      name = "deferred",
      description = {
        "Deferred requests and their status (PENDING, DONE, FAILED), attempts and last result;"
            + " one by its tracking id (unknown: exit 7), else those of --breaker (every breaker)."
            + " Never the payload."
      })
  static final class Deferred implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(arity = "0..1", paramLabel = "TRACKING-ID", description = "One request.")
    String trackingId;

    @Option(
        names = "--breaker",
        paramLabel = "PATTERN",
        description = "Only requests of these breakers (an id or a glob).")
    String breaker;

    @Mixin OutputOptions output;

    @Override
    public Integer call() {
      CliContext root = CliContext.of(spec);
      FallbackCatalog catalog = new FallbackCatalog(root.services().control());
      List<DeferredSummary> all;
      if (trackingId != null) {
        all =
            List.of(
                catalog
                    .deferred(trackingId)
                    .orElseThrow(() -> CliException.notFound("no deferred request " + trackingId)));
      } else {
        all = catalog.deferred(ReplayCommand.pattern(breaker), LIMIT);
      }
      PrintWriter out = spec.commandLine().getOut();
      OutputFormat format = output.format();
      if (format.isTable()) {
        Table t = new Table("TRACKING-ID", "BREAKER", "STATUS", "ATTEMPTS", "CREATED", "RESULT");
        t.flexible(5);
        long now = root.env().clock().millis();
        for (DeferredSummary d : all) {
          t.row(
              null,
              d.trackingId(),
              d.breakerId().toString(),
              d.status().name(),
              Integer.toString(d.attempts()),
              root.style().time(d.createdAt().toEpochMilli(), now),
              d.result().isEmpty() ? "-" : d.result());
        }
        if (all.isEmpty()) {
          spec.commandLine().getErr().println("No deferred requests found.");
          spec.commandLine().getErr().flush();
        } else {
          t.print(out, root.style(), output.headers());
        }
      } else {
        try (Documents.ListWriter w = Documents.list(format, "DeferredRequestList", out)) {
          all.forEach(d -> w.item(FallbackViews.of(d), d.trackingId()));
        }
      }
      out.flush();
      return 0;
    }
  }

  /** The breaker id a fallback command names: a bad one is a usage error. */
  static BreakerId breaker(String id) {
    try {
      return BreakerId.parse(id);
    } catch (IllegalArgumentException e) {
      throw CliException.usage(e.getMessage());
    }
  }
}
