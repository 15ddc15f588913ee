package io.breakerctl.runtime.redis;

/**
 * The fields of a breaker's hash the history forwarder needs (one HMGET, not a snapshot).
 *
 * @param epoch the breaker's incarnation, empty when its keys do not exist
 * @param forwarded the stream id forwarded up to, empty for none
 * @param lastEvent the stream id of the newest event, empty for none
 * @param eventsDropped unforwarded events the stream's hard cap dropped
 */
public record ForwardState(String epoch, String forwarded, String lastEvent, long eventsDropped) {

  /** Whether events beyond the forwarded cursor remain (or some were dropped). */
  public boolean pending() {
    return !epoch.isEmpty() && (!lastEvent.equals(forwarded) || eventsDropped > 0);
  }
}
