package io.breakerctl.cli.commands;

import io.breakerctl.cli.ExitCode;
import io.breakerctl.cli.output.PolicyViews;
import io.breakerctl.cli.output.PolicyViews.PolicyChange;
import io.breakerctl.runtime.control.policy.ApplyResult;
import io.breakerctl.runtime.control.policy.PolicyDocument;
import io.breakerctl.runtime.control.policy.PolicyPreview;
import io.breakerctl.runtime.control.policy.WarmReport;
import java.io.PrintWriter;
import java.util.List;

/** The rows of a {@code PolicyChangeList} that apply, rollback and prune print, and their exit. */
final class PolicyChangeRows {
  private PolicyChangeRows() {}

  /** Exit 6 when warming failed for some breaker (the versions are recorded; apply again). */
  static int warmCode(List<PolicyChange> rows, PrintWriter err) {
    return warmCode(rows, List.of(), err);
  }

  static int warmCode(List<PolicyChange> rows, List<WarmReport> more, PrintWriter err) {
    long failed =
        rows.stream()
                .flatMap(r -> r.warmed().stream())
                .filter(w -> "FAILED".equals(w.outcome()))
                .count()
            + more.stream().filter(w -> !w.ok()).count();
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
    boolean created = r.outcome() != ApplyResult.Outcome.UNCHANGED; // a version was made
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

  static PolicyChange notApplied(PolicyDocument d, PolicyPreview p, String outcome) {
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
