package io.breakerctl.runtime.store;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One entry of a breaker's event stream: a transition or an override action. Its identity is
 * (breaker id, epoch, stream id).
 *
 * @param id the breaker
 * @param streamId the entry's stream id
 * @param fields every field as stored (from, to, cause, generation, node, at, and per cause:
 *     failures, calls, threshold, lease, actor, reason, correlationId, until, ...); outside the
 *     store a reader takes the typed accessors, and the fields as a whole only to show or keep the
 *     entry as stored (ArchitectureTest)
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

  /**
   * A field, or empty. Outside the store a reader takes the typed accessors below; this and {@link
   * #fields()} stay for the store, and for showing or keeping an entry as it is (ArchitectureTest).
   */
  public String field(String name) {
    return fields.getOrDefault(name, "");
  }

  /**
   * The state before as stored ({@code from}), empty when absent; in a malformed event any text.
   */
  public String fromText() {
    return field("from");
  }

  /** The state after as stored ({@code to}), empty when absent; in a malformed event any text. */
  public String toText() {
    return field("to");
  }

  /** The cause as stored ({@code cause}), empty when absent; in a malformed event any text. */
  public String causeText() {
    return field("cause");
  }

  /** The node whose script wrote the event, or empty. */
  public String node() {
    return field("node");
  }

  /** Who acted (an override, a restore, a policy change), or empty. */
  public String actor() {
    return field("actor");
  }

  /** Why they acted, or empty. */
  public String reason() {
    return field("reason");
  }

  /** The id linking the event to its audit record, or empty. */
  public String correlationId() {
    return field("correlationId");
  }

  /** The policy the event ran under ({@code policyId}), or empty. */
  public String policyId() {
    return field("policyId");
  }

  /** The version of that policy ({@code policyVersion}); 0 when absent or not a number. */
  public long policyVersion() {
    return lenient("policyVersion");
  }

  /** The probe lease the event names ({@code lease}), or empty. */
  public String lease() {
    return field("lease");
  }

  /**
   * Redis time, ms, the state the event started ends ({@code until}: an open window's or an
   * override's end); 0 for none, and when absent or not a number.
   */
  public long until() {
    return lenient("until");
  }

  /** The breaker's generation after the event; 0 when absent or not a number. */
  public long generation() {
    return lenient("generation");
  }

  /** Failures counted in the window when a trip happened; empty when absent or not a number. */
  public OptionalLong failures() {
    return optionalNumber("failures");
  }

  /** The failure threshold a trip crossed; empty when absent or not a number. */
  public OptionalLong threshold() {
    return optionalNumber("threshold");
  }

  /**
   * The machine state a RESTORED event put back ({@code stored}), empty when absent.
   *
   * @throws IllegalArgumentException when the field holds no state
   */
  public Optional<State> stored() {
    return optionalState("stored");
  }

  /** The end of the open window a RESTORED event put back ({@code openUntil}); 0 for none. */
  public long openUntil() {
    return lenient("openUntil");
  }

  /**
   * The override a RESTORED event put back ({@code override}), empty when none.
   *
   * @throws IllegalArgumentException when the field holds no state
   */
  public Optional<State> override() {
    return optionalState("override");
  }

  /** The end of the override a RESTORED event put back ({@code overrideUntil}); 0 for none. */
  public long overrideUntil() {
    return lenient("overrideUntil");
  }

  /** Who set the override a RESTORED event put back ({@code overrideActor}), or empty. */
  public String overrideActor() {
    return field("overrideActor");
  }

  /** Why the override a RESTORED event put back was set ({@code overrideReason}), or empty. */
  public String overrideReason() {
    return field("overrideReason");
  }

  /** The audit link of the override a RESTORED event put back, or empty. */
  public String overrideCorrelationId() {
    return field("overrideCorrelationId");
  }

  private long lenient(String name) {
    return optionalNumber(name).orElse(0);
  }

  private OptionalLong optionalNumber(String name) {
    String v = fields.get(name);
    if (v == null || v.isEmpty()) {
      return OptionalLong.empty();
    }
    try {
      return OptionalLong.of(Long.parseLong(v));
    } catch (NumberFormatException e) {
      return OptionalLong.empty();
    }
  }

  private Optional<State> optionalState(String name) {
    String v = fields.get(name);
    return v == null || v.isEmpty() ? Optional.empty() : Optional.of(State.fromCode(v));
  }
}
