package io.breakerctl.runtime.store;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;
import java.util.Map;
import java.util.OptionalLong;

/**
 * One entry of a breaker's event stream: a transition or an override action. Its identity is
 * (breaker id, epoch, stream id).
 *
 * @param id the breaker
 * @param streamId the entry's stream id
 * @param fields every field as stored (from, to, cause, generation, node, at, and per cause:
 *     failures, calls, threshold, lease, actor, reason, correlationId, until, ...)
 */
public record BreakerEvent(BreakerId id, String streamId, Map<String, String> fields) {

  /** The incarnation of the breaker's keys the event belongs to. */
  public String epoch() {
    return fields.getOrDefault("epoch", "");
  }

  /**
   * This event in the incarnation of the stream that holds it: itself when it names one, else a
   * copy with {@code epoch} (an entry the scripts did not write may carry none; every reader of a
   * stream, and the forwarder, place it in the stream's).
   */
  public BreakerEvent inEpoch(String epoch) {
    if (!epoch().isEmpty()) {
      return this;
    }
    Map<String, String> f = new java.util.HashMap<>(fields);
    f.put("epoch", epoch);
    return new BreakerEvent(id, streamId, Map.copyOf(f));
  }

  /** The state before. */
  public State from() {
    return State.fromCode(fields.get("from"));
  }

  /** The state after. */
  public State to() {
    return State.fromCode(fields.get("to"));
  }

  /** Why. */
  public TransitionCause cause() {
    return TransitionCause.valueOf(fields.get("cause"));
  }

  /**
   * Redis time of the transition, ms; for an event whose {@code at} is not a time (a {@link
   * #problem()}), the time Redis appended it (its stream id).
   */
  public long atMillis() {
    String at = fields.get("at");
    return at != null && MILLIS.matcher(at).matches() ? Long.parseLong(at) : streamMillis();
  }

  /** The time in the stream id (when Redis appended the entry), ms; 0 for an id without one. */
  public long streamMillis() {
    int dash = streamId.indexOf('-');
    String ms = dash < 0 ? streamId : streamId.substring(0, dash);
    return MILLIS.matcher(ms).matches() ? Long.parseLong(ms) : 0;
  }

  /**
   * What makes this event no transition, or empty. The scripts write every event with a {@code
   * from} and a {@code to} that are states, a {@code cause} that is a transition cause and an
   * {@code at} in ms; an entry without one (appended by hand with XADD, or by something else than
   * the scripts) is malformed: history and describe show it as such, replay skips it, and the
   * forwarder stores it in MongoDB marked malformed, never as a transition. One bad entry never
   * makes a fleet-wide read fail.
   */
  public java.util.Optional<String> problem() {
    java.util.List<String> bad = new java.util.ArrayList<>();
    for (String k : new String[] {"from", "to"}) {
      String v = fields.get(k);
      if (!State.isCode(v)) {
        bad.add(v == null ? k + " missing" : k + "=" + shown(v) + " is not a state");
      }
    }
    String cause = fields.get("cause");
    if (!TransitionCause.isName(cause)) {
      bad.add(
          cause == null ? "cause missing" : "cause=" + shown(cause) + " is not a transition cause");
    }
    String at = fields.get("at");
    if (at == null || !MILLIS.matcher(at).matches()) {
      bad.add(at == null ? "at missing" : "at=" + shown(at) + " is not a time in ms");
    }
    return bad.isEmpty()
        ? java.util.Optional.empty()
        : java.util.Optional.of(String.join("; ", bad));
  }

  private static final java.util.regex.Pattern MILLIS =
      java.util.regex.Pattern.compile("\\d{1,18}");

  /** A stored value in a message: at most 40 characters. */
  private static String shown(String v) {
    return v.length() <= 40 ? v : v.substring(0, 37) + "...";
  }

  /**
   * The length of the open window the event started ({@code openMillis}, ms): carried by an event
   * that opens one (a trip, a failed or timed-out probe, a re-asserted trip); empty for any other.
   */
  public OptionalLong openMillis() {
    String v = fields.get("openMillis");
    return v != null && MILLIS.matcher(v).matches()
        ? OptionalLong.of(Long.parseLong(v))
        : OptionalLong.empty();
  }

  /** A field, or empty. */
  public String field(String name) {
    return fields.getOrDefault(name, "");
  }
}
