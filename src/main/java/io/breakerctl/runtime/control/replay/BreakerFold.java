package io.breakerctl.runtime.control.replay;

import io.breakerctl.runtime.control.TransitionRef;
import io.breakerctl.runtime.control.timeline.TimelineEntries;
import io.breakerctl.runtime.control.timeline.TimelineKey;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.EffectiveState;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;
import java.util.Optional;

/**
 * One breaker's history folded to an instant. Order-independent (each slot keeps the newest step
 * offered), so documents can be read unsorted and duplicates do not matter.
 *
 * <p>Three steps decide the state: the newest transition (an override set or updated there is the
 * override in force), the newest one that set the machine state (no machine transition happens
 * while an override is live), and the newest one that set the open window's end. An epoch whose
 * keys were created after the newest transition means the keys were re-created: CLOSED, no
 * override. The result goes through {@link EffectiveState}, like {@code status}.
 */
final class BreakerFold {

  private final BreakerId id;
  private long instant;
  private ReplayStep last;
  private ReplayStep machine;
  private ReplayStep opener;
  private String newestEpoch = "";

  BreakerFold(BreakerId id, long instantMillis) {
    this.id = id;
    this.instant = instantMillis;
  }

  /** Moves the instant forward (frames); steps offered before stay folded. */
  void advance(long instantMillis) {
    this.instant = instantMillis;
  }

  /** Folds a step in; steps after the instant only reveal epochs created before it. */
  void offer(ReplayStep s) {
    if (s.key().at() <= instant) {
      last = newer(last, s);
      if (s.setsMachine()) {
        machine = newer(machine, s);
      }
      if (s.setsOpenWindow()) {
        opener = newer(opener, s);
      }
    }
    if (TimelineEntries.epochStartMillis(s.epoch()) <= instant
        && TimelineKey.compareNumeric(s.epoch(), newestEpoch) > 0) {
      newestEpoch = s.epoch();
    }
  }

  private static ReplayStep newer(ReplayStep a, ReplayStep b) {
    return a == null || b.key().compareTo(a.key()) > 0 ? b : a;
  }

  /** The newest step at or before the instant. */
  ReplayStep last() {
    return last;
  }

  /** The state at {@code atMillis}; empty when nothing is known of the breaker by the instant. */
  Optional<ReplayState> state(long atMillis) {
    if (last == null || TimelineKey.compareNumeric(newestEpoch, last.epoch()) > 0) {
      if (newestEpoch.isEmpty()) {
        return Optional.empty();
      }
      return Optional.of(
          new ReplayState(
              id,
              State.CLOSED,
              State.CLOSED,
              0,
              Optional.empty(),
              0,
              newestEpoch,
              Optional.empty(),
              0));
    }
    String epoch = last.epoch();
    State stored = State.CLOSED;
    long openUntil = 0;
    if (machine != null && machine.epoch().equals(epoch)) {
      stored = machine.machineState();
    }
    if (stored == State.OPEN && opener != null && opener.epoch().equals(epoch)) {
      openUntil = opener.openWindowEnd();
    }
    State override = null;
    long overrideUntil = 0;
    if (!last.setsMachine()) {
      override = last.to();
      overrideUntil = last.until();
    } else if (last.cause() == TransitionCause.RESTORED && last.override() != null) {
      override = last.override();
      overrideUntil = last.overrideUntil();
    }
    State state = EffectiveState.of(stored, openUntil, override, overrideUntil, atMillis);
    return Optional.of(
        new ReplayState(
            id,
            state,
            stored,
            openUntil,
            Optional.ofNullable(override),
            overrideUntil,
            epoch,
            Optional.of(new TransitionRef(id, epoch, last.key().streamId())),
            last.key().at()));
  }

  /** The newest machine-state step (for restore: the override's stored state underneath). */
  ReplayStep machine() {
    return machine;
  }

  /** The newest step that set the open window. */
  ReplayStep opener() {
    return opener;
  }
}
