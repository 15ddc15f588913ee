package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.CircuitEvent;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * A breaker's event listeners and what it tells them: transitions, rejections, probes, policy
 * adoption, degradation. A listener that throws never breaks a call.
 */
final class BreakerEvents {
  private final BreakerId id;
  private final List<Consumer<CircuitEvent>> listeners = new CopyOnWriteArrayList<>();

  BreakerEvents(BreakerId id) {
    this.id = id;
  }

  /** Adds {@code listener}; closing the handle removes it. */
  AutoCloseable add(Consumer<CircuitEvent> listener) {
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  /** Whether any listener is registered (an event is built only then). */
  boolean listened() {
    return !listeners.isEmpty();
  }

  void emit(CircuitEvent.Type type, State from, State to, String detail) {
    if (!listeners.isEmpty()) {
      emitEvent(new CircuitEvent(id, type, from, to, detail, System.currentTimeMillis()));
    }
  }

  void transition(State from, State to, TransitionCause cause, CircuitEvent.Source source) {
    if (!listeners.isEmpty()) {
      emitEvent(
          new CircuitEvent(
              id,
              CircuitEvent.Type.TRANSITION,
              from,
              to,
              cause == null ? "" : cause.name(),
              System.currentTimeMillis(),
              cause,
              source));
    }
  }

  void emitEvent(CircuitEvent e) {
    for (Consumer<CircuitEvent> l : listeners) {
      try {
        l.accept(e);
      } catch (RuntimeException ignored) {
        // a listener must not break a call
      }
    }
  }
}
