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
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

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

  /** Overrides on {@code redis}, audited in {@code db}. */
  public BreakerOverrides(FleetStore redis, ControlDatabase db, Clock clock) {
    this.redis = redis;
    this.audit = new AuditLog(db);
    this.db = db;
    this.clock = clock;
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
    String corr =
        request.correlationId().isEmpty() ? UUID.randomUUID().toString() : request.correlationId();
    OverrideRequest r =
        new OverrideRequest(
            request.kind(), request.actor(), request.reason(), request.duration(), corr);
    Written<OverrideResult> written =
        redis.awaitWrite(id, corr, redis.override(id, r), OverrideResult::landed);
    OverrideResult result = written.value();
    String lost = written.lostAnswer();
    if (!result.changed()) {
      return new OverrideAction(result, corr, false, "nothing changed, nothing audited", lost);
    }
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
