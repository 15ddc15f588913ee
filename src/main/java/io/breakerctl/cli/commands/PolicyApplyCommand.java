package io.breakerctl.cli.commands;

import io.breakerctl.cli.BreakerCtl;
import io.breakerctl.cli.CliException;
import io.breakerctl.cli.Confirmation;
import io.breakerctl.cli.Durations;
import io.breakerctl.cli.ExitCode;
import io.breakerctl.cli.MutationOptions;
import io.breakerctl.cli.commands.PolicyViews.PolicyChange;
import io.breakerctl.cli.output.OutputOptions;
import io.breakerctl.runtime.control.ApplyOptions;
import io.breakerctl.runtime.control.ApplyResult;
import io.breakerctl.runtime.control.PolicyConflictException;
import io.breakerctl.runtime.control.PolicyControl;
import io.breakerctl.runtime.control.PolicyPreview;
import io.breakerctl.runtime.control.policy.PolicyDocument;
import io.breakerctl.runtime.control.policy.PolicyId;
import io.breakerctl.runtime.control.policy.PolicySet;
import io.breakerctl.runtime.model.OperatorText;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code breakerctl policy apply -f FILE|DIR}: diff, confirm, create versions, warm. */
@Command(
    name = "apply",
    description = {
      "Apply policy files: a field-level diff per policy against the version in force, then a new"
          + " version for each changed one (author, --approved-by, --reason, correlation id),"
          + " warmed into Redis. Idempotent: an unchanged policy creates no version and says so.",
      "Every file is validated first: any problem exits 2 with nothing applied. Each policy's"
          + " newest version is pinned when the diff is read (and by --expect): if another"
          + " change lands first, exit 3 naming the expected and actual versions; the pins of every"
          + " policy are checked before the first is written.",
      "--dry-run prints the diff and exits 0 when nothing would change, 1 when something would."
    })
