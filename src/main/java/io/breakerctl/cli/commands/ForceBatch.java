package io.breakerctl.cli.commands;

import io.breakerctl.cli.Interruption;
import io.breakerctl.cli.commands.ForceCommand.OverrideView;
import io.breakerctl.cli.commands.ForceCommand.Result;
import io.breakerctl.cli.output.Printable;
import io.breakerctl.cli.output.Style;
import io.breakerctl.runtime.control.override.BreakerOverrides;
import io.breakerctl.runtime.control.override.OverrideAction;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.LostAnswerException;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.StoreException;
import io.breakerctl.runtime.store.StorePermissionException;
import io.breakerctl.runtime.store.StoreUnavailableException;
import io.breakerctl.runtime.store.WriteOutcome;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Applies one override request to many breakers, one at a time, and keeps a row for every breaker
 * whatever happens: a failure on one breaker's data fails that breaker only; Redis unavailable, a
 * permission refused or a signal stop the batch, and the rest are not attempted. One audited
 * overrides instance serves the whole batch, so once MongoDB has failed the rest skip it at once.
 */
final class ForceBatch {
  private final BreakerOverrides overrides;
  private final OverrideRequest request;
  private final PrintWriter err;
  private final List<OverrideView> rows = new ArrayList<>();
  private StoreException failure;
  private StoreException lost;
  private boolean warned;

  ForceBatch(BreakerOverrides overrides, OverrideRequest request, PrintWriter err) {
    this.overrides = overrides;
    this.request = request;
    this.err = err;
  }

  /** Applies the request to every breaker of {@code current} (snapshots read before). */
  List<OverrideView> apply(Map<BreakerId, BreakerSnapshot> current) {
    boolean stopped = false;
    for (Map.Entry<BreakerId, BreakerSnapshot> e : current.entrySet()) {
      BreakerId id = e.getKey();
      String before = stateOf(e.getValue());
      if (stopped || Interruption.requested()) {
        rows.add(row(id, before, "-", "NOT_ATTEMPTED", null, "", Result.NOT_ATTEMPTED, null));
        continue;
      }
      if (unchanged(e.getValue(), request)) {
        rows.add(
            row(id, before, before, "UNCHANGED", until(e.getValue()), "", Result.UNCHANGED, null));
        continue;
      }
      try {
        OverrideAction a = overrides.apply(id, request);
        if (a.result().changed() && !a.auditStored()) {
          warnAudit(a);
        }
        long until = a.result().untilMillis();
        boolean readBack = !a.lostAnswer().isEmpty();
        if (readBack) {
          noteLanded(id, a);
          // the store closed its connection after the read-back: the rest are not attempted
          lost = new StoreUnavailableException(a.lostAnswer(), null);
          stopped = true;
        }
        rows.add(
            new OverrideView(
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
                null));
      } catch (LostAnswerException ex) {
        // the answer was lost and read back: the row says what Redis showed
        String o = ex.outcome().name();
        rows.add(
            new OverrideView(
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
                null));
        failure = ex;
        stopped = true;
      } catch (StoreException ex) {
        rows.add(row(id, before, "-", "FAILED", null, "", Result.FAILED, ex.getMessage()));
        if (failure == null || ex instanceof StoreUnavailableException) {
          failure = ex;
        }
        stopped = ex instanceof StoreUnavailableException || ex instanceof StorePermissionException;
      } catch (RuntimeException ex) {
        if (!Interruption.requested()) {
          throw ex;
        }
        // a wait the signal interrupted: whether this one was applied is unknown
        rows.add(row(id, before, "-", "FAILED", null, "", Result.FAILED, "interrupted"));
        stopped = true;
      }
    }
    return rows;
  }

  /**
   * The failure that decides the exit code (Redis unavailable first; a lost answer that was read
   * back decides it), else null; after a change that landed though its answer was lost, the lost
   * connection when breakers were left not attempted.
   */
  StoreException failure() {
    if (failure == null && lost != null && count(Result.NOT_ATTEMPTED) > 0) {
      return lost;
    }
    return failure;
  }

  /** How many rows have this result. */
  long count(Result r) {
    return rows.stream().filter(v -> r.code().equals(v.result())).count();
  }

  /**
   * Whether the breaker already is as asked: the same override live, set by the same actor with the
   * same reason (a re-run after a partial change leaves it, expiry and all).
   */
  static boolean unchanged(BreakerSnapshot s, OverrideRequest request) {
    if (request.kind() == OverrideKind.CLEAR || s.problem().isPresent() || !s.exists()) {
      return false;
    }
    return s.effectiveState() == request.kind().state()
        && s.overrideDetail()
            .filter(o -> o.actor().equals(request.actor()) && o.reason().equals(request.reason()))
            .isPresent();
  }

  /** The live override's expiry in a snapshot, RFC 3339, else null. */
  static String until(BreakerSnapshot s) {
    long until = s.overrideDetail().map(BreakerSnapshot.OverrideDetail::untilMillis).orElse(0L);
    return until > 0 ? Style.rfc3339(until) : null;
  }

  /** The state in force in a snapshot, "-" when it cannot be read. */
  static String stateOf(BreakerSnapshot s) {
    return s.problem().isPresent() ? "-" : s.effectiveState().code();
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
