package io.breakerctl.runtime.control.override;

import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.ControlException;
import io.breakerctl.runtime.control.ControlUnavailableException;
import io.breakerctl.runtime.control.TransitionRef;
import io.breakerctl.runtime.control.audit.AuditAction;
import io.breakerctl.runtime.control.audit.AuditLog;
import io.breakerctl.runtime.control.audit.AuditRecord;
import io.breakerctl.runtime.control.audit.AuditSpool;
import io.breakerctl.runtime.control.history.HistoryForwarder;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.store.FleetStore;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.OverrideResult;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.runtime.store.Written;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * Audited overrides (force, clear): the action applies in Redis first, then its audit record is
 * stored in MongoDB, and its transition too (one forwarder pass for the breaker), so it is durable
 * when the command returns. When MongoDB is unavailable the action still stands, and its audit
 * rides in the breaker's event stream (the override event carries actor, reason, expiry and
 * correlation id) until the {@link HistoryForwarder} stores it under the same correlation id. Once
 * MongoDB has been found unavailable, later actions of the same instance (a batch over many
 * breakers) skip the audit attempt instead of waiting the timeout again. With an {@link AuditSpool}
 * ({@link #spoolingTo}) each such record is also kept on local disk and delivered once MongoDB
 * answers (after the next audit it takes, or {@code history sync}), so an evicted or flushed stream
 * cannot erase who forced what.
 */
public final class BreakerOverrides {

  private final FleetStore redis;
  private final AuditLog audit;
  private final Clock clock;
  private volatile String mongoDown;
  private final ControlDatabase db;
  private volatile HistoryForwarder forwarder;
  private volatile AuditSpool spool;
  private final OverridePlanner planner;

  /** Overrides on {@code redis}, audited in {@code db}. */
  public BreakerOverrides(FleetStore redis, ControlDatabase db, Clock clock) {
    this.redis = redis;
    this.audit = new AuditLog(db);
    this.db = db;
    this.clock = clock;
    this.planner = new OverridePlanner(redis::state, this::write, this::audit);
  }

  /** Keeps the audit records MongoDB cannot take in {@code spool}; returns this. */
  public BreakerOverrides spoolingTo(AuditSpool spool) {
    this.spool = spool;
    return this;
  }

  /**
   * Applies an override (a correlation id is generated when the request has none) and audits it.
   *
   * <p>When the script's answer is lost (a timeout, a failed connection), the store reads back by
   * the correlation id whether it landed ({@link StoreFutures#await}): landed, the action goes on
   * as if answered ({@link OverrideAction#lostAnswer} says what was lost).
   *
   * @throws io.breakerctl.runtime.store.StoreException when Redis refuses or is unavailable
   *     (nothing was done)
   * @throws io.breakerctl.runtime.store.LostAnswerException when the answer was lost and the
   *     override did not land, or Redis did not answer the read-back either
   */
  public OverrideAction apply(BreakerId id, OverrideRequest request) {
    return planner.act(id, request);
  }

  /**
   * The plan of {@code request} over the {@code selected} breakers, from one read of them all
   * (every snapshot requested before any is awaited): unchanged, would set, update or clear, or
   * would fail on keys that cannot be read.
   *
   * @throws io.breakerctl.runtime.store.StoreException when a breaker's state cannot be read
   *     (nothing was changed)
   */
  public OverridePlan plan(List<BreakerId> selected, OverrideRequest request) {
    return OverridePlan.read(redis, selected, request);
  }

  /**
   * Applies {@code plan}, one breaker at a time, each as {@link #apply(BreakerId, OverrideRequest)}
   * with the request keeping an override the same actor already holds with the same reason: the
   * script's own answer says whether the breaker was set or left unchanged (nothing written,
   * nothing audited). A failure on one breaker's data fails that breaker only; Redis unavailable, a
   * permission refused, a lost answer or {@code stop} end the batch, and the rest are not
   * attempted.
   *
   * @param stop asked before each breaker (and after a wait that failed): true ends the batch
   */
  public AppliedOverrides apply(OverridePlan plan, BooleanSupplier stop) {
    return planner.apply(plan, stop);
  }

  private Written<OverrideResult> write(BreakerId id, OverrideRequest r) {
    return redis.awaitWrite(id, r.correlationId(), redis.override(id, r), OverrideResult::landed);
  }

  /** Audits the change the script made ({@code r} carries the correlation id). */
  private OverrideAction audit(BreakerId id, OverrideRequest r, Written<OverrideResult> written) {
    String corr = r.correlationId();
    OverrideResult result = written.value();
    String lost = written.lostAnswer();
    // Redis time, as the script ran (its event's stream id is "<ms>-<seq>"): racing operators'
    // records then order as the scripts applied them, whatever their clocks say (2 of 40 racing
    // overrides were audited out of order with the CLI's clock), and the forwarder, which stores
    // an audit that rode in the stream, stamps it the same way
    Instant at = TransitionRef.redisTime(result.eventId()).orElseGet(clock::instant);
    Optional<Instant> expires =
        r.duration().isZero()
            ? Optional.empty()
            : Optional.of(
                result.untilMillis() > 0
                    ? Instant.ofEpochMilli(result.untilMillis())
                    : at.plus(r.duration()));
    AuditRecord record =
        new AuditRecord(
            corr,
            r.kind() == OverrideKind.CLEAR ? AuditAction.CLEAR : AuditAction.FORCE,
            id.toString(),
            r.actor(),
            r.reason(),
            at,
            expires,
            Map.of("state", result.previous().code()),
            Map.of("state", result.state().code(), "override", r.kind().name()),
            result.eventId().isEmpty()
                ? Optional.empty()
                : Optional.of(new TransitionRef(id, result.epoch(), result.eventId())));
    String down = mongoDown;
    if (down != null) {
      // MongoDB already failed in this batch: do not wait the timeout again for every breaker
      return new OverrideAction(result, corr, false, spooled(record, down), lost);
    }
    try {
      audit.record(record);
      forwardNow(id, r.actor());
      deliverSpooled();
      return new OverrideAction(result, corr, true, "", lost);
    } catch (ControlUnavailableException e) {
      mongoDown = e.getMessage();
      return new OverrideAction(result, corr, false, spooled(record, e.getMessage()), lost);
    } catch (ControlException e) {
      return new OverrideAction(result, corr, false, spooled(record, e.getMessage()), lost);
    }
  }

  /** Keeps {@code record} in the spool, if any; the audit error, saying where it is kept. */
  private String spooled(AuditRecord record, String error) {
    AuditSpool s = spool;
    if (s == null) {
      return error;
    }
    try {
      s.write(record);
      return error + "; kept in " + s.dir() + " until MongoDB takes it";
    } catch (java.io.UncheckedIOException e) {
      return error + "; and it could not be kept locally: " + e.getMessage();
    }
  }

  /**
   * Delivers the spooled audit records now that MongoDB took one (best effort: what it does not
   * take stays spooled for the next time).
   */
  private void deliverSpooled() {
    AuditSpool s = spool;
    if (s != null) {
      try {
        s.deliver(audit);
      } catch (ControlException | java.io.UncheckedIOException e) {
        // stays spooled; history sync delivers it too and says what failed
      }
    }
  }

  /**
   * Stores the override's transition in MongoDB's history now, as one pass of the history forwarder
   * for this breaker would (idempotent next to the fleet's elected forwarder): a {@code force} is
   * then durable when it returns, so {@code replay restore} after Redis lost its data puts it back
   * whether or not a forwarder pass ran in between (it found nothing to restore before). A failure
   * leaves it to the next pass, as before: the override stands in Redis and its audit is stored.
   */
  private void forwardNow(BreakerId id, String actor) {
    try {
      HistoryForwarder f = forwarder;
      if (f == null) {
        f = new HistoryForwarder(db, redis, actor, clock);
        forwarder = f;
      }
      f.syncBreaker(id);
    } catch (RuntimeException e) {
      // the elected forwarder's next pass stores it; nothing an operator must act on now
    }
  }
}
