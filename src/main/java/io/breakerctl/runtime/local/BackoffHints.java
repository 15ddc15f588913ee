package io.breakerctl.runtime.local;

import io.breakerctl.runtime.model.BackoffHint;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;
import java.util.Optional;

/**
 * The back-off hints one {@link LocalStateMachine} took, as {@code record.lua} applies them (its
 * top comment says why): an outcome carrying a {@link BackoffHint} sets the open window to {@code
 * max(current end, now + min(hint, maxOpenSeconds))}, with no override in force and the policy
 * enabled. CLOSED and HALF_OPEN open, OPEN is only lengthened; a trip or a failed probe that comes
 * with a hint opens for the capped hint instead of {@code openSeconds} or the doubled window.
 *
 * <p>Guarded by the machine's lock; {@link #last()} reads what was last written.
 */
public final class BackoffHints {

  private final LocalStateMachine m;
  private volatile BackoffHint.InForce last;

  BackoffHints(LocalStateMachine machine) {
    this.m = machine;
  }

  /**
   * The last hint that set an open window (the hash's hintMillis, hintSource, hintUntil), if any:
   * in force while its end is ahead of the clock.
   */
  public Optional<BackoffHint.InForce> last() {
    return Optional.ofNullable(last);
  }

  /**
   * record.lua hinted(): the window a transition to OPEN gets, {@code own} without a hint, else the
   * hint capped by {@code maxOpenSeconds} (noted as the hint in force).
   */
  long window(long now, Policy p, BackoffHint h, long own) {
    if (h == null) {
      return own;
    }
    long w = Math.min(h.millis(), p.maxOpen().toMillis());
    last = new BackoffHint.InForce(h, now + w);
    return w;
  }

  /**
   * record.lua's hint rule for an outcome whose own handling ({@code r}) made no transition: opens
   * or lengthens the window, and answers as the script then does (a CLOSED window is emptied, the
   * outcome is accepted: it changed the state, whatever its counts did).
   */
  LocalRecordResult after(long now, Policy p, BackoffHint h, LocalRecordResult r) {
    State state = r.state();
    if (h == null || r.transitioned() || !p.enabled() || state.isOverride()) {
      return r;
    }
    long w = Math.min(h.millis(), p.maxOpen().toMillis());
    if (state == State.OPEN && now + w <= m.openUntil) {
      return r;
    }
    m.openFor(now, window(now, p, h, w), TransitionCause.BACKOFF_REQUESTED);
    boolean emptied = state == State.CLOSED;
    if (emptied) {
      m.window.clear(now, p.window().toMillis());
    }
    return new LocalRecordResult(
        State.OPEN,
        emptied ? 0 : r.windowFailures(),
        emptied ? 0 : r.windowCalls(),
        true,
        m.generation,
        true,
        r.reason());
  }
}
