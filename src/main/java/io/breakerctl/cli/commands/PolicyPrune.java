package io.breakerctl.cli.commands;

import io.breakerctl.cli.CliException;
import io.breakerctl.cli.output.PolicyViews;
import io.breakerctl.cli.output.PolicyViews.PolicyChange;
import io.breakerctl.runtime.control.policy.ApplyOptions;
import io.breakerctl.runtime.control.policy.PolicyConflictException;
import io.breakerctl.runtime.control.policy.PolicyControl;
import io.breakerctl.runtime.control.policy.PolicyDocument;
import io.breakerctl.runtime.control.policy.PolicyId;
import io.breakerctl.runtime.control.policy.PolicyPreview;
import io.breakerctl.runtime.control.policy.PolicySet;
import io.breakerctl.runtime.control.policy.PolicyVersion;
import io.breakerctl.runtime.control.policy.WarmReport;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * {@code policy apply --prune}: every policy of the control plane that no file holds (the files are
 * the whole desired set, as {@code kubectl apply --prune}), what deleting each would do, and the
 * deletions (tombstone versions; their breakers re-resolved).
 */
final class PolicyPrune {
  /** The {@code source} of a pruned policy's row: it comes from no file. */
  static final String SOURCE = "prune: in no file";

  /** No prune (apply without --prune): nothing to delete. */
  static final PolicyPrune NONE = new PolicyPrune(List.of(), List.of());

  private final List<PolicyPreview> previews;
  private final List<PolicyId> alreadyDeleted;

  private PolicyPrune(List<PolicyPreview> previews, List<PolicyId> alreadyDeleted) {
    this.previews = List.copyOf(previews);
    this.alreadyDeleted = List.copyOf(alreadyDeleted);
  }

  /**
   * Reads what a prune of {@code set} would delete, writing nothing.
   *
   * @param pins the --expect pins: one naming no file's policy must name a policy this prune
   *     deletes, at its newest version
   * @throws CliException usage when the files hold no policy (a prune would delete every one), or a
   *     pin names a policy neither a file holds nor the prune deletes
   * @throws PolicyConflictException when a pinned policy to delete moved
   */
  static PolicyPrune plan(PolicyControl control, PolicySet set, Map<PolicyId, Long> pins) {
    if (set.documents().isEmpty()) {
      throw CliException.usage(
          "--prune with files that hold no policy would delete every policy; nothing was applied");
    }
    Set<PolicyId> keep =
        set.documents().stream().map(PolicyDocument::id).collect(Collectors.toSet());
    List<PolicyPreview> previews = new ArrayList<>();
    List<PolicyId> deleted = new ArrayList<>();
    for (Map.Entry<PolicyId, PolicyVersion> e : control.store().allLatest().entrySet()) {
      if (keep.contains(e.getKey())) {
        continue;
      }
      if (e.getValue().deleted()) {
        deleted.add(e.getKey());
      } else {
        previews.add(control.previewDelete(e.getKey()));
      }
    }
    for (Map.Entry<PolicyId, Long> pin : pins.entrySet()) {
      if (keep.contains(pin.getKey())) {
        continue;
      }
      PolicyPreview p =
          previews.stream()
              .filter(d -> d.policyId().equals(pin.getKey()))
              .findFirst()
              .orElseThrow(
                  () ->
                      CliException.usage(
                          "--expect names policy "
                              + pin.getKey()
                              + ", which no file holds and --prune does not delete"));
      if (p.latestVersion() != pin.getValue()) {
        throw new PolicyConflictException(p.policyId(), pin.getValue(), p.latestVersion());
      }
    }
    return new PolicyPrune(previews, deleted);
  }

  /** The deletions, in policy id order. */
  List<PolicyPreview> previews() {
    return previews;
  }

  /** The ids to delete, as the confirmation lists them. */
  List<String> targets() {
    return previews.stream().map(p -> p.policyId() + " (delete)").toList();
  }

  /** The dry run's rows: {@code WOULD_DELETE} per policy. */
  List<PolicyChange> dryRows() {
    return previews.stream().map(p -> row(p, "WOULD_DELETE", true)).toList();
  }

  /** Rows for deletions not made after a conflict ({@code NOT_ATTEMPTED}). */
  List<PolicyChange> notAttempted() {
    return previews.stream().map(p -> row(p, "NOT_ATTEMPTED", false)).toList();
  }

  /**
   * Deletes each policy, pinned to the version the preview read; at a conflict the rest is not
   * attempted and the conflict is thrown after {@code rows} got every row. Then re-resolves the
   * breakers of policies deleted before (absent from the files too), so a prune whose warming
   * failed completes when run again; their reports come back, their rows are not printed.
   */
  List<WarmReport> delete(
      PolicyControl control, Supplier<ApplyOptions> options, List<PolicyChange> rows) {
    PolicyConflictException conflict = null;
    for (PolicyPreview p : previews) {
      if (conflict != null) {
        rows.add(row(p, "NOT_ATTEMPTED", false));
        continue;
      }
      try {
        rows.add(
            PolicyChangeRows.result(
                SOURCE, control.delete(p.policyId(), options.get().expecting(p.latestVersion()))));
      } catch (PolicyConflictException e) {
        conflict = e;
        rows.add(row(p, "CONFLICT", false));
      }
    }
    if (conflict != null) {
      throw conflict;
    }
    List<WarmReport> repaired = new ArrayList<>();
    for (PolicyId id : alreadyDeleted) {
      repaired.addAll(control.delete(id, options.get()).warmed());
    }
    return repaired;
  }

  private static PolicyChange row(PolicyPreview p, String outcome, boolean dryRun) {
    return new PolicyChange(
        p.policyId().toString(),
        SOURCE,
        outcome,
        p.latestVersion(),
        dryRun ? 0 : p.latestVersion(),
        null,
        PolicyViews.changes(p.changes()),
        "",
        dryRun,
        List.of());
  }
}
