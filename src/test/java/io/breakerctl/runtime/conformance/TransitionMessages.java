package io.breakerctl.runtime.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.store.BreakerStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/**
 * The transition messages a store publishes for one breaker, as a subscribed node hears them. Only
 * the fields every store publishes are read: {@code type}, {@code id}, {@code epoch}, {@code from},
 * {@code to}, {@code cause}, {@code generation}.
 */
final class TransitionMessages implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration BOUND = Duration.ofSeconds(10);

  /** One transition message. */
  record Message(String epoch, String from, String to, String cause, String generation) {
    @Override
    public String toString() {
      return from + "->" + to + " " + cause + " generation=" + generation;
    }
  }

  private final String id;
  private final List<Message> heard = new CopyOnWriteArrayList<>();
  private final BreakerStore.Subscription subscription;

  TransitionMessages(BreakerStore store, BreakerId id) {
    this.id = id.toString();
    this.subscription = store.subscribe(this::hear, () -> {});
  }

  private void hear(String text) {
    JsonNode m;
    try {
      m = JSON.readTree(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (!"transition".equals(m.path("type").asText()) || !id.equals(m.path("id").asText())) {
      return;
    }
    heard.add(
        new Message(
            m.path("epoch").asText(),
            m.path("from").asText(),
            m.path("to").asText(),
            m.path("cause").asText(),
            m.path("generation").asText()));
  }

  /**
   * Every message heard once one matching {@code until} has arrived (pub/sub delivers a publisher's
   * messages in order, so every earlier one has arrived too); bounded by {@link #BOUND}.
   *
   * @throws AssertionError when none arrives in time
   */
  List<Message> through(Predicate<Message> until, String what) {
    long deadline = System.nanoTime() + BOUND.toNanos();
    while (heard.stream().noneMatch(until)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "no transition message " + what + " within " + BOUND + ": " + heard);
      }
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what, e);
      }
    }
    return List.copyOf(heard);
  }

  /** Through the first message of {@code generation}. */
  List<Message> throughGeneration(String generation) {
    return through(m -> m.generation().equals(generation), "of generation " + generation);
  }

  @Override
  public void close() {
    subscription.close();
  }
}