public final class PolicyApplyCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = {"-f", "--filename"},
      required = true,
      paramLabel = "FILE|DIR",
      description = "Policy files or directories (repeatable).")
  List<Path> paths;

  @Option(
      names = "--reason",
      required = true,
      paramLabel = "TEXT",
      description = "Why (the change cause in 'policy history'); at most 1024 bytes, one line.")
  String reason;

  @Option(names = "--approved-by", paramLabel = "NAME", description = "Who approved the change.")
  String approvedBy;

  @Option(
      names = "--for",
      paramLabel = "DURATION",
      converter = Durations.class,
      description =
          "A temporary version: in force for DURATION, then the one before applies again.")
  Duration forDuration;

  @Option(
      names = "--expect",
      paramLabel = "ID=VERSION",
      description =
          "Exit 3 unless policy ID's newest version is VERSION (0: it does not exist yet), e.g."
              + " the version a reviewed dry run showed (repeatable).")
  Map<String, Long> expect = new LinkedHashMap<>();

  @Mixin MutationOptions mutation;

  @Mixin OutputOptions output;

  @Override
  public Integer call() throws IOException {
    BreakerCtl root = BreakerCtl.of(spec);
    PrintWriter err = spec.commandLine().getErr();
    Confirmation.checkText("--reason", reason, OperatorText.MAX_REASON_BYTES);
    if (approvedBy != null) {
      Confirmation.checkText("--approved-by", approvedBy, OperatorText.MAX_ACTOR_BYTES);
    }
    String actor = Confirmation.actor(root);
    if (forDuration != null && forDuration.isZero()) {
      throw CliException.usage("--for must be more than 0 (leave it out for a lasting version)");
    }
    PolicySet set = PolicyValidateCommand.readValid(paths, err);
    Map<PolicyId, Long> pins = pins(set);
    Optional<Instant> expiresAt =
        Optional.ofNullable(forDuration).map(d -> root.env().clock().instant().plus(d));
    PolicyControl control = root.services().policies(!mutation.dryRun());
    if (!mutation.dryRun()) {
      control.revertExpired(); // an expired temporary version is reverted before it is compared
    }
    List<PolicyPreview> previews = new ArrayList<>();
    for (PolicyDocument d : set.documents()) {
      PolicyPreview p = control.preview(d, expiresAt);
      Long pinned = pins.get(d.id());
      if (pinned != null && pinned != p.latestVersion()) {
        throw new PolicyConflictException(d.id(), pinned, p.latestVersion());
      }
      previews.add(p);
    }
    if (mutation.dryRun()) {
      List<PolicyChange> rows = new ArrayList<>();
      for (int i = 0; i < previews.size(); i++) {
        rows.add(preview(set.documents().get(i), previews.get(i)));
      }
      PolicyPrinter.changes(output.format(), rows, spec.commandLine().getOut());
      return previews.stream().anyMatch(PolicyPreview::changed)
          ? ExitCode.CHECK_FAILED
          : ExitCode.OK;
    }
    List<String> changing =
        previews.stream().filter(PolicyPreview::changed).map(p -> p.policyId().toString()).toList();
    if (!changing.isEmpty()) {
      Confirmation.confirm(
          root,
          mutation.yes(),
          err,
          "Apply new versions (reason: " + reason + ")",
          "polic" + (changing.size() == 1 ? "y" : "ies"),
          changing);
    }
    return apply(control, set, previews, actor, expiresAt);
  }

  private Map<PolicyId, Long> pins(PolicySet set) {
    Map<PolicyId, Long> pins = new LinkedHashMap<>();
    expect.forEach((id, v) -> pins.put(PolicyCommand.policyId(id), v));
    for (PolicyId id : pins.keySet()) {
      if (set.documents().stream().noneMatch(d -> d.id().equals(id))) {
        throw CliException.usage("--expect names policy " + id + ", which no file holds");
      }
      if (pins.get(id) < 0) {
        throw CliException.usage("--expect " + id + " must be a version >= 0");
      }
    }
    return pins;
  }

  private int apply(
      PolicyControl control,
      PolicySet set,
      List<PolicyPreview> previews,
      String actor,
      Optional<Instant> expiresAt) {
    List<PolicyChange> rows = new ArrayList<>();
    PolicyConflictException conflict = null;
    for (int i = 0; i < previews.size(); i++) {
      PolicyDocument d = set.documents().get(i);
      if (conflict != null) {
        rows.add(notApplied(d, previews.get(i), "NOT_ATTEMPTED"));
        continue;
      }
      ApplyOptions o = ApplyOptions.by(actor, reason).expecting(previews.get(i).latestVersion());
      if (approvedBy != null) {
        o = o.approvedBy(approvedBy);
      }
      if (expiresAt.isPresent()) {
        o = o.expiringAt(expiresAt.get());
      }
      try {
        rows.add(result(source(d), control.apply(d, o)));
      } catch (PolicyConflictException e) {
        conflict = e;
        rows.add(notApplied(d, previews.get(i), "CONFLICT"));
      }
    }
    PolicyPrinter.changes(output.format(), rows, spec.commandLine().getOut());
    if (conflict != null) {
      throw conflict;
    }
    return warmCode(rows, spec.commandLine().getErr());
  }

  /** Exit 6 when warming failed for some breaker (the versions are recorded; apply again). */
  static int warmCode(List<PolicyChange> rows, PrintWriter err) {
    long failed =
        rows.stream()
            .flatMap(r -> r.warmed().stream())
            .filter(w -> "FAILED".equals(w.outcome()))
            .count();
    if (failed == 0) {
      return ExitCode.OK;
    }
    err.println(
        "error: the versions are recorded but "
            + failed
            + " breaker(s) could not be warmed (see warmed[].error in -o json); running the same"
            + " apply again warms them");
    err.flush();
    return ExitCode.UNAVAILABLE;
  }

  static String source(PolicyDocument d) {
    return d.source() + "#" + d.document();
  }

  static PolicyChange result(String source, ApplyResult r) {
    boolean created = r.outcome() == ApplyResult.Outcome.CREATED;
    long from =
        created
            ? r.version().version() - 1
            : r.previous().map(v -> v.version()).orElse(r.version().version());
    return new PolicyChange(
        r.policyId().toString(),
        source,
        r.outcome().name(),
        from,
        r.version().version(),
        PolicyViews.time(r.version().expiresAt()),
        PolicyViews.changes(r.changes()),
        r.correlationId(),
        false,
        PolicyViews.warmed(r.warmed()));
  }

  static PolicyChange preview(PolicyDocument d, PolicyPreview p) {
    return preview(source(d), p);
  }

  static PolicyChange preview(String source, PolicyPreview p) {
    return new PolicyChange(
        p.policyId().toString(),
        source,
        p.changed() ? "WOULD_CHANGE" : "WOULD_NOT_CHANGE",
        p.latestVersion(),
        p.changed() ? 0 : p.latestVersion(),
        PolicyViews.time(p.expiresAt()),
        PolicyViews.changes(p.changes()),
        "",
        true,
        List.of());
  }

  private static PolicyChange notApplied(PolicyDocument d, PolicyPreview p, String outcome) {
    return new PolicyChange(
        p.policyId().toString(),
        source(d),
        outcome,
        p.latestVersion(),
        p.latestVersion(),
        null,
        PolicyViews.changes(p.changes()),
        "",
        false,
        List.of());
  }
}
