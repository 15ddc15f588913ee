package io.breakerctl.runtime.local;

import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The listeners of a {@link LocalStateMachine}'s transitions and their delivery: one thread at a
 * time delivers the machine's outbox, in the order the transitions were queued (generation order),
 * after the machine's lock is released. A thread that finds another delivering leaves its
 * transitions to it; the deliverer looks at the outbox again once it stopped, so none is left
 * behind. A listener's exception is logged and reaches neither the caller nor the other listeners.
 */
final class TransitionDelivery {
  private static final System.Logger LOG = System.getLogger(LocalStateMachine.class.getName());

  private final List<Consumer<LocalTransition>> listeners = new CopyOnWriteArrayList<>();
  private final AtomicBoolean delivering = new AtomicBoolean();

  /** Adds a listener for every transition delivered from now on. */
  void add(Consumer<LocalTransition> listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /** Delivers the transitions in {@code outbox} unless another thread is delivering. */
  void deliver(Queue<LocalTransition> outbox) {
    while (!outbox.isEmpty()) {
      if (!delivering.compareAndSet(false, true)) {
        return;
      }
      try {
        LocalTransition t;
        while ((t = outbox.poll()) != null) {
          for (Consumer<LocalTransition> listener : listeners) {
            try {
              listener.accept(t);
            } catch (RuntimeException e) {
              LOG.log(System.Logger.Level.WARNING, "transition listener failed on " + t, e);
            }
          }
        }
      } finally {
        delivering.set(false);
      }
    }
  }
}
