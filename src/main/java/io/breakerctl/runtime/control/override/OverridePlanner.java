package io.breakerctl.runtime.control.override;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideOutcome;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.LostAnswerException;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.OverrideResult;
import io.breakerctl.runtime.store.StoreException;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.runtime.store.StorePermissionException;
import io.breakerctl.runtime.store.StoreUnavailableException;
import io.breakerctl.runtime.store.Written;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * Plans and applies an override over many breakers through three seams (read a breaker, run the
 * override script, audit a change), so the decisions are the same on Redis ({@link
 * BreakerOverrides}) and on the in-process store: the plan comes from one read of every breaker;
 * applying it asks the script to keep an override already held as asked, so whether a breaker is
 * unchanged or set comes from the script's own answer, and only a change is audited.
 */
final class OverridePlanner {

  /** Reads a breaker's snapshot. */
  interface Reader {
    CompletableFuture<BreakerSnapshot> read(BreakerId id);
  }

  /** Runs the override script (the request carries its correlation id). */
  interface Writer {
    Written<OverrideResult> write(BreakerId id, OverrideRequest request);
  }

  /** Audits a change the script made. */
  interface Auditor {
    OverrideAction audit(BreakerId id, OverrideRequest request, Written<OverrideResult> written);
  }

  private final Reader reader;
  private final Writer writer;
  private final Auditor auditor;

  OverridePlanner(Reader reader, Writer writer, Auditor auditor) {
    this.reader = reader;
    this.writer = writer;
    this.auditor = auditor;
  }

  /**
   * The plan of {@code request} over {@code selected}: every read is sent before any is awaited.
   *
   * @throws StoreException when a breaker's state cannot be read (nothing is planned)
   */
  static OverridePlan plan(Reader reader, List<BreakerId> selected, OverrideRequest request) {
    List<CompletableFuture<BreakerSnapshot>> reads = new ArrayList<>(selected.size());
    selected.forEach(id -> reads.add(reader.read(id)));
    List<BreakerSnapshot> found = new ArrayList<>(selected.size());
    for (CompletableFuture<BreakerSnapshot> r : reads) {
      found.add(StoreFutures.await(r));
    }
    return OverridePlan.of(request, found);
  }

  /**
   * Runs {@code request} on one breaker (a correlation id is generated when it has none) and audits
   * it when the script changed something; a script that changed nothing is not audited, and one
   * that kept the override held ({@link OverrideOutcome#UNCHANGED}) links no correlation id.
   */
  OverrideAction act(BreakerId id, OverrideRequest request) {
    String corr =
        request.correlationId().isEmpty() ? UUID.randomUUID().toString() : request.correlationId();
    OverrideRequest r = request.withCorrelationId(corr);
    Written<OverrideResult> written = writer.write(id, r);
    OverrideResult result = written.value();
    if (!result.changed()) {
      return new OverrideAction(
          result,
          result.outcome() == OverrideOutcome.UNCHANGED ? "" : corr,
          false,
          "nothing changed, nothing audited",
          written.lostAnswer());
    }
    return auditor.audit(id, r, written);
  }

  /**
   * Applies {@code plan}, one breaker at a time, keeping a step for every entry whatever happens: a
   * failure on one breaker's data fails that breaker only; the store unavailable, a permission
   * refused, a lost answer or {@code stop} end the batch, and the rest are not attempted.
   */
  AppliedOverrides apply(OverridePlan plan, BooleanSupplier stop) {
    OverrideRequest request = plan.request().keeping();
    List<OverrideStep> steps = new ArrayList<>(plan.entries().size());
    StoreException failure = null;
    StoreException lost = null;
    boolean stopped = false;
    for (OverridePlan.Entry e : plan.entries()) {
      if (stopped || stop.getAsBoolean()) {
        steps.add(OverrideStep.notAttempted(e));
        continue;
      }
      try {
        OverrideAction a = act(e.id(), request);
        if (!a.lostAnswer().isEmpty()) {
          // the store closed its connection after the read-back: the rest are not attempted
          lost = new StoreUnavailableException(a.lostAnswer(), null);
          stopped = true;
        }
        steps.add(OverrideStep.done(e, a));
      } catch (LostAnswerException ex) {
        OverrideStep kept = keptAll(e, request, ex);
        if (kept != null) {
          steps.add(kept);
          lost = ex;
        } else {
          steps.add(OverrideStep.failed(e, ex, ex.getMessage()));
          failure = ex;
        }
        stopped = true;
      } catch (StoreException ex) {
        steps.add(OverrideStep.failed(e, ex, ex.getMessage()));
        if (failure == null || ex instanceof StoreUnavailableException) {
          failure = ex;
        }
        stopped = ex instanceof StoreUnavailableException || ex instanceof StorePermissionException;
      } catch (RuntimeException ex) {
        if (!stop.getAsBoolean()) {
          throw ex;
        }
        // a wait the stop request interrupted: whether this one was applied is unknown
        steps.add(OverrideStep.failed(e, null, "interrupted"));
        stopped = true;
      }
    }
    boolean notAttempted =
        steps.stream().anyMatch(s -> s.status() == OverrideStep.Status.NOT_ATTEMPTED);
    return new AppliedOverrides(
        steps, failure == null && lost != null && notAttempted ? lost : failure);
  }

  /**
   * The step of a breaker the plan found holding the override as asked when the script's answer was
   * lost and the read-back found no write by its correlation id: a request that keeps a held
   * override writes nothing, so the read-back cannot tell "kept" from "never ran". A fresh read
   * that still finds the override held as asked says the breaker is unchanged either way (nothing
   * written, nothing audited); anything else, or a read that fails, leaves the step failed (null).
   */
  private OverrideStep keptAll(
      OverridePlan.Entry e, OverrideRequest request, LostAnswerException lost) {
    if (e.decision() != OverridePlan.Decision.UNCHANGED) {
      return null;
    }
    BreakerSnapshot now;
    try {
      now = StoreFutures.await(reader.read(e.id()));
    } catch (StoreException ex) {
      return null;
    }
    if (OverridePlan.decide(now, request) != OverridePlan.Decision.UNCHANGED) {
      return null;
    }
    State held = now.effectiveState();
    OverrideResult result =
        new OverrideResult(
            false,
            held,
            OverrideOutcome.UNCHANGED,
            "",
            Long.toString(now.generation()),
            now.epoch(),
            held,
            now.overrideDetail().map(BreakerSnapshot.OverrideDetail::untilMillis).orElse(0L));
    return OverrideStep.done(
        e,
        new OverrideAction(
            result, "", false, "nothing changed, nothing audited", lost.getMessage()));
  }
}
