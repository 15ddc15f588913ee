package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.model.EffectiveState;
import io.breakerctl.runtime.model.Epoch;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;
import io.breakerctl.runtime.store.BreakerSnapshot;

/**
 * A node's copy of a breaker's shared state: the stored fields that decide admission plus the
 * offset between Redis time and the local clock when they were read, so time-based changes (an open
 * window ending, an override expiring) are computed at Redis time by the one state function.
 *
 * <p>It is also what the node holds when Redis does not answer (degraded decisions start from it)
 * and what it re-asserts when Redis comes back behind it (see {@link #lostIn}).
 */
record SharedView(
    State stored,
    long openUntil,
    long openMillis,
    State override,
    long overrideUntil,
    OverrideOrigin origin,
    TransitionCause cause,
    long generation,
    String epoch,
    long offsetMillis,
    long readAtMillis) {

  /** Who set the override and why, as far as this node knows (never null). */
  record OverrideOrigin(String actor, String reason, String correlationId) {
    static final OverrideOrigin UNKNOWN = new OverrideOrigin("", "", "");
  }

  /** The state in force at local time {@code localNowMillis}. */
  State effective(long localNowMillis) {
    return EffectiveState.of(
        stored, openUntil, override, overrideUntil, localNowMillis + offsetMillis);
  }

  /** Whether the override is in force at local time {@code localNowMillis}. */
  boolean overrideLive(long localNowMillis) {
    return override != null
        && !EffectiveState.overrideExpired(overrideUntil, localNowMillis + offsetMillis);
  }

  /** Whether the stored open window is still running at local time {@code localNowMillis}. */
  boolean windowLive(long localNowMillis) {
    return stored == State.OPEN && localNowMillis + offsetMillis < openUntil;
  }

  /** Whether {@code next} is the same incarnation at an older generation. */
  boolean newerThan(SharedView next) {
    return epoch.equals(next.epoch) && next.generation < generation;
  }

  /**
   * Whether {@code next} comes from a Redis that went back in time behind this view: the same
   * incarnation at an older generation, or an incarnation older than this view's (a restart from an
   * older RDB, a restore from backup, a failover to a replica that missed a flush). A read that a
   * message overtook looks the same; the script that re-asserts tells them apart (CURRENT).
   */
  boolean rewoundIn(SharedView next) {
    return newerThan(next) || Epoch.before(next.epoch, epoch);
  }

  /**
   * What this view enforces that {@code next} (what Redis holds now) lost, when {@code next} is
   * behind this view (the same epoch at a lower generation, or another incarnation): a live
   * override {@code next} lacks, or an open window, running or ended without probes closing it
   * (stored OPEN or HALF_OPEN), where {@code next} is CLOSED without an override (a FLUSHALL just
   * before a window's end let 8 calls through where one probe may go). From a Redis that went back
   * in time ({@link #rewoundIn}) also an older open window or override: a snapshot taken before a
   * failed probe doubled the window ended it about 43 s early and sent 1-2 probes per breaker to
   * the failing dependency; the node never trades what it knows for less. Null when nothing was
   * lost.
   */
  State lostIn(SharedView next, long localNowMillis) {
    boolean rewound = rewoundIn(next);
    if (!rewound && epoch.equals(next.epoch)) {
      return null;
    }
    if (overrideLive(localNowMillis)
        && (next.override != override || rewound && next.overrideUntil != overrideUntil)) {
      return override;
    }
    if ((stored == State.OPEN || stored == State.HALF_OPEN) && next.override == null) {
      if (next.stored == State.CLOSED) {
        // a running window, or one that ended without probes closing it (half-open): the fleet
        // has not seen the dependency recover, so the open state goes back, and one whose window
        // ended is half-open again at once (its probes leased), never CLOSED to every caller
        return State.OPEN;
      }
      if (rewound && next.openUntil <= openUntil) {
        // the older window of a rewound Redis (the same one included: the probes granted in it
        // went with the rewind, and the re-assertion holds their slots)
        return State.OPEN;
      }
    }
    return null;
  }

  /** This view with the stored state and open window of a newer answer (same override). */
  SharedView withStored(
      State stored, long openUntil, long openMillis, long generation, String epoch, long readAt) {
    return new SharedView(
        stored,
        openUntil,
        openMillis,
        override,
        overrideUntil,
        origin,
        cause,
        generation,
        epoch,
        offsetMillis,
        readAt);
  }

  static SharedView of(BreakerSnapshot s, long localNowMillis) {
    BreakerSnapshot.OverrideDetail o = s.overrideDetail().orElse(null);
    BreakerSnapshot.OpenWindow open = s.openWindow();
    return new SharedView(
        s.storedState(),
        open.untilMillis(),
        open.millis(),
        o == null ? null : o.state(),
        o == null ? 0 : o.untilMillis(),
        o == null
            ? OverrideOrigin.UNKNOWN
            : new OverrideOrigin(o.actor(), o.reason(), o.correlationId()),
        null,
        s.generation(),
        s.epoch(),
        s.redisTimeMillis() - localNowMillis,
        localNowMillis);
  }
}
