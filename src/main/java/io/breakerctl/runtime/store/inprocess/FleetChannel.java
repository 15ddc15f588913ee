package io.breakerctl.runtime.store.inprocess;

import io.breakerctl.runtime.store.BreakerStore;
import io.breakerctl.runtime.store.StoreUnavailableException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The fleet messages of an {@link InProcessBreakerStore}, its pub/sub: subscriptions, and messages
 * delivered synchronously to every subscriber once the command that published them released the
 * store's lock. While the store is unavailable subscriptions read closed and hear nothing; lost
 * messages ({@link StoreFaults#dropMessages}) are dropped for every subscriber.
 */
final class FleetChannel {
  private final CommandRunner commands;
  private final StoreFaults faults;
  private final List<Sub> subscriptions = new CopyOnWriteArrayList<>();

  FleetChannel(CommandRunner commands, StoreFaults faults) {
    this.commands = commands;
    this.faults = faults;
  }

  /** As {@link BreakerStore#subscribe}: fails while the store is unavailable. */
  BreakerStore.Subscription subscribe(Consumer<String> onMessage, Runnable onSubscribed) {
    commands.count("subscribe");
    if (!faults.available()) {
      throw new StoreUnavailableException("the in-process store is unavailable", null);
    }
    Sub s = new Sub(onMessage);
    subscriptions.add(s);
    onSubscribed.run();
    return s;
  }

  /** Publishes {@code message} to every subscriber once the current command released the lock. */
  void publish(String message) {
    commands.afterCommand(() -> deliverNow(message));
  }

  private void deliverNow(String message) {
    if (!faults.delivers()) {
      return;
    }
    for (Sub s : subscriptions) {
      try {
        s.onMessage.accept(message);
      } catch (RuntimeException e) {
        // a subscriber's failure is its own; the others still hear the message
      }
    }
  }

  /** A subscriber: open until closed, and closed to the eye while the store is unavailable. */
  private final class Sub implements BreakerStore.Subscription {
    final Consumer<String> onMessage;
    volatile boolean closed;

    Sub(Consumer<String> onMessage) {
      this.onMessage = onMessage;
    }

    @Override
    public boolean isOpen() {
      return !closed && faults.available();
    }

    @Override
    public CompletableFuture<Long> publish(String message) {
      return commands.run(
          "publish",
          () -> {
            FleetChannel.this.publish(message);
            return (long) subscriptions.size();
          });
    }

    @Override
    public CompletableFuture<Long> beacon(String message) {
      return commands.run(
          "publish",
          () -> {
            // not subject to dropping: that loses single messages of a subscription that works,
            // while a beacon not heard means a subscription that delivers nothing at all
            if (faults.available() && !closed) {
              commands.afterCommand(() -> onMessage.accept(message));
              return 1L;
            }
            return 0L;
          });
    }

    @Override
    public void close() {
      closed = true;
      subscriptions.remove(this);
    }
  }
}
