package io.breakerctl.cli.commands;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.breakerctl.cli.CliContext;
import io.breakerctl.cli.CliException;
import io.breakerctl.cli.Confirmation;
import io.breakerctl.cli.ExitCode;
import io.breakerctl.cli.MutationOptions;
import io.breakerctl.cli.WriteAccess;
import io.breakerctl.cli.output.Documents;
import io.breakerctl.cli.output.OutputOptions;
import io.breakerctl.runtime.control.fallback.BusinessKeys;
import io.breakerctl.runtime.control.fallback.FallbackCatalog;
import io.breakerctl.runtime.control.fallback.FallbackSnapshots;
import io.breakerctl.runtime.control.fallback.PayloadKeys;
import io.breakerctl.runtime.control.fallback.StoreHotSnapshots;
import io.breakerctl.runtime.fallback.FallbackSnapshot;
import io.breakerctl.runtime.fallback.SnapshotStatus;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OperatorText;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code breakerctl fallback approve|revoke ID KEY}: an audited review of a snapshot. */
abstract class FallbackReviewCommand implements Callable<Integer> {

  /** What a review did ({@code kind: SnapshotReview}). */
  @JsonPropertyOrder({"breakerId", "keyHash", "before", "after", "outcome", "dryRun"})
  public record ReviewView(
      String breakerId,
      String keyHash,
      String before,
      String after,
      String outcome,
      boolean dryRun) {}

  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "ID", description = "A breaker id.")
  String id;

  @Parameters(
      index = "1",
      paramLabel = "KEY",
      description = "The business key (hashed with BREAKERCTL_FALLBACK_SALT).")
  String businessKey;

  @Option(
      names = "--reason",
      required = true,
      paramLabel = "TEXT",
      description = "Why (audited); at most 1024 bytes, one line.")
  String reason;

  @Mixin MutationOptions mutation;

  @Mixin OutputOptions output;

  abstract SnapshotStatus target();

  abstract boolean applies(FallbackSnapshot current);

  @Override
  public Integer call() throws IOException {
    BreakerId breaker = FallbackCommand.breaker(id);
    CliContext root = CliContext.of(spec);
    Confirmation.checkText("--reason", reason, OperatorText.MAX_REASON_BYTES);
    String actor = WriteAccess.actor(root);
    BusinessKeys keys = FallbackShowCommand.businessKeys(root.env());
    String hash = keys.hash(businessKey);
    FallbackSnapshot s =
        new FallbackCatalog(root.services().control())
            .snapshot(breaker, hash)
            .orElseThrow(
                () -> CliException.notFound("no snapshot of " + breaker + " for that key"));
    String verb = target() == SnapshotStatus.APPROVED ? "approve" : "revoke";
    if (!applies(s)) {
      throw CliException.conflict(
          "cannot " + verb + " the snapshot of " + breaker + ": it is " + s.status());
    }
    if (mutation.dryRun()) {
      return print(
          new ReviewView(
              breaker.toString(),
              hash,
              s.status().name(),
              target().name(),
              "WOULD_" + verb.toUpperCase(Locale.ROOT),
              true));
    }
    WriteAccess.require(root, verb + " the snapshot of " + breaker, breaker);
    Confirmation.confirm(
        root,
        mutation.yes(),
        spec.commandLine().getErr(),
        (target() == SnapshotStatus.APPROVED ? "Approve" : "Revoke")
            + " the snapshot (reason: "
            + reason
            + ")",
        "snapshot",
        List.of(breaker + " " + hash.substring(0, 16)));
    // the hot copy in Redis follows the review: an approval warms it, a revocation removes it
    FallbackSnapshots snapshots =
        new FallbackSnapshots(
                root.services().control(), keys, PayloadKeys.none(), root.env().clock())
            .withHotCopies(
                StoreHotSnapshots.on(
                    root.services().redis(), root.services().settings().timeout()));
    boolean done =
        target() == SnapshotStatus.APPROVED
            ? snapshots.approve(breaker, businessKey, actor, reason)
            : snapshots.revoke(breaker, businessKey, actor, reason);
    if (!done) {
      throw CliException.conflict(
          "the snapshot of " + breaker + " changed meanwhile; nothing was written");
    }
    return print(
        new ReviewView(
            breaker.toString(),
            hash,
            s.status().name(),
            target().name(),
            verb.toUpperCase(Locale.ROOT) + "D",
            false));
  }

  private int print(ReviewView v) {
    PrintWriter out = spec.commandLine().getOut();
    if (output.format().isTable()) {
      out.println(
          "snapshot of "
              + v.breakerId()
              + " ("
              + v.keyHash().substring(0, 16)
              + "): "
              + v.before()
              + " -> "
              + v.after()
              + (v.dryRun() ? " (dry run)" : ""));
      out.flush();
    } else {
      Documents.single(output.format(), "SnapshotReview", v, out);
    }
    return ExitCode.OK;
  }

  @Command(
      name = "approve",
      description = {"Approve a PENDING snapshot: it is served until it expires (audited)."})
  static final class Approve extends FallbackReviewCommand {
    @Override
    SnapshotStatus target() {
      return SnapshotStatus.APPROVED;
    }

    @Override
    boolean applies(FallbackSnapshot current) {
      // a pending snapshot, or the pending candidate captured beside an approved one
      return current.status() == SnapshotStatus.PENDING || current.candidate().isPresent();
    }
  }

  @Command(
      name = "revoke",
      description = {"Revoke a snapshot: it is never served again (audited)."})
  static final class Revoke extends FallbackReviewCommand {
    @Override
    SnapshotStatus target() {
      return SnapshotStatus.REVOKED;
    }

    @Override
    boolean applies(FallbackSnapshot current) {
      return current.status() != SnapshotStatus.REVOKED;
    }
  }
}
