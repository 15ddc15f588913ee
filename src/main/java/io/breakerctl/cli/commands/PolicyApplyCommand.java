package io.breakerctl.cli.commands;

import io.breakerctl.cli.CliContext;
import io.breakerctl.cli.CliException;
import io.breakerctl.cli.Confirmation;
import io.breakerctl.cli.Durations;
import io.breakerctl.cli.ExitCode;
import io.breakerctl.cli.MutationOptions;
import io.breakerctl.cli.WriteAccess;
import io.breakerctl.cli.output.OutputOptions;
import io.breakerctl.cli.output.PolicyViews.PolicyChange;
import io.breakerctl.runtime.control.policy.ApplyOptions;
import io.breakerctl.runtime.control.policy.PolicyConflictException;
import io.breakerctl.runtime.control.policy.PolicyControl;
import io.breakerctl.runtime.control.policy.PolicyDocument;
import io.breakerctl.runtime.control.policy.PolicyId;
import io.breakerctl.runtime.control.policy.PolicyOrigin;
import io.breakerctl.runtime.control.policy.PolicyPreview;
import io.breakerctl.runtime.control.policy.PolicySet;
import io.breakerctl.runtime.control.policy.WarmReport;
import io.breakerctl.runtime.model.BreakerId;
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
      "--prune also deletes every policy that no file holds: the files are the whole desired set"
          + " (as kubectl apply --prune). Each deletion is a version of its own (a tombstone with"
          + " author, reason, approver, correlation id), listed in the diff and confirmed like any"
          + " change; its breakers resolve to the next more general policy, or back to their"
          + " nodes' defaults. 'policy rollback ID --to V' brings a deleted policy back.",
      "--dry-run prints the diff and exits 0 when nothing would change, 1 when something would"
          + " (a deletion included).",
      "Each version records its origin (policy history shows it): 'hand' unless --origin"
          + " ci:COMMIT says a CI rollout of that commit made it. --refuse-over-hand-changes (what"
          + " scripts/ci-rollout passes) exits 3, nothing written, when a policy that would change"
          + " has a version in force that no CI rollout made (a rollback, a hand apply, a revert,"
          + " an unknown origin), naming its version, author, reason and time; a dry run prints"
          + " the diff first.",
      "Before anything is written (a dry run too), the live nodes' reports are read from Redis:"
          + " a warning on stderr for each node whose call sites do not accept the fallbackPolicy"
          + " a policy names (breaker, node, what it accepts), since those calls would get a"
          + " controlled failure. --strict makes that exit 2 with nothing written (exit 6 when"
          + " part of the fleet cannot be read)."
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
      paramLabel = "TEXT",
      description =
          "Why (the change cause in 'policy history'); at most 1024 bytes, one line. Required"
              + " unless --dry-run.")
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

  @Option(
      names = "--prune",
      description =
          "Also delete every policy that no file holds (the files are the whole desired set)."
              + " Refused when the files hold no policy.")
  boolean prune;

  @Option(
      names = "--origin",
      paramLabel = "ORIGIN",
      description =
          "Where the new versions come from: ci:COMMIT (a CI rollout of that commit) or hand"
              + " (default).")
  String origin;

  @Option(
      names = "--refuse-over-hand-changes",
      description =
          "Exit 3, nothing written, when a policy that would change has a version in force that"
              + " no CI rollout made (its origin is not ci:...).")
  boolean refuseOverHand;

  @Option(
      names = "--strict",
      description =
          "Exit 2, nothing written, when a live node's call sites do not accept the"
              + " fallbackPolicy a policy names (exit 6 when part of the fleet cannot be read).")
  boolean strict;

  @Mixin MutationOptions mutation;

  @Mixin OutputOptions output;

  private String actor;

  private PolicyOrigin from;

  @Override
  public Integer call() throws IOException {
    CliContext root = CliContext.of(spec);
    PrintWriter err = spec.commandLine().getErr();
    if (reason == null && !mutation.dryRun()) {
      throw CliException.usage("Missing required option: '--reason=TEXT' (a --dry-run needs none)");
    }
    if (reason != null) {
      Confirmation.checkText("--reason", reason, OperatorText.MAX_REASON_BYTES);
    }
    if (approvedBy != null) {
      Confirmation.checkText("--approved-by", approvedBy, OperatorText.MAX_ACTOR_BYTES);
    }
    from = PolicyCommand.applyOrigin(origin);
    actor = WriteAccess.actor(root);
    if (forDuration != null && forDuration.isZero()) {
      throw CliException.usage("--for must be more than 0 (leave it out for a lasting version)");
    }
    if (prune && forDuration != null) {
      throw CliException.usage(
          "--prune cannot be combined with --for: a deletion is never temporary");
    }
    PolicySet set = PolicyValidateCommand.readValid(paths, root.env().clock().instant(), err);
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
    PolicyPrune pruning = prune ? PolicyPrune.plan(control, set, pins) : PolicyPrune.NONE;
    if (mutation.dryRun()) {
      List<PolicyChange> rows = new ArrayList<>();
      for (int i = 0; i < previews.size(); i++) {
        rows.add(PolicyChangeRows.preview(set.documents().get(i), previews.get(i)));
      }
      rows.addAll(pruning.dryRows());
      PolicyPrinter.changes(output.format(), rows, spec.commandLine().getOut(), prune);
      refuseOverHandChanges(control, previews, pruning);
      checkAcceptance(root, set, pruning, err);
      return previews.stream().anyMatch(PolicyPreview::changed) || !pruning.previews().isEmpty()
          ? ExitCode.CHECK_FAILED
          : ExitCode.OK;
    }
    refuseOverHandChanges(control, previews, pruning);
    checkAcceptance(root, set, pruning, err);
    List<String> changing = new ArrayList<>();
    previews.stream()
        .filter(PolicyPreview::changed)
        .forEach(p -> changing.add(p.policyId().toString()));
    changing.addAll(pruning.targets());
    if (!changing.isEmpty()) {
      List<BreakerId> concerned = new ArrayList<>();
      for (PolicyPreview p : previews) {
        if (p.changed()) {
          concerned.addAll(control.governed(p.policyId()));
        }
      }
      for (PolicyPreview p : pruning.previews()) {
        concerned.addAll(control.governed(p.policyId()));
      }
      WriteAccess.require(root, "policy apply", concerned);
      Confirmation.confirm(
          root,
          mutation.yes(),
          err,
          (pruning.previews().isEmpty()
                  ? "Apply new versions"
                  : "Apply new versions and delete the policies no file holds")
              + " (reason: "
              + reason
              + ")",
          "polic" + (changing.size() == 1 ? "y" : "ies"),
          changing);
    }
    // every pin again, right before the first write: a change that landed meanwhile writes nothing
    control.requireLatest(previews);
    control.requireLatest(pruning.previews());
    return apply(control, set, previews, expiresAt, pruning);
  }

  private void refuseOverHandChanges(
      PolicyControl control, List<PolicyPreview> previews, PolicyPrune pruning) {
    if (refuseOverHand) {
      control.requireOnlyOverCi(previews);
      control.requireOnlyOverCi(pruning.previews());
    }
  }

  /** Warns (refuses with --strict) when a live node's call sites refuse a policy's fallback. */
  private void checkAcceptance(
      CliContext root, PolicySet set, PolicyPrune pruning, PrintWriter err) {
    PolicyAcceptance.check(
        root,
        set.documents(),
        pruning.previews().stream()
            .map(PolicyPreview::policyId)
            .collect(java.util.stream.Collectors.toSet()),
        strict,
        err,
        "nothing was applied");
  }

  private Map<PolicyId, Long> pins(PolicySet set) {
    Map<PolicyId, Long> pins = new LinkedHashMap<>();
    expect.forEach((id, v) -> pins.put(PolicyCommand.policyId(id), v));
    for (PolicyId id : pins.keySet()) {
      if (!prune && set.documents().stream().noneMatch(d -> d.id().equals(id))) {
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
      Optional<Instant> expiresAt,
      PolicyPrune pruning) {
    List<PolicyChange> rows = new ArrayList<>();
    PolicyConflictException conflict = null;
    for (int i = 0; i < previews.size(); i++) {
      PolicyDocument d = set.documents().get(i);
      if (conflict != null) {
        rows.add(PolicyChangeRows.notApplied(d, previews.get(i), "NOT_ATTEMPTED"));
        continue;
      }
      ApplyOptions o = options().expecting(previews.get(i).latestVersion());
      if (expiresAt.isPresent()) {
        o = o.expiringAt(expiresAt.get());
      }
      try {
        rows.add(PolicyChangeRows.result(PolicyChangeRows.source(d), control.apply(d, o)));
      } catch (PolicyConflictException e) {
        conflict = e;
        rows.add(PolicyChangeRows.notApplied(d, previews.get(i), "CONFLICT"));
      }
    }
    List<WarmReport> repaired = List.of();
    if (conflict != null) {
      rows.addAll(pruning.notAttempted());
    } else {
      try {
        repaired = pruning.delete(control, this::options, rows);
      } catch (PolicyConflictException e) {
        conflict = e;
      }
    }
    PolicyPrinter.changes(output.format(), rows, spec.commandLine().getOut(), prune);
    if (conflict != null) {
      throw conflict;
    }
    return PolicyChangeRows.warmCode(rows, repaired, spec.commandLine().getErr());
  }

  private ApplyOptions options() {
    ApplyOptions o = ApplyOptions.by(actor, reason).from(from);
    if (refuseOverHand) {
      o = o.refusingOverNonCi();
    }
    return approvedBy == null ? o : o.approvedBy(approvedBy);
  }
}
