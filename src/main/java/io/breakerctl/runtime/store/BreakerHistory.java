package io.breakerctl.runtime.store;

import java.util.Map;

/**
 * Where a breaker's history goes and what holds its keys in Redis, as its hash says (the fields
 * {@code prelude.lua} documents under "History destination"); computed from a snapshot at the
 * snapshot's Redis time, so every reader says the same.
 *
 * @param destination where the events go
 * @param streamLength events in the stream (as the last script that changed it counted)
 * @param unforwarded events the forwarder has not stored (with a destination), else 0
 * @param waitingSinceMillis Redis time of the oldest of them, 0 when none
 * @param holdUntilMillis when the hold ends (then the events are given up and the keys expire when
 *     idle), 0 when nothing waits
 * @param eventsExpired events given up unforwarded when their hold ended
 * @param expiredAtMillis when that last happened, 0 never
 * @param eventsDropped events the stream's hard cap dropped unforwarded
 * @param held why the keys do not follow the idle TTL now, {@link Held#NONE} when they do
 * @param heldSinceMillis since when they are held (the open window, the override, the oldest
 *     unforwarded event), 0 when not held
 */
public record BreakerHistory(
    Destination destination,
    long streamLength,
    long unforwarded,
    long waitingSinceMillis,
    long holdUntilMillis,
    long eventsExpired,
    long expiredAtMillis,
    long eventsDropped,
    Held held,
    long heldSinceMillis) {

  /** Where a breaker's events go. */
  public enum Destination {
    /** Forwarded to the control plane, none waiting. */
    FORWARDED,
    /** No destination: the stream keeps a bounded tail, events hold nothing. */
    NOT_KEPT,
    /** Forwarded, with events waiting for the forwarder within the hold. */
    WAITING,
    /** Forwarded, with events still waiting after the hold: given up at the next script. */
    EXPIRING;

    /** The wire spelling ({@code not-kept}). */
    public String code() {
      return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
  }

  /** Why a breaker's keys are held past the idle TTL. */
  public enum Held {
    /** Not held: the keys expire after the idle TTL without use. */
    NONE,
    /** Open: held until the window ends and the breaker closes. */
    OPEN,
    /** Half-open: held until a probe closes or reopens it. */
    HALF_OPEN,
    /** A live override: held until it ends. */
    OVERRIDE,
    /** Events await the forwarder: held at most until the hold ends. */
    UNFORWARDED
  }

  /** The stored value of {@code history} that declares a destination. */
  static final String FORWARD = "forward";

  static BreakerHistory of(BreakerSnapshot s) {
    Map<String, String> f = s.fields();
    long now = s.redisTimeMillis();
    boolean forwards = FORWARD.equals(f.get("history"));
    String last = f.getOrDefault("lastEvent", "");
    boolean waiting = forwards && !last.equals(f.getOrDefault("forwarded", ""));
    long since = 0;
    long until = 0;
    long count = 0;
    if (waiting) {
      since = s.number("unfwdSince");
      if (since == 0) {
        since = streamMillis(last);
      }
      long hold = s.number("historyHold");
      until = since + (hold > 0 ? hold : DEFAULT_HOLD_MILLIS);
      count = s.number("unfwdCount");
    }
    Destination d =
        !forwards
            ? Destination.NOT_KEPT
            : !waiting
                ? Destination.FORWARDED
                : now >= until ? Destination.EXPIRING : Destination.WAITING;
    Held held = Held.NONE;
    long heldSince = 0;
    if (s.exists()) {
      String override = f.get("override");
      long overrideUntil = s.number("overrideUntil");
      String state = f.getOrDefault("state", "CLOSED");
      if (override != null && !override.isEmpty() && (overrideUntil == 0 || now < overrideUntil)) {
        held = Held.OVERRIDE;
        heldSince = s.number("overrideAt");
      } else if (state.equals("OPEN") || state.equals("HALF_OPEN")) {
        // the stored state holds the keys; the state in force says which (a window that ended)
        held =
            s.effectiveState() == io.breakerctl.runtime.model.State.OPEN
                ? Held.OPEN
                : Held.HALF_OPEN;
        heldSince = s.number("lastTransitionAt");
      } else if (d == Destination.WAITING) {
        held = Held.UNFORWARDED;
        heldSince = since;
      }
    }
    long length = f.containsKey("streamLength") ? s.number("streamLength") : -1;
    return new BreakerHistory(
        d,
        length,
        count,
        since,
        until,
        s.number("eventsExpired"),
        s.number("expiredAt"),
        s.number("eventsDropped"),
        held,
        heldSince);
  }

  /** The default hold (7 days) the scripts apply when none was declared. */
  public static final long DEFAULT_HOLD_MILLIS = 604_800_000L;

  private static long streamMillis(String streamId) {
    int dash = streamId.indexOf('-');
    try {
      return dash > 0 ? Long.parseLong(streamId.substring(0, dash)) : 0;
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
