package io.breakerctl.cli.commands;

import io.breakerctl.cli.output.Documents;
import io.breakerctl.cli.output.OutputFormat;
import io.breakerctl.cli.output.PolicyViews.Change;
import io.breakerctl.cli.output.PolicyViews.PolicyChange;
import io.breakerctl.cli.output.Printable;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/** Prints policy changes: a field-level diff per policy in text, else one document. */
final class PolicyPrinter {
  private PolicyPrinter() {}

  static void changes(OutputFormat format, List<PolicyChange> rows, PrintWriter out) {
    changes(format, rows, out, false);
  }

  /**
   * The changes; with {@code pruned} (apply --prune) the summary always counts the deletions, so a
   * prune that deletes nothing says so.
   */
  static void changes(
      OutputFormat format, List<PolicyChange> rows, PrintWriter out, boolean pruned) {
    if (!format.isTable()) {
      try (Documents.ListWriter w = Documents.list(format, "PolicyChangeList", out)) {
        rows.forEach(r -> w.item(r, r.policyId()));
      }
      return;
    }
    int created = 0;
    int unchanged = 0;
    int deleted = 0;
    for (PolicyChange r : rows) {
      out.println(Printable.escape(headline(r)));
      fields(r.changes(), out);
      if ("CREATED".equals(r.outcome()) || "WOULD_CHANGE".equals(r.outcome())) {
        created++;
      } else if (r.outcome().contains("UNCHANGED") || r.outcome().equals("WOULD_NOT_CHANGE")) {
        unchanged++;
      } else if ("DELETED".equals(r.outcome()) || "WOULD_DELETE".equals(r.outcome())) {
        deleted++;
      }
    }
    boolean dry = !rows.isEmpty() && rows.get(0).dryRun();
    out.println(
        (dry ? created + " would change, " : created + " changed, ")
            + unchanged
            + " unchanged"
            + (pruned || deleted > 0
                ? ", " + deleted + (dry ? " would be deleted" : " deleted")
                : "")
            + (rows.size() > created + unchanged + deleted
                ? ", " + (rows.size() - created - unchanged - deleted) + " not attempted"
                : "")
            + " of "
            + rows.size()
            + " polic"
            + (rows.size() == 1 ? "y" : "ies")
            + (dry ? " (dry run: nothing written)" : ""));
    out.flush();
  }

  private static String headline(PolicyChange r) {
    String from = r.fromVersion() == 0 ? "new" : "v" + r.fromVersion();
    String what =
        switch (r.outcome()) {
          case "CREATED" -> from + " -> v" + r.version();
          case "UNCHANGED" -> "unchanged at v" + r.version();
          case "WOULD_CHANGE" -> from + " -> v" + (r.fromVersion() + 1) + " (would change)";
          case "WOULD_NOT_CHANGE" -> "unchanged at v" + r.fromVersion() + " (dry run)";
          case "DELETED" -> from + " -> v" + r.version() + " (deleted)";
          case "WOULD_DELETE" -> from + " -> v" + (r.fromVersion() + 1) + " (would delete)";
          default -> r.outcome().toLowerCase(Locale.ROOT).replace('_', ' ');
        };
    return "policy "
        + r.policyId()
        + ": "
        + what
        + (r.expiresAt() == null ? "" : ", temporary until " + r.expiresAt())
        + (r.source().isEmpty() ? "" : " [" + r.source() + "]");
  }

  /** One line per field: {@code ~ spec.failureThreshold: 5 -> 10} ({@code +} for a new one). */
  static void fields(List<Change> changes, PrintWriter out) {
    for (Change c : changes) {
      String mark = c.before() == null ? "+" : c.after() == null ? "-" : "~";
      out.println(
          Printable.escape(
              "  "
                  + mark
                  + " "
                  + c.path()
                  + ": "
                  + (c.before() == null ? "(none)" : c.before())
                  + " -> "
                  + (c.after() == null ? "(none)" : c.after())));
    }
  }
}
