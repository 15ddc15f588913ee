package io.breakerctl.runtime.control.replay;

import io.breakerctl.runtime.control.timeline.TimelineEntries;
import io.breakerctl.runtime.control.timeline.TimelineKey;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;
import io.breakerctl.runtime.store.BreakerEvent;
import org.bson.Document;

/**
 * The parts of one transition event that replay needs. {@code actor}, {@code reason} and {@code
 * correlationId} are the override's for a restore that restored one (its own actor is the
 * restorer), else the event's.
 */
record ReplayStep(
    String breakerId,
    TimelineKey key,
    State to,
    TransitionCause cause,
    long until,
    State stored,
    long openUntil,
    long openMillis,
    State override,
    long overrideUntil,
    String actor,
    String reason,
    String correlationId,
    long generation) {

  /**
   * Whether the step sets the machine state: every cause but setting or updating an override, and
   * but a re-assertion of an override (REASSERTED to an override state puts the override back over
   * the machine state Redis kept; read as a machine state, restore was asked to store FORCED_OPEN).
   */
  boolean setsMachine() {
    return cause != TransitionCause.OVERRIDE_SET
        && cause != TransitionCause.OVERRIDE_UPDATED
        && !(cause == TransitionCause.REASSERTED && to.isOverride());
  }

  /** Whether the step sets the open window's end (a trip, a re-asserted trip, a restore). */
  boolean setsOpenWindow() {
    return cause == TransitionCause.RESTORED
        || (setsMachine() && to == State.OPEN && (isTrip() || cause == TransitionCause.REASSERTED));
  }

  private boolean isTrip() {
    return cause == TransitionCause.FAILURE_THRESHOLD
        || cause == TransitionCause.FAILURE_RATE
        || cause == TransitionCause.PROBE_FAILED
        || cause == TransitionCause.PROBE_TIMED_OUT
        || cause == TransitionCause.BACKOFF_REQUESTED;
  }

  /** The machine state after the step (for steps that set it). */
  State machineState() {
    return cause == TransitionCause.RESTORED ? stored : to;
  }

  /** The open window's end the step set. */
  long openWindowEnd() {
    return cause == TransitionCause.RESTORED ? openUntil : until;
  }

  String epoch() {
    return key.epoch();
  }

  static ReplayStep of(BreakerEvent e) {
    return of(e.id().toString(), e.epoch(), e.streamId(), e);
  }

  /** From a history document (it stores the event's fields as the stream held them). */
  static ReplayStep of(Document d) {
    return of(
        d.getString("breakerId"),
        d.getString("epoch"),
        d.getString("streamId"),
        TimelineEntries.eventOf(d));
  }

  private static ReplayStep of(String breakerId, String epoch, String streamId, BreakerEvent e) {
    String id = breakerId + "|" + epoch + "|" + streamId;
    boolean restored = e.cause() == TransitionCause.RESTORED;
    return new ReplayStep(
        breakerId,
        new TimelineKey(e.atMillis(), epoch, streamId, id),
        e.to(),
        e.cause(),
        e.until(),
        e.stored().orElse(State.CLOSED),
        e.openUntil(),
        e.openMillis().orElse(0),
        e.override().orElse(null),
        e.overrideUntil(),
        // a restore's own actor is not the override's: the override's travels in override* fields
        restored ? e.overrideActor() : e.actor(),
        restored ? e.overrideReason() : e.reason(),
        restored ? e.overrideCorrelationId() : e.correlationId(),
        e.generation());
  }
}
