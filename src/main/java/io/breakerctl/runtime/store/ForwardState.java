package io.breakerctl.runtime.store;

/**
 * The fields of a breaker's hash the history forwarder needs (one HMGET, not a snapshot).
 *
 * @param epoch the breaker's incarnation, empty when its keys do not exist
 * @param forwarded the stream id forwarded up to, empty for none
 * @param lastEvent the stream id of the newest event, empty for none
 * @param eventsDropped unforwarded events the stream's hard cap dropped
 * @param eventsExpired unforwarded events given up when the history hold ended
 */
public record ForwardState(
    String epoch, String forwarded, String lastEvent, long eventsDropped, long eventsExpired) {

  /** Whether events beyond the forwarded cursor remain (or some were lost). */
  public boolean pending() {
    return !epoch.isEmpty() && (!lastEvent.equals(forwarded) || lost() > 0);
  }

  /** Events lost before the forwarder stored them: dropped by the cap or given up at the hold. */
  public long lost() {
    return eventsDropped + eventsExpired;
  }
}
