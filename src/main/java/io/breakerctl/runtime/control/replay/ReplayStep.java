package io.breakerctl.runtime.control.replay;

import io.breakerctl.runtime.control.timeline.TimelineEntries;
import io.breakerctl.runtime.control.timeline.TimelineKey;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;
import io.breakerctl.runtime.store.BreakerEvent;
import java.util.Map;
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

  /** Whether the step sets the machine state (every cause but setting or updating an override). */
  boolean setsMachine() {
    return cause != TransitionCause.OVERRIDE_SET && cause != TransitionCause.OVERRIDE_UPDATED;
  }

  /** Whether the step sets the open window's end. */
  boolean setsOpenWindow() {
    return cause == TransitionCause.RESTORED || (setsMachine() && to == State.OPEN && isTrip());
  }

  private boolean isTrip() {
    return cause == TransitionCause.FAILURE_THRESHOLD
        || cause == TransitionCause.FAILURE_RATE
        || cause == TransitionCause.PROBE_FAILED
        || cause == TransitionCause.PROBE_TIMED_OUT;
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
    Map<String, String> f = e.fields();
    return of(e.id().toString(), e.epoch(), e.streamId(), f::get);
  }

  /** From a history document. */
  static ReplayStep of(Document d) {
    Document f = d.get("fields", Document.class);
    Document fields = f == null ? new Document() : f;
    return of(
        d.getString("breakerId"),
        d.getString("epoch"),
        d.getString("streamId"),
        k -> {
          Object v = fields.get(k);
          return v == null ? null : v.toString();
        });
  }

  private static ReplayStep of(
      String breakerId,
      String epoch,
      String streamId,
      java.util.function.Function<String, String> f) {
    String id = breakerId + "|" + epoch + "|" + streamId;
    String override = f.apply("override");
    String stored = f.apply("stored");
    boolean restored = TransitionCause.RESTORED.name().equals(f.apply("cause"));
    return new ReplayStep(
        breakerId,
        new TimelineKey(TimelineEntries.number(f.apply("at")), epoch, streamId, id),
        State.fromCode(f.apply("to")),
        TransitionCause.valueOf(f.apply("cause")),
        TimelineEntries.number(f.apply("until")),
        stored == null || stored.isEmpty() ? State.CLOSED : State.fromCode(stored),
        TimelineEntries.number(f.apply("openUntil")),
        TimelineEntries.number(f.apply("openMillis")),
        override == null || override.isEmpty() ? null : State.fromCode(override),
        TimelineEntries.number(f.apply("overrideUntil")),
        // a restore's own actor is not the override's: the override's travels in override* fields
        orEmpty(f.apply(restored ? "overrideActor" : "actor")),
        orEmpty(f.apply(restored ? "overrideReason" : "reason")),
        orEmpty(f.apply(restored ? "overrideCorrelationId" : "correlationId")),
        TimelineEntries.number(f.apply("generation")));
  }

  private static String orEmpty(String s) {
    return s == null ? "" : s;
  }
}
