package io.breakerctl.cli.commands;

import io.breakerctl.cli.Interruption;
import io.breakerctl.cli.commands.ForceCommand.OverrideView;
import io.breakerctl.cli.commands.ForceCommand.Result;
import io.breakerctl.cli.output.Printable;
import io.breakerctl.cli.output.Style;
import io.breakerctl.runtime.control.override.AppliedOverrides;
import io.breakerctl.runtime.control.override.BreakerOverrides;
import io.breakerctl.runtime.control.override.OverrideAction;
import io.breakerctl.runtime.control.override.OverridePlan;
import io.breakerctl.runtime.control.override.OverrideStep;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.LostAnswerException;
import io.breakerctl.runtime.store.StoreException;
import io.breakerctl.runtime.store.WriteOutcome;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * Prints what applying an override plan did ({@link BreakerOverrides#apply(OverridePlan,
 * java.util.function.BooleanSupplier)}, stopped by a signal): a row for every breaker whatever
 * happened, the note for a change that landed though its answer was lost, and once the warning that
 * MongoDB could not take the audit.
 */
final class ForceBatch {
  private final BreakerOverrides overrides;
  private final PrintWriter err;
  private final List<OverrideView> rows = new ArrayList<>();
  private AppliedOverrides applied;
  private boolean warned;

  ForceBatch(BreakerOverrides overrides, PrintWriter err) {
    this.overrides = overrides;
    this.err = err;
  }

  /** Applies {@code plan}; a row per breaker, in the plan's order. */
  List<OverrideView> apply(OverridePlan plan) {
    applied = overrides.apply(plan, Interruption::requested);
    applied.steps().forEach(s -> rows.add(row(s)));
    return rows;
  }

  /**
   * The failure that decides the exit code (Redis unavailable first; a lost answer that was read
   * back decides it), else null; after a change that landed though its answer was lost, the lost
   * connection when breakers were left not attempted.
   */
  StoreException failure() {
    return applied.failure();
  }

  /** How many rows have this result. */
  long count(Result r) {
    return rows.stream().filter(v -> r.code().equals(v.result())).count();
  }

  private OverrideView row(OverrideStep step) {
    BreakerId id = step.entry().id();
    String before = step.entry().before().map(State::code).orElse("-");
    if (step.status() == OverrideStep.Status.NOT_ATTEMPTED) {
      return row(id, before, "-", "NOT_ATTEMPTED", null, "", Result.NOT_ATTEMPTED, null);
    }
    if (step.failure() instanceof LostAnswerException ex) {
      // the answer was lost and read back: the row says what Redis showed
      String o = ex.outcome().name();
      return new OverrideView(
          id.toString(),
          before,
          "-",
          o,
          null,
          ex.correlationId(),
          false,
          false,
          Result.FAILED.code(),
          ex.getMessage(),
          o,
          null);
    }
    if (step.status() == OverrideStep.Status.FAILED) {
      return row(id, before, "-", "FAILED", null, "", Result.FAILED, step.error());
    }
    OverrideAction a = step.action();
    if (a.result().changed() && !a.auditStored()) {
      warnAudit(a);
    }
    long until = a.result().untilMillis();
    boolean readBack = !a.lostAnswer().isEmpty();
    if (readBack) {
      noteLanded(id, a);
    }
    return new OverrideView(
        id.toString(),
        a.result().previous().code(),
        a.result().state().code(),
        a.result().outcome().code(),
        until > 0 ? Style.rfc3339(until) : null,
        a.correlationId(),
        a.auditStored(),
        false,
        (a.result().changed() ? Result.APPLIED : Result.UNCHANGED).code(),
        null,
        readBack ? WriteOutcome.APPLIED.name() : null,
        null);
  }

  private static OverrideView row(
      BreakerId id,
      String before,
      String after,
      String outcome,
      String until,
      String corr,
      Result result,
      String error) {
    return new OverrideView(
        id.toString(),
        before,
        after,
        outcome,
        until,
        corr,
        false,
        false,
        result.code(),
        error,
        null,
        null);
  }

  private void noteLanded(BreakerId id, OverrideAction a) {
    err.println(
        "note: "
            + id
            + ": the connection to Redis failed ("
            + Printable.escape(a.lostAnswer())
            + "), but the change landed: Redis, read back, holds it (correlation id "
            + a.correlationId()
            + ")");
    err.flush();
  }

  private void warnAudit(OverrideAction a) {
    if (warned) {
      return;
    }
    warned = true;
    err.println(
        "warning: the overrides are applied, but MongoDB could not store their audit records ("
            + a.auditError()
            + "); each audit rides in its breaker's event stream and in this CLI's local audit"
            + " spool until MongoDB takes it (the fleet's history forwarder, this CLI's next"
            + " audited action, or `breakerctl history sync`; auditStored false, correlation ids"
            + " in the output)");
    err.flush();
  }
}
