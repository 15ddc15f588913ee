package io.breakerctl.runtime.store;

import java.util.EnumMap;
import java.util.Map;

/**
 * The fleet's history and key holds summed over breakers ({@link BreakerHistory} each): how many
 * breakers forward their history, keep none or wait for the forwarder, the events their streams
 * hold, what holds keys past the idle TTL, and the events lost unforwarded. Not thread-safe: one
 * reader adds the breakers it reads.
 */
public final class HistoryTotals {

  private final Map<BreakerHistory.Destination, Long> destinations =
      new EnumMap<>(BreakerHistory.Destination.class);
  private final Map<BreakerHistory.Held, Long> held = new EnumMap<>(BreakerHistory.Held.class);
  private long breakers;
  private long streamEvents;
  private long unforwarded;
  private long oldestWaitingMillis;
  private long eventsExpired;
  private long eventsDropped;
  private long breakersExpired;

  /** Adds one breaker. */
  public void add(BreakerHistory h) {
    breakers++;
    destinations.merge(h.destination(), 1L, Long::sum);
    if (h.held() != BreakerHistory.Held.NONE) {
      held.merge(h.held(), 1L, Long::sum);
    }
    streamEvents += Math.max(0, h.streamLength());
    unforwarded += h.unforwarded();
    if (h.waitingSinceMillis() > 0
        && (oldestWaitingMillis == 0 || h.waitingSinceMillis() < oldestWaitingMillis)) {
      oldestWaitingMillis = h.waitingSinceMillis();
    }
    eventsExpired += h.eventsExpired();
    eventsDropped += h.eventsDropped();
    breakersExpired += h.eventsExpired() > 0 ? 1 : 0;
  }

  /** Breakers added. */
  public long breakers() {
    return breakers;
  }

  /** Breakers whose history goes to {@code d}. */
  public long count(BreakerHistory.Destination d) {
    return destinations.getOrDefault(d, 0L);
  }

  /** Breakers whose keys {@code reason} holds past the idle TTL. */
  public long held(BreakerHistory.Held reason) {
    return held.getOrDefault(reason, 0L);
  }

  /** Events in every stream (as the scripts counted them). */
  public long streamEvents() {
    return streamEvents;
  }

  /** Events waiting for the forwarder. */
  public long unforwarded() {
    return unforwarded;
  }

  /** Redis time of the oldest event waiting for the forwarder, 0 when none waits. */
  public long oldestWaitingMillis() {
    return oldestWaitingMillis;
  }

  /** Events given up unforwarded when their hold ended. */
  public long eventsExpired() {
    return eventsExpired;
  }

  /** Breakers with events given up unforwarded. */
  public long breakersExpired() {
    return breakersExpired;
  }

  /** Events the streams' hard cap dropped unforwarded. */
  public long eventsDropped() {
    return eventsDropped;
  }
}
